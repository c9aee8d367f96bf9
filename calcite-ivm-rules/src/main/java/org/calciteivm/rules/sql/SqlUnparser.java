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

  /**
   * The SQL of {@code rel} as one query. Constant group keys are written as casts (see {@link
   * ConstantGroupKeys}); Calcite's own remedy for dialects that cannot group by a literal would
   * evaluate the constant with Calcite's semantics instead of DuckDB's. Empty relations have typed
   * columns ({@link TypedEmptyRelations}), and the columns of joins distinct names ({@link
   * UniqueJoinColumns}).
   */
  public String toSql(RelNode rel) {
    RelToSqlConverter converter = new RelToSqlConverter(dialect);
    return converter
        .visitRoot(
            ConstantGroupKeys.protect(UniqueJoinColumns.protect(TypedEmptyRelations.protect(rel))))
        .asStatement()
        .toSqlString(dialect)
        .getSql();
  }
}
