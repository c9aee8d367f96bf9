package org.calciteivm.rules;

import org.apache.calcite.rel.RelNode;
import org.calciteivm.rules.delta.DeltaDerivation;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.calciteivm.rules.sql.DuckDbTypeSystem;
import org.calciteivm.rules.sql.SqlUnparser;
import org.junit.jupiter.api.Test;

/** Golden plans: a view's plan before and after the delta rules, and the SQL sent to DuckDB. */
class DeltaRulesTest {
  private final ViewSqlPlanner planner =
      new ViewSqlPlanner(TestSchemas.ordersSchema(), DuckDbTypeSystem.INSTANCE);

  private String[] derive(String sql) throws Exception {
    RelNode view = planner.toRel("v", sql);
    RelNode delta = DeltaDerivation.derive(view);
    return new String[] {
      ViewSqlPlanner.explain(view), ViewSqlPlanner.explain(delta), SqlUnparser.duckDb().toSql(delta)
    };
  }

  @Test
  void print() throws Exception {
    for (String s :
        derive(
            "SELECT id + 1 AS next_id, UPPER(status) FROM orders WHERE amount > 10 AND status <> 'x'")) {
      System.out.println(s);
    }
    for (String s : derive("SELECT CAST(id AS VARCHAR) v, CAST(amount AS TIMESTAMP) FROM orders")) {
      System.out.println(s);
    }
  }
}
