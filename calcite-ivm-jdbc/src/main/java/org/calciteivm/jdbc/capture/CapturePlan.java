package org.calciteivm.jdbc.capture;

import com.google.common.collect.ImmutableList;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * How one write to a tracked table is run so that its change is captured atomically with it.
 *
 * <p>The write's rows are first staged in a temporary table of the connection by {@link
 * #stageSql()}, which keeps the user's text (and parameter markers) for everything that decides
 * which rows change and how; {@link #applySql()} then applies the staged change to the base table
 * and appends it, weighted, to the table's delta, and empties the stage. The changed rows are
 * computed once, and the base change is applied from the same rows the delta records.
 *
 * <p>An UPDATE or DELETE first claims the staged rows ({@link RowClaims}): the old values it staged
 * are the rows' values at commit only if no concurrent transaction changes them. Run it inside
 * {@code IvmConnection.capturing}, which says whose transaction claims them.
 *
 * @param tableId the tracked table the write changes
 * @param setupSql creates the stage table if this connection has none yet
 * @param stageSql stages the changed rows; its update count is the write's
 * @param applySql applies the staged rows to the base table and the delta
 * @param claimSql lists the staged rowids ({@link RowClaims#rowidsSql}), or null for a write of new
 *     rows only
 */
public record CapturePlan(
    int tableId,
    ImmutableList<String> setupSql,
    String stageSql,
    ImmutableList<String> applySql,
    @Nullable String claimSql) {

  /** Creates the stage table if needed. */
  public void setUp(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      for (String sql : setupSql) {
        statement.execute(sql);
      }
    }
  }

  /**
   * Claims the staged rows, then applies the staged change; call inside the transaction that staged
   * it.
   *
   * @throws RowClaims.RowConflictException if a concurrent transaction changes some of the rows
   */
  public void apply(Connection connection) throws SQLException {
    if (claimSql != null) {
      RowClaims.claimStaged(connection, tableId, claimSql);
    }
    try (Statement statement = connection.createStatement()) {
      for (String sql : applySql) {
        statement.execute(sql);
      }
    }
  }

  /** Runs the whole plan (stage without parameters); returns the number of rows written. */
  public long run(Connection connection) throws SQLException {
    setUp(connection);
    long rows;
    try (Statement statement = connection.createStatement()) {
      statement.execute(stageSql);
      rows = statement.getLargeUpdateCount();
    }
    apply(connection);
    return rows;
  }
}
