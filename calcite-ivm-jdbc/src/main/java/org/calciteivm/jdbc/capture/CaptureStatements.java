package org.calciteivm.jdbc.capture;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The statements a capture runs itself (they take no parameters; no DDL), prepared once per DuckDB
 * connection and kept for the next write: DuckDB plans a capture's statement in up to a few
 * milliseconds (5 ms for the UPDATE of TPC-H's lineitem in the benchmark, where the statement runs
 * in 30 to 50 ms). A direct write's statement holds the user's text, so it is kept only if short: a
 * long one (a bulk INSERT ... VALUES) is rarely run twice, and would hold its text and plan.
 *
 * <p>A kept statement stays right when the tables it names change: DuckDB binds it again when the
 * catalog changed since (a stage table created again, say), and the text of a capture's statement
 * names every column it relies on, so a change of those columns makes a new text (and plan). DuckDB
 * closes a statement whose execution failed; a closed one is prepared again.
 */
final class CaptureStatements {
  /** Statements kept per connection at most; the least recently used goes first. */
  private static final int MAX_STATEMENTS = 64;

  /** Longer statements are prepared for one execution only. */
  private static final int MAX_KEPT_LENGTH = 4096;

  /** Per connection; guarded by itself. */
  private static final Map<Connection, CaptureStatements> BY_CONNECTION = new WeakHashMap<>();

  private final Connection connection;

  /** By text, least recently used first. */
  private final LinkedHashMap<String, PreparedStatement> statements =
      new LinkedHashMap<>(16, 0.75f, true);

  private CaptureStatements(Connection connection) {
    this.connection = connection;
  }

  /** Reads a query's result. */
  @FunctionalInterface
  interface ResultReader<T> {
    T read(ResultSet resultSet) throws SQLException;
  }

  /** The kept statements of {@code connection}. */
  static CaptureStatements of(Connection connection) throws SQLException {
    synchronized (BY_CONNECTION) {
      CaptureStatements statements = BY_CONNECTION.get(connection);
      if (statements == null) {
        // a kept statement refers to its connection, so the weak key alone would never expire
        for (var it = BY_CONNECTION.keySet().iterator(); it.hasNext(); ) {
          if (it.next().isClosed()) {
            it.remove();
          }
        }
        statements = new CaptureStatements(connection);
        BY_CONNECTION.put(connection, statements);
      }
      return statements;
    }
  }

  /** Runs {@code sql}, a statement without parameters; returns its update count. */
  synchronized long execute(String sql) throws SQLException {
    if (sql.length() > MAX_KEPT_LENGTH) {
      try (Statement statement = connection.createStatement()) {
        statement.execute(sql);
        return statement.getLargeUpdateCount();
      }
    }
    PreparedStatement statement = prepared(sql);
    statement.execute();
    return statement.getLargeUpdateCount();
  }

  /** Runs {@code sql}, a query without parameters, and reads its result with {@code reader}. */
  synchronized <T> T query(String sql, ResultReader<T> reader) throws SQLException {
    try (ResultSet resultSet = prepared(sql).executeQuery()) {
      return reader.read(resultSet);
    }
  }

  private PreparedStatement prepared(String sql) throws SQLException {
    PreparedStatement statement = statements.get(sql);
    if (statement == null || statement.isClosed()) {
      statement = connection.prepareStatement(sql);
      statements.put(sql, statement);
      if (statements.size() > MAX_STATEMENTS) {
        var eldest = statements.entrySet().iterator();
        PreparedStatement evicted = eldest.next().getValue();
        eldest.remove();
        evicted.close();
      }
    }
    return statement;
  }
}
