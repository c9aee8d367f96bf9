package org.calciteivm.jdbc;

import java.sql.SQLException;
import java.util.concurrent.ThreadLocalRandom;
import org.calciteivm.jdbc.capture.RowClaims.RowConflictException;

/**
 * Write-write conflicts, the driver's one policy for them: how they are recognized, how often and
 * after how long a transaction of the driver's own that conflicted is run again ({@link #retrying}:
 * auto-commit captured writes and refreshes), and the errors a client sees.
 *
 * <p>A conflict is DuckDB's ("TransactionContext Error: Conflict on update!", "Conflict on tuple
 * deletion!"), raised by the statement that writes a row a concurrent transaction changed, or the
 * driver's own {@link RowConflictException} for the conflicts DuckDB does not detect. Either way
 * nothing of the failing transaction can commit: DuckDB aborts it, and a COMMIT of an aborted
 * transaction rolls it back. Clients see SQLState {@value #SERIALIZATION_FAILURE}, as for
 * PostgreSQL's serialization failures, and are expected to run the transaction again.
 */
public final class Conflicts {
  private Conflicts() {}

  /** SQLState {@code serialization_failure}: the transaction can succeed if run again. */
  public static final String SERIALIZATION_FAILURE = "40001";

  /** How often the driver runs a transaction of its own that keeps conflicting, in all. */
  static final int MAX_ATTEMPTS = 8;

  /** One attempt of work that may conflict. */
  @FunctionalInterface
  public interface Attempt<T> {
    /** Runs attempt number {@code attempt}, counted from 1. */
    T run(int attempt) throws SQLException;
  }

  /** The failure to report when the last attempt conflicted too. */
  @FunctionalInterface
  public interface Exhausted {
    /** The failure after {@code attempts} attempts, the last of which failed with {@code cause}. */
    SQLException failure(int attempts, SQLException cause);
  }

  /**
   * Runs {@code work} until an attempt does not conflict, {@link #MAX_ATTEMPTS} times at most, with
   * a {@linkplain #backoff random backoff} before each new attempt (after calling {@code
   * beforeRetry}). Each attempt must run in a transaction of its own, which a conflict rolled back:
   * then nothing of it was applied. A failure that is no conflict ends it at once.
   */
  public static <T> T retrying(Attempt<T> work, Runnable beforeRetry, Exhausted exhausted)
      throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        return work.run(attempt);
      } catch (SQLException e) {
        if (!isConflict(e)) {
          throw e;
        }
        if (attempt == MAX_ATTEMPTS) {
          throw exhausted.failure(attempt, e);
        }
        beforeRetry.run();
        backoff(attempt, e);
      }
    }
  }

  /**
   * A refresh that counted its change before its snapshot was taken found that a write to its base
   * tables was registered meanwhile, which the snapshot may see uncounted: it is run again, taking
   * its snapshot before it counts.
   */
  public static final class WriteDuringSnapshot extends SQLException {
    private static final long serialVersionUID = 1L;

    public WriteDuringSnapshot(String view) {
      super(
          "a write to a base table of " + view + " began while its refresh took its snapshot",
          SERIALIZATION_FAILURE);
    }
  }

  /** Whether {@code e} is a write-write conflict with a concurrent transaction. */
  public static boolean isConflict(SQLException e) {
    if (e instanceof RowConflictException || e instanceof WriteDuringSnapshot) {
      return true;
    }
    String message = String.valueOf(e.getMessage());
    return message.contains("TransactionContext Error")
        && (message.contains("Conflict on") || message.contains("write-write conflict"));
  }

  /**
   * Sleeps before attempt {@code attempt + 1} of a write that conflicted: a random time that grows
   * with the attempts, so that writers that conflicted with each other do not meet again.
   */
  private static void backoff(int attempt, SQLException cause) throws SQLException {
    if (cause instanceof WriteDuringSnapshot) {
      return; // no other transaction to stay clear of
    }
    long bound = Math.min(50, 1L << attempt);
    try {
      Thread.sleep(1 + ThreadLocalRandom.current().nextLong(bound));
    } catch (InterruptedException interrupted) {
      Thread.currentThread().interrupt();
      throw cause;
    }
  }

  /** An auto-commit write to {@code table} still conflicted after {@code attempts} attempts. */
  static SQLException autoCommitWrite(String table, int attempts, SQLException cause) {
    return failure(
        "this write to "
            + table
            + " conflicted with concurrent transactions that changed the same rows ("
            + attempts
            + (attempts == 1 ? " attempt" : " attempts")
            + "): its transaction was rolled back and nothing of it was applied; it can be retried",
        cause);
  }

  /**
   * A write to {@code table} in a JDBC batch conflicted: its transaction was rolled back, and the
   * batch cannot run again because DuckDB cleared it when it ran.
   */
  static SQLException batch(String table, SQLException cause) {
    return failure(
        "this batch of writes to "
            + table
            + " conflicted with a concurrent transaction that changed the same rows: its"
            + " transaction was rolled back and nothing of it was applied; add its rows again and"
            + " retry it",
        cause);
  }

  /** A write to {@code table} inside a client's transaction conflicted; the transaction aborted. */
  static SQLException inTransaction(String table, SQLException cause) {
    return failure(
        "this write to "
            + table
            + " conflicted with a concurrent transaction that changed the same rows: the"
            + " transaction is aborted and nothing of it will be applied; roll it back and retry the"
            + " whole transaction",
        cause);
  }

  /**
   * A statement inside a client's transaction ({@code what}, such as a refresh) conflicted; the
   * transaction aborted.
   */
  static SQLException statementInTransaction(String what, SQLException cause) {
    return failure(
        what
            + " conflicted with a concurrent transaction that changed the same rows (such as"
            + " another refresh of a view reading the same tables): the transaction is aborted and"
            + " nothing of it will be applied; roll it back and retry the whole transaction",
        cause);
  }

  /** COMMIT of a transaction that a conflict aborted: it was rolled back instead. */
  static SQLException commitAfterConflict(SQLException cause) {
    return failure(
        "the transaction was rolled back, not committed: a write in it conflicted with a"
            + " concurrent transaction that changed the same rows, so nothing of it was applied;"
            + " it can be retried",
        cause);
  }

  /** COMMIT itself conflicted with a concurrent transaction. */
  static SQLException atCommit(SQLException cause) {
    return failure(
        "the transaction conflicted at commit with a concurrent transaction that changed the same"
            + " rows: it was rolled back and nothing of it was applied; it can be retried",
        cause);
  }

  private static SQLException failure(String message, SQLException cause) {
    return new SQLException(message, SERIALIZATION_FAILURE, cause);
  }
}
