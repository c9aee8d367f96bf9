package org.calciteivm.rules.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.sql.SqlDialect;
import org.apache.calcite.sql.SqlNode;

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
   * UniqueJoinColumns}). For DuckDB, a subplan read more than once is written once, as a
   * materialized common table expression ({@link SharedSubplans}).
   */
  public String toSql(RelNode rel) {
    RelNode plan =
        ConstantGroupKeys.protect(UniqueJoinColumns.protect(TypedEmptyRelations.protect(rel)));
    if (!SharedSubplans.supported(dialect)) {
      return write(plan);
    }
    SharedSubplans.Split split = SharedSubplans.of(plan);
    if (split.shared().isEmpty()) {
      return write(plan);
    }
    List<String> tables = new ArrayList<>();
    for (SharedSubplans.Shared shared : split.shared()) {
      String columns =
          SharedSubplans.columnNames(shared.plan()).stream()
              .map(dialect::quoteIdentifier)
              .collect(Collectors.joining(", "));
      tables.add(
          dialect.quoteIdentifier(shared.name())
              + "("
              + columns
              + ") AS MATERIALIZED ("
              + write(shared.plan())
              + ")");
    }
    return "WITH " + String.join(", ", tables) + "\n" + write(split.plan());
  }

  private String write(RelNode plan) {
    SqlNode statement = new IvmRelToSqlConverter(dialect).visitRoot(plan).asStatement();
    if (dialect instanceof IvmDuckDbDialect) {
      statement = DuckDbLambdas.write(statement);
    }
    return statement.toSqlString(dialect).getSql();
  }
}
