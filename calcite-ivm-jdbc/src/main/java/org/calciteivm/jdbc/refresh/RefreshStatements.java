package org.calciteivm.jdbc.refresh;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;

/**
 * The prepared statements of one connection's refreshes, each prepared once and reused: DuckDB
 * keeps a prepared statement's plan, so a refresh that runs the same statements as the last one
 * does not parse, bind and plan them again (a few tenths of a millisecond each, most of a small
 * refresh's cost beside its merge). Statements are keyed by their text, which names the view and
 * tables they touch; varying values are parameters.
 *
 * <p>All are closed when the catalog changes (a view or table they name may be gone) and when the
 * connection closes. DuckDB closes a statement that failed; such a one is prepared again.
 */
public final class RefreshStatements implements AutoCloseable {
  private final Connection duckDb;
  private final Map<String, PreparedStatement> statements = new HashMap<>();
  private Object catalogVersion;

  /** The statements of refreshes on {@code duckDb}. */
  public RefreshStatements(Connection duckDb) {
    this.duckDb = duckDb;
  }

  /**
   * The prepared statement of {@code sql}, prepared now if it is not at hand, or if the catalog is
   * no longer {@code catalogVersion} (any object that is replaced when the catalog changes).
   */
  PreparedStatement prepared(String sql, Object catalogVersion) throws SQLException {
    if (this.catalogVersion != catalogVersion) {
      close();
      this.catalogVersion = catalogVersion;
    }
    PreparedStatement statement = statements.get(sql);
    if (statement == null || statement.isClosed()) {
      statement = duckDb.prepareStatement(sql);
      statements.put(sql, statement);
    }
    return statement;
  }

  /** Closes every statement. */
  @Override
  public void close() throws SQLException {
    SQLException failure = null;
    for (PreparedStatement statement : statements.values()) {
      try {
        statement.close();
      } catch (SQLException e) {
        if (failure == null) {
          failure = e;
        } else {
          failure.addSuppressed(e);
        }
      }
    }
    statements.clear();
    if (failure != null) {
      throw failure;
    }
  }
}
