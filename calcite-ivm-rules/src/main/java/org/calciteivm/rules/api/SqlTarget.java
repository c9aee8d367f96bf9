package org.calciteivm.rules.api;

import java.util.Objects;
import org.apache.calcite.sql.SqlDialect;
import org.calciteivm.rules.sql.IvmDuckDbDialect;
import org.calciteivm.rules.sql.SqlUnparser;

/**
 * The database a view's SQL is written for: the dialect of every query (delta, stored content, read
 * query) and the form of the merge statements.
 *
 * <ul>
 *   <li>{@link #duckDb()}: DuckDB's own forms ({@code rowid}, {@code generate_series}, temporary
 *       tables); a view without aggregate stores its rows as they are, one per copy.
 *   <li>{@link #standard(SqlDialect)}: SQL:2008 {@code MERGE} with conditional {@code WHEN MATCHED
 *       ... THEN DELETE} clauses and nothing else beyond SQL-92, for engines that have it (H2,
 *       PostgreSQL 15, Oracle, SQL Server, DB2, Spark with Iceberg or Delta, ...). A view without
 *       aggregate stores each distinct row once with its number of copies in {@code _ivm_count}
 *       (see {@link MaintainedView#stateLayout()}), since standard SQL cannot delete some copies of
 *       equal rows; {@link MaintainedView#readSql} gives them back as a bag.
 * </ul>
 *
 * @param dialect how queries and identifiers are written
 * @param merges the form of the merge statements
 */
public record SqlTarget(SqlDialect dialect, Merges merges) {

  /** The form of a target's merge statements and stored state. */
  public enum Merges {
    /** DuckDB's statements. */
    DUCKDB,
    /** Standard SQL {@code MERGE}, the stored rows of a bag counted. */
    STANDARD
  }

  public SqlTarget {
    Objects.requireNonNull(dialect, "dialect");
    Objects.requireNonNull(merges, "merges");
  }

  /** DuckDB: its dialect and its statements. */
  public static SqlTarget duckDb() {
    return new SqlTarget(IvmDuckDbDialect.INSTANCE, Merges.DUCKDB);
  }

  /** An engine with standard SQL {@code MERGE}, queries written in {@code dialect}. */
  public static SqlTarget standard(SqlDialect dialect) {
    return new SqlTarget(dialect, Merges.STANDARD);
  }

  /** Whether the stored rows of a view without aggregate carry their number of copies. */
  public boolean countsBagRows() {
    return merges == Merges.STANDARD;
  }

  /** {@code name} quoted as an identifier of this dialect. */
  public String quote(String name) {
    return dialect.quoteIdentifier(name);
  }

  /** Writes plans as SQL of this dialect. */
  SqlUnparser unparser() {
    return new SqlUnparser(dialect);
  }
}
