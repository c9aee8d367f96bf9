package org.calciteivm.jdbc.capture;

import com.google.common.collect.ImmutableList;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * How one write to a tracked table is run so that its change is captured atomically with it, in two
 * forms ({@link CaptureRewriter} makes both): {@link #run} runs the write at once; a prepared
 * statement prepares {@link #stageSql()}, binds its parameters there and runs it between {@link
 * #setUp} and {@link #apply}. Both keep the user's text (and parameter markers) for everything that
 * decides which rows change and how, so the changed rows are computed once, and the delta records
 * exactly the rows the table changed.
 *
 * <p>An UPDATE or DELETE claims the rowids it changes ({@link RowClaims}): the old values it
 * records are the rows' values at commit only if no concurrent transaction changes them. The claims
 * are taken in the write's transaction before it can commit, and a conflict aborts it. Run the plan
 * inside {@code IvmConnection.capturing}, which says whose transaction claims them.
 *
 * @param tableId the tracked table the write changes
 * @param inserts whether its change may have rows of weight +1 (an INSERT, an UPDATE)
 * @param deletes whether its change may have rows of weight -1 (a DELETE, a TRUNCATE, an UPDATE)
 * @param direct the form {@link #run} runs: one statement that changes the table, appends the
 *     change to its delta and lists the changed rowids in a stage table
 * @param prepared the form of a prepared statement, which must not change the table itself: DuckDB
 *     closes a prepared statement whose execution fails, and a write that conflicted is run again
 *     on the same statement. It stages the changed rows, which {@link #apply} then claims and
 *     applies to the table and its delta.
 */
public record CapturePlan(
    int tableId, boolean inserts, boolean deletes, Steps direct, Steps prepared) {

  /**
   * The statements of one form, run in this order in one transaction.
   *
   * @param setupSql creates the stage table if this connection has none yet
   * @param sql the statement with the user's text; its update count is the write's
   * @param claimSql lists the rowids to claim ({@link RowClaims#rowidsSql}), or null for a write of
   *     new rows only
   * @param applySql run after the claims: apply the staged change (if {@code sql} did not) and
   *     empty the stage
   * @param countedApply the index in {@code applySql} of the statement whose update count is the
   *     write's, or -1 for {@code sql}'s: an INSERT whose staged rows are all of the rows it
   *     proposes, of which the apply decides which insert, are skipped ({@code INSERT OR IGNORE},
   *     {@code ON CONFLICT DO NOTHING}) or update a row ({@code OR REPLACE}, {@code DO UPDATE})
   * @param returnsRows whether that apply statement is a query whose rows are the write's result
   *     (its RETURNING clause), run on the caller's statement so that the caller reads them
   */
  public record Steps(
      ImmutableList<String> setupSql,
      String sql,
      @Nullable String claimSql,
      ImmutableList<String> applySql,
      int countedApply,
      boolean returnsRows) {

    /** Steps whose update count is {@code sql}'s. */
    public Steps(
        ImmutableList<String> setupSql,
        String sql,
        @Nullable String claimSql,
        ImmutableList<String> applySql) {
      this(setupSql, sql, claimSql, applySql, -1, false);
    }

    /** Steps whose update count is that of apply statement {@code countedApply}. */
    public Steps(
        ImmutableList<String> setupSql,
        String sql,
        @Nullable String claimSql,
        ImmutableList<String> applySql,
        int countedApply) {
      this(setupSql, sql, claimSql, applySql, countedApply, false);
    }
  }

  /** Whether the write returns rows (RETURNING) instead of an update count. */
  public boolean returnsRows() {
    return prepared.returnsRows();
  }

  /** The statement whose rows a write with RETURNING returns, to describe its columns. */
  public String resultSql() {
    if (!returnsRows()) {
      throw new IllegalStateException("the write returns no rows");
    }
    return prepared.applySql().get(prepared.countedApply());
  }

  /**
   * Whether the prepared form's update count is that of a statement of its apply rather than of its
   * stage statement ({@link Steps#countedApply}).
   */
  public boolean countsApplied() {
    return prepared.countedApply() >= 0;
  }

  /** The statement a prepared statement prepares: it stages the write's rows. */
  public String stageSql() {
    return prepared.sql();
  }

  /** Creates the stage table of the prepared form if needed. */
  public void setUp(Connection connection) throws SQLException {
    setUp(connection, prepared);
  }

  /**
   * Claims the rows {@link #stageSql()} staged, then applies them; call inside the transaction that
   * staged them. Returns the update count of the apply's counted statement ({@link
   * Steps#countedApply}), or -1 if it has none or it returns rows, which it then leaves as {@code
   * results}' result set.
   *
   * @throws RowClaims.RowConflictException if a concurrent transaction changes some of the rows
   */
  public long apply(Connection connection, Statement results) throws SQLException {
    return finish(connection, prepared, results);
  }

  /**
   * Runs the write (without parameters) in its direct form; returns the number of rows written, or
   * -1 if it returns rows, which it then leaves as {@code results}' result set.
   */
  public long run(Connection connection, Statement results) throws SQLException {
    setUp(connection, direct);
    long rows = CaptureStatements.of(connection).execute(direct.sql());
    long applied = finish(connection, direct, results);
    return direct.countedApply() < 0 ? rows : applied;
  }

  /**
   * Creates the stage table of {@code steps}, with a statement of its own each time: DuckDB runs a
   * prepared CREATE TABLE again, after the transaction that created the table rolled back, as one
   * of a table without columns.
   */
  private static void setUp(Connection connection, Steps steps) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      for (String sql : steps.setupSql()) {
        statement.execute(sql);
      }
    }
  }

  private long finish(Connection connection, Steps steps, Statement results) throws SQLException {
    if (steps.claimSql() != null) {
      RowClaims.claimStaged(CaptureStatements.of(connection), tableId, steps.claimSql());
    }
    CaptureStatements statements = CaptureStatements.of(connection);
    long counted = -1;
    for (int i = 0; i < steps.applySql().size(); i++) {
      String sql = steps.applySql().get(i);
      if (i == steps.countedApply() && steps.returnsRows()) {
        // DuckDB's JDBC results are materialized: the stage may be emptied after
        results.execute(sql);
        continue;
      }
      long rows = statements.execute(sql);
      if (i == steps.countedApply()) {
        counted = rows;
      }
    }
    return counted;
  }
}
