package org.calciteivm.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;
import org.calciteivm.jdbc.capture.CapturePlan;
import org.calciteivm.jdbc.capture.ChangeCapture;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.delegate.DelegatingPreparedStatement;
import org.calciteivm.jdbc.sql.ParsedStatement;
import org.calciteivm.jdbc.sql.ParsedStatement.Other;
import org.calciteivm.jdbc.sql.ParsedStatement.Write;
import org.calciteivm.jdbc.sql.StatementParser;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A prepared statement of a calcite-ivm connection.
 *
 * <p>A write to a tracked table is prepared as its capture plan's stage statement, so parameters
 * bind where the user put them; executing it (or a batch of it) stages the rows and then applies
 * them to the table and its delta in one transaction. Other DuckDB statements are prepared by
 * DuckDB. IVM statements, settings and schema changes take no parameters and run through a plain
 * statement.
 */
final class IvmPreparedStatement extends DelegatingPreparedStatement {
  private final IvmConnection connection;
  private final @Nullable CapturePlan capture;

  /** The write this statement is, or null if it is none. */
  private final @Nullable Write write;

  private final String sql;

  /** The catalog {@link #capture} was planned with. */
  private CatalogSnapshot plannedWith;

  /** Rows written by the last captured {@link #execute}: the stage statement forgets them. */
  private long capturedCount = -1;

  /** Where a captured write's RETURNING rows are read, made at its first execution. */
  private @Nullable Statement results;

  private IvmPreparedStatement(
      IvmConnection connection,
      PreparedStatement duckDb,
      @Nullable CapturePlan capture,
      @Nullable Write write,
      String sql) {
    super(duckDb);
    this.connection = connection;
    this.capture = capture;
    this.write = write;
    this.sql = sql;
    this.plannedWith = connection.database().catalog();
  }

  static PreparedStatement prepare(IvmConnection connection, String sql) throws SQLException {
    ParsedStatement parsed = StatementParser.parse(sql);
    Connection duckDb = connection.duckDb();
    if (parsed instanceof Write write) {
      Optional<CapturePlan> plan =
          ChangeCapture.plan(connection.database().catalog(), connection.database().name(), write);
      if (plan.isPresent()) {
        plan.get().setUp(duckDb);
        return new IvmPreparedStatement(
            connection, duckDb.prepareStatement(plan.get().stageSql()), plan.get(), write, sql);
      }
      return new IvmPreparedStatement(connection, duckDb.prepareStatement(sql), null, write, sql);
    } else if (!(parsed instanceof Other)) {
      return routed(connection, sql);
    }
    return new IvmPreparedStatement(connection, duckDb.prepareStatement(sql), null, null, sql);
  }

  /**
   * Refuses to run a write whose capture would be planned differently now than when it was prepared
   * (a view reading its target was created or dropped since): run as prepared, it would miss
   * changes a view needs, or write a delta table that changed.
   */
  private void checkCaptureIsCurrent() throws SQLException {
    CatalogSnapshot catalog = connection.database().catalog();
    if (write == null || catalog == plannedWith) {
      return;
    }
    CapturePlan current =
        ChangeCapture.plan(catalog, connection.database().name(), write).orElse(null);
    if (!Objects.equals(current, capture)) {
      throw new SQLException(
          "materialized views reading "
              + write.target()
              + " were created or dropped since this statement was prepared, which changes how"
              + " its writes are captured: prepare it again",
          "0A000");
    }
    plannedWith = catalog;
  }

  @Override
  public boolean execute() throws SQLException {
    checkCaptureIsCurrent();
    if (capture == null) {
      return preparedDelegate.execute();
    }
    capturedCount = executeLargeUpdate();
    return capture.returnsRows();
  }

  @Override
  public int getUpdateCount() throws SQLException {
    return capture == null ? preparedDelegate.getUpdateCount() : (int) capturedCount;
  }

  @Override
  public long getLargeUpdateCount() throws SQLException {
    return capture == null ? preparedDelegate.getLargeUpdateCount() : capturedCount;
  }

  @Override
  public ResultSet getResultSet() throws SQLException {
    if (capture == null) {
      return preparedDelegate.getResultSet();
    }
    return capture.returnsRows() && results != null ? results.getResultSet() : null;
  }

  /**
   * The columns of the result: for a captured write with RETURNING, those of the statement that
   * returns its rows (the prepared statement itself only stages them, and has none).
   */
  @Override
  public ResultSetMetaData getMetaData() throws SQLException {
    if (capture == null || !capture.returnsRows()) {
      return super.getMetaData();
    }
    try (PreparedStatement result = connection.duckDb().prepareStatement(capture.resultSql())) {
      return result.getMetaData();
    }
  }

  @Override
  public ResultSet executeQuery() throws SQLException {
    checkCaptureIsCurrent();
    if (capture != null) {
      if (capture.returnsRows()) {
        execute();
        return getResultSet();
      }
      // run as a query, only the stage would run: the write would not be applied
      throw new SQLException(
          "a captured write without RETURNING returns no result set: use executeUpdate or"
              + " execute",
          "0A000");
    }
    return preparedDelegate.executeQuery();
  }

  @Override
  public void close() throws SQLException {
    try {
      if (results != null) {
        results.close();
      }
    } finally {
      super.close();
    }
  }

  /** The statement a captured write leaves its RETURNING rows on. */
  private Statement results() throws SQLException {
    if (results == null) {
      results = connection.duckDb().createStatement();
    }
    return results;
  }

  @Override
  public int executeUpdate() throws SQLException {
    return (int) executeLargeUpdate();
  }

  @Override
  public long executeLargeUpdate() throws SQLException {
    checkCaptureIsCurrent();
    if (capture == null) {
      return preparedDelegate.executeLargeUpdate();
    }
    Connection duckDb = connection.duckDb();
    PreparedStatement stage = preparedDelegate;
    return connection.capturing(
        capture,
        () -> {
          capture.setUp(duckDb);
          stage.execute();
          long rows = stage.getLargeUpdateCount();
          long applied = capture.apply(duckDb, results());
          return capture.countsApplied() ? applied : rows;
        });
  }

  @Override
  public int[] executeBatch() throws SQLException {
    checkCaptureIsCurrent();
    if (capture == null) {
      return delegate.executeBatch();
    }
    Connection duckDb = connection.duckDb();
    return connection.capturing(
        capture,
        () -> {
          capture.setUp(duckDb);
          int[] counts = delegate.executeBatch();
          capture.apply(duckDb, results());
          if (capture.countsApplied()) {
            // the rows each statement of the batch wrote are not known, only their sum
            Arrays.fill(counts, Statement.SUCCESS_NO_INFO);
          }
          return counts;
        });
  }

  @Override
  public long[] executeLargeBatch() throws SQLException {
    // through executeBatch, which captures; DuckDB's own would only fill the capture stage
    return Arrays.stream(executeBatch()).asLongStream().toArray();
  }

  @Override
  public Connection getConnection() {
    return connection;
  }

  /**
   * A prepared statement for a statement without parameters that calcite-ivm runs itself: every
   * {@code execute*} call runs it through an {@link IvmStatement}; setting a parameter fails.
   */
  private static PreparedStatement routed(IvmConnection connection, String sql)
      throws SQLException {
    Statement statement = connection.createStatement();
    return (PreparedStatement)
        Proxy.newProxyInstance(
            IvmPreparedStatement.class.getClassLoader(),
            new Class<?>[] {PreparedStatement.class},
            (proxy, method, args) -> {
              String name = method.getName();
              if (name.startsWith("set") && args != null && args.length >= 2) {
                throw new SQLException("this statement takes no parameters: " + sql, "07001");
              }
              if ((name.startsWith("execute") || name.equals("addBatch"))
                  && (args == null || args.length == 0)) {
                Object[] withSql = {sql};
                method =
                    Statement.class.getMethod(
                        name.equals("addBatch") ? "addBatch" : name, String.class);
                args = withSql;
              }
              if (name.equals("getConnection")) {
                return connection;
              }
              try {
                return method.invoke(statement, args);
              } catch (InvocationTargetException e) {
                throw e.getCause();
              }
            });
  }
}
