package org.calciteivm.rules;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.calcite.rel.RelNode;
import org.calciteivm.rules.consolidate.Consolidation;
import org.calciteivm.rules.delta.DeltaDerivation;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.calciteivm.rules.sql.DuckDbTypeSystem;
import org.calciteivm.rules.sql.SqlUnparser;
import org.junit.jupiter.api.Test;

/**
 * Golden plans: a view's plan before and after the delta rules, and the SQL sent to DuckDB. No
 * database is involved; the schema has only row types.
 */
class DeltaRulesTest {
  private final ViewSqlPlanner planner =
      new ViewSqlPlanner(TestSchemas.ordersSchema(), DuckDbTypeSystem.INSTANCE);

  private RelNode view(String sql) throws Exception {
    return planner.toRel("v", sql);
  }

  private static String explain(RelNode rel) {
    return ViewSqlPlanner.explain(rel).trim();
  }

  @Test
  void filterAndProjectPassTheWeightThrough() throws Exception {
    RelNode view = view("SELECT id + 1 AS next_id, UPPER(status) AS s FROM orders WHERE id > 2");
    assertThat(explain(view))
        .isEqualTo(
            """
            LogicalProject(next_id=[+($0, 1)], s=[UPPER($1)])
              LogicalFilter(condition=[>($0, 2)])
                LogicalTableScan(table=[[main, orders]])""");
    RelNode delta = DeltaDerivation.derive(view);
    assertThat(explain(delta))
        .isEqualTo(
            """
            LogicalProject(next_id=[+($0, 1)], s=[UPPER($1)], _ivm_weight=[$3])
              LogicalFilter(condition=[>($0, 2)])
                LogicalTableScan(table=[[temp, orders_delta]])""");
    assertThat(SqlUnparser.duckDb().toSql(delta))
        .isEqualTo(
            """
            SELECT "id" + 1 AS "next_id", UPPER("status") AS "s", "_ivm_weight"
            FROM "temp"."orders_delta"
            WHERE "id" > 2""");
  }

  @Test
  void scanOfAChangingTableBecomesItsDelta() throws Exception {
    RelNode delta = DeltaDerivation.derive(view("SELECT * FROM orders"));
    assertThat(explain(delta))
        .isEqualTo(
            """
            LogicalProject(id=[$0], status=[$1], amount=[$2], _ivm_weight=[$3])
              LogicalTableScan(table=[[temp, orders_delta]])""");
  }

  @Test
  void scanOfAnUnchangingTableHasAnEmptyDelta() throws Exception {
    RelNode delta = DeltaDerivation.derive(view("SELECT name FROM customers WHERE id = 1"));
    assertThat(explain(delta))
        .isEqualTo(
            """
            LogicalProject(name=[$1], _ivm_weight=[$2])
              LogicalFilter(condition=[=($0, 1)])
                LogicalValues(tuples=[[]])""");
  }

  @Test
  void castsAreWrittenTheWayDuckDbReadsThem() throws Exception {
    RelNode delta =
        DeltaDerivation.derive(
            view("SELECT CAST(id AS VARCHAR) AS s, CAST(status AS TIMESTAMP) AS ts FROM orders"));
    // no character set (DuckDB rejects it) and no TIMESTAMP(0) (DuckDB would truncate to seconds)
    assertThat(SqlUnparser.duckDb().toSql(delta))
        .isEqualTo(
            """
            SELECT CAST("id" AS VARCHAR) AS "s", CAST("status" AS TIMESTAMP) AS "ts", "_ivm_weight"
            FROM "temp"."orders_delta\"""");
  }

  @Test
  void expressionsAreNotSimplified() throws Exception {
    // Calcite would fold 1/2 to 0; DuckDB computes 0.5: the text must reach DuckDB unchanged
    RelNode delta = DeltaDerivation.derive(view("SELECT id, 1 / 2 AS half FROM orders"));
    assertThat(SqlUnparser.duckDb().toSql(delta)).contains("1 / 2 AS \"half\"");
  }

  @Test
  void consolidationSumsWeightsPerTupleAndDropsZeros() throws Exception {
    RelNode delta = DeltaDerivation.derive(view("SELECT status FROM orders"));
    RelNode consolidated =
        Consolidation.consolidate(IvmRelBuilders.create(delta.getCluster()), delta);
    assertThat(explain(consolidated))
        .isEqualTo(
            """
            LogicalProject(status=[$0], _ivm_weight=[CAST($1):BIGINT NOT NULL])
              LogicalFilter(condition=[<>($1, 0)])
                LogicalAggregate(group=[{0}], _ivm_weight=[SUM($1)])
                  LogicalProject(status=[$1], _ivm_weight=[$3])
                    LogicalTableScan(table=[[temp, orders_delta]])""");
    assertThat(SqlUnparser.duckDb().toSql(consolidated))
        .isEqualTo(
            """
            SELECT "status", CAST(SUM("_ivm_weight") AS BIGINT) AS "_ivm_weight"
            FROM "temp"."orders_delta"
            GROUP BY "status"
            HAVING SUM("_ivm_weight") <> 0""");
  }

  @Test
  void inListsReachDuckDbAsInLists() throws Exception {
    // Calcite turns an IN list into a disjunction of equalities; DuckDB evaluates one of 10,000
    // terms in seconds where the IN list takes milliseconds
    RelNode delta =
        DeltaDerivation.derive(
            view(
                "SELECT id FROM orders WHERE status IN ('open', 'held', 'new')"
                    + " OR id = 7 OR id NOT IN (1, 2) OR status = 'x'"));
    assertThat(SqlUnparser.duckDb().toSql(delta))
        .isEqualTo(
            """
            SELECT "id", "_ivm_weight"
            FROM "temp"."orders_delta"
            WHERE "status" IN ('held', 'new', 'open', 'x') OR "id" = 7 OR NOT "id" IN (1, 2)""");
  }

  @Test
  void inListsWithNullOrExpressionsStayDisjunctions() throws Exception {
    // x IN (1, NULL) is NULL, not false, where x is not 1: only non-NULL literals are grouped
    RelNode delta =
        DeltaDerivation.derive(
            view("SELECT id IN (1, NULL) AS a, id IN (id + 1, id * 2) AS b FROM orders"));
    assertThat(SqlUnparser.duckDb().toSql(delta))
        .startsWith(
            "SELECT \"id\" = 1 OR \"id\" = NULL AS \"a\","
                + " \"id\" = \"id\" + 1 OR \"id\" = \"id\" * 2 AS \"b\"");
  }

  @Test
  void literalsOutsideLatin1AreWrittenAsTheyAre() throws Exception {
    RelNode delta =
        DeltaDerivation.derive(
            view("SELECT status || '·東京' AS s FROM orders WHERE status IN ('€', '😀')"));
    assertThat(SqlUnparser.duckDb().toSql(delta))
        .isEqualTo(
            """
            SELECT "status" || '·東京' AS "s", "_ivm_weight"
            FROM "temp"."orders_delta"
            WHERE "status" IN ('€', '😀')""");
  }
}
