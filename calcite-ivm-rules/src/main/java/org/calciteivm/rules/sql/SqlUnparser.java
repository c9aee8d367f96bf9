package org.calciteivm.rules.sql;

import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.rel2sql.RelToSqlConverter;
import org.apache.calcite.sql.SqlDialect;

/** Writes a relational plan as SQL text of a target dialect. */
public final class SqlUnparser {
  private final SqlDialect dialect;

  /** An unparser for {@code dialect}. */
  public SqlUnparser(SqlDialect dialect) {
    this.dialect = dialect;
  }

  /** An unparser for DuckDB. */
  public static SqlUnparser duckDb() {
    return new SqlUnparser(IvmDuckDbDialect.INSTANCE);
  }

  /** The SQL of {@code rel} as one query. */
  public String toSql(RelNode rel) {
    RelToSqlConverter converter = new RelToSqlConverter(dialect);
    return converter.visitRoot(rel).asStatement().toSqlString(dialect).getSql();
  }
}
