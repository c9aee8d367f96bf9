package org.calciteivm.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Transaction control of a DuckDB JDBC connection that stays right after a failed commit.
 *
 * <p>DuckDB's JDBC driver (2.0.0.1) opens a transaction with auto-commit off by running {@code
 * BEGIN} before the first statement, and keeps in a flag of its own whether one is open. A COMMIT
 * that fails (a key another transaction committed first, a conflict found at commit) ends DuckDB's
 * transaction, but the flag stays set: the driver's ROLLBACK then fails ("no transaction is
 * active"), and every later statement with auto-commit off runs without a {@code BEGIN}, so it
 * commits on its own and a rollback undoes nothing. Every commit and rollback of the driver's
 * DuckDB connections goes through here, which ends the transaction on both sides when a commit
 * fails.
 */
public final class DuckDbTransactions {
  private DuckDbTransactions() {}

  /** Commits the open transaction; if that fails, it is ended (rolled back) before this throws. */
  public static void commit(Connection duckDb) throws SQLException {
    try {
      duckDb.commit();
    } catch (SQLException failure) {
      try {
        rollback(duckDb);
      } catch (SQLException rollbackFailure) {
        failure.addSuppressed(rollbackFailure);
      }
      throw failure;
    }
  }

  /**
   * Rolls back the open transaction. If DuckDB had already ended it (its commit failed), the JDBC
   * driver is brought to agree: a transaction is begun and rolled back, which clears its flag.
   */
  public static void rollback(Connection duckDb) throws SQLException {
    try {
      duckDb.rollback();
      return;
    } catch (SQLException failure) {
      if (!endedAlready(failure)) {
        throw failure;
      }
    }
    try (Statement s = duckDb.createStatement()) {
      s.execute("BEGIN TRANSACTION");
    }
    duckDb.rollback();
  }

  /**
   * Turns auto-commit on or off; turning it on commits the open transaction ({@link #commit}), as
   * JDBC requires.
   */
  public static void setAutoCommit(Connection duckDb, boolean autoCommit) throws SQLException {
    if (autoCommit && !duckDb.getAutoCommit()) {
      try {
        commit(duckDb);
      } finally {
        // no transaction is open any more, so this commits nothing
        duckDb.setAutoCommit(true);
      }
      return;
    }
    duckDb.setAutoCommit(autoCommit);
  }

  /** Whether {@code failure} says that no transaction was open to end. */
  private static boolean endedAlready(SQLException failure) {
    String message = failure.getMessage();
    return message != null && message.contains("no transaction is active");
  }
}
