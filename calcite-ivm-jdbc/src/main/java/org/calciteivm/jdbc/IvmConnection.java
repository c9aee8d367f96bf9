package org.calciteivm.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.calciteivm.jdbc.IvmDatabase.SqlWork;
import org.calciteivm.jdbc.capture.RowClaims;
import org.calciteivm.jdbc.delegate.DelegatingConnection;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A connection of the calcite-ivm driver: a DuckDB connection whose statements are routed through
 * {@link StatementRouter}, plus this connection's settings and transaction state.
 *
 * <p>Captured writes that conflict with a concurrent transaction on the same rows ({@link
 * Conflicts}) are run again, up to {@link Conflicts#MAX_ATTEMPTS} times, when the transaction is
 * the driver's own (auto-commit): nothing of it was applied. Inside a client's transaction they
 * fail with SQLState 40001 and abort the transaction, whose COMMIT then rolls back and fails too.
 */
public final class IvmConnection extends DelegatingConnection {
  private final IvmDatabase database;
  private IvmSettings settings;

  /** Whether a transaction was opened with a SQL {@code BEGIN} and not yet ended. */
  private boolean sqlTransaction;

  /** The tracked tables the open transaction captured changes of. */
  private final Set<Integer> capturedInTransaction = new HashSet<>();

  /** The rows the open transaction's captured writes change, claimed against other connections. */
  private final RowClaims.Session claims;

  /** The conflict that aborted the client's open transaction, or null. */
  private @Nullable SQLException abortedBy;

  private final AtomicLong conflictRetries = new AtomicLong();

  IvmConnection(IvmDatabase database, Connection duckDb, IvmSettings settings) {
    super(duckDb);
    this.database = database;
    this.settings = settings;
    this.claims = database.rowClaims().session();
  }

  /** The shared state of the database this connection is connected to. */
  public IvmDatabase database() {
    return database;
  }

  /** The underlying DuckDB connection, for calcite-ivm's own statements. */
  public Connection duckDb() {
    return delegate;
  }

  /** This connection's calcite-ivm settings. */
  public IvmSettings settings() {
    return settings;
  }

  /** Replaces this connection's settings. */
  void settings(IvmSettings settings) {
    this.settings = settings;
  }

  /**
   * Records that a SQL statement began or ended a transaction. ({@code COMMIT} and {@code ROLLBACK}
   * are not told apart here, so the transaction counts as possibly committed.)
   */
  void sqlTransaction(boolean open) {
    this.sqlTransaction = open;
    if (open) {
      // DuckDB takes the transaction's snapshot at its first read, after this
      claims.begin();
    } else {
      transactionEnded(true);
    }
  }

  /**
   * Runs {@code capture}, a captured write to the tracked table {@code tableId}, {@linkplain
   * #atomically atomically}, and tells the database once the transaction it ran in has ended.
   *
   * <p>In auto-commit mode a write that conflicts with a concurrent transaction is run again from
   * the start (its transaction was the driver's own, and rolled back), at most {@link
   * Conflicts#MAX_ATTEMPTS} times in all, then fails with SQLState 40001. So {@code capture} must
   * be able to run again: a JDBC batch cannot (DuckDB clears it when it runs), and its conflict
   * fails at once. Inside a client's transaction a conflict fails with SQLState 40001 and aborts
   * the transaction.
   */
  public <T> T capturing(int tableId, SqlWork<T> capture) throws SQLException {
    if (inTransaction()) {
      return capturingInTransaction(tableId, capture);
    }
    return Conflicts.retrying(
        attempt -> {
          T result;
          try (RowClaims.Scope scope = claims.enter()) {
            result = ownTransaction(capture, () -> database.capturesEnded(List.of(tableId)));
          }
          if (attempt > 1 && result instanceof int[] counts && counts.length == 0) {
            // the first attempt ran the batch, and DuckDB cleared it: this one wrote nothing (not
            // a conflict, so it is not retried)
            throw Conflicts.batch(
                tableName(tableId),
                new SQLException("the batch was cleared by the attempt that conflicted"));
          }
          return result;
        },
        conflictRetries::incrementAndGet,
        (attempts, e) -> Conflicts.autoCommitWrite(tableName(tableId), attempts, e));
  }

  private <T> T capturingInTransaction(int tableId, SqlWork<T> capture) throws SQLException {
    T result;
    try (RowClaims.Scope scope = claims.enter()) {
      result = capture.run();
    } catch (SQLException e) {
      if (!Conflicts.isConflict(e)) {
        throw e;
      }
      abortedBy = e;
      abortDuckDbTransaction();
      throw Conflicts.inTransaction(tableName(tableId), e);
    }
    capturedInTransaction.add(tableId);
    return result;
  }

  /**
   * Makes DuckDB abort the open transaction, as it does itself after its own conflicts but not
   * after the driver's: then every later statement of the transaction fails until it is rolled
   * back, and nothing of it can commit.
   */
  private void abortDuckDbTransaction() {
    try (Statement statement = delegate.createStatement()) {
      statement.execute("SELECT error('calcite-ivm: the transaction conflicted, roll it back')");
    } catch (SQLException expected) {
      // the error is the point
    }
  }

  /** The display name of tracked table {@code tableId}, for messages. */
  private String tableName(int tableId) {
    try {
      return database.catalog().trackedTable(tableId).relation().displayName();
    } catch (IllegalStateException droppedSince) {
      return "table #" + tableId;
    }
  }

  /** Conflicts of auto-commit writes that this connection ran again, so far. */
  public long conflictRetries() {
    return conflictRetries.get();
  }

  /**
   * Records that the open transaction ended: tells the database which tracked tables it captured
   * changes of, and ends its row claims, which are kept if it {@code mayHaveCommitted}.
   */
  private void transactionEnded(boolean mayHaveCommitted) {
    abortedBy = null;
    claims.end(mayHaveCommitted);
    if (!capturedInTransaction.isEmpty()) {
      database.capturesEnded(capturedInTransaction);
      capturedInTransaction.clear();
    }
  }

  /** With auto-commit off, a new transaction begins with the next statement. */
  private void nextTransactionMayBegin() throws SQLException {
    if (!delegate.getAutoCommit()) {
      claims.begin();
    }
  }

  /** Whether a transaction is open, by {@code BEGIN} or by turning auto-commit off. */
  public boolean inTransaction() throws SQLException {
    return sqlTransaction || !delegate.getAutoCommit();
  }

  /**
   * Runs {@code work} atomically: inside the transaction that is open, or else in a transaction of
   * its own that commits when it succeeds and rolls back when it fails. Inside a user's transaction
   * a failure aborts that transaction, as a failing DuckDB statement does.
   */
  public <T> T atomically(SqlWork<T> work) throws SQLException {
    if (inTransaction()) {
      return work.run();
    }
    return ownTransaction(work, () -> {});
  }

  /**
   * Runs {@code work} in a transaction of its own that commits when it succeeds and rolls back when
   * it fails; runs {@code afterCommit} once the transaction ended if it tried to commit (even if
   * the commit failed: DuckDB might have committed).
   */
  private <T> T ownTransaction(SqlWork<T> work, Runnable afterCommit) throws SQLException {
    claims.begin();
    boolean commitTried = false;
    // JDBC's own transaction control, not SQL BEGIN: DuckDB's batch execution opens a
    // transaction of its own unless auto-commit is off
    delegate.setAutoCommit(false);
    try {
      T result = work.run();
      commitTried = true;
      delegate.commit();
      return result;
    } catch (SQLException | RuntimeException | Error e) {
      // an Error too (e.g. an AssertionError from a planner rule): nothing half-done may commit
      try {
        delegate.rollback();
      } catch (SQLException rollbackFailure) {
        e.addSuppressed(rollbackFailure);
      }
      throw e;
    } finally {
      try {
        delegate.setAutoCommit(true);
      } finally {
        claims.end(commitTried);
        if (commitTried) {
          afterCommit.run();
        }
      }
    }
  }

  @Override
  public Statement createStatement() throws SQLException {
    return new IvmStatement(this, delegate.createStatement());
  }

  @Override
  public Statement createStatement(int resultSetType, int resultSetConcurrency)
      throws SQLException {
    return new IvmStatement(this, delegate.createStatement(resultSetType, resultSetConcurrency));
  }

  @Override
  public Statement createStatement(
      int resultSetType, int resultSetConcurrency, int resultSetHoldability) throws SQLException {
    return new IvmStatement(
        this, delegate.createStatement(resultSetType, resultSetConcurrency, resultSetHoldability));
  }

  @Override
  public PreparedStatement prepareStatement(String sql) throws SQLException {
    return IvmPreparedStatement.prepare(this, sql);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int resultSetType, int concurrency)
      throws SQLException {
    return IvmPreparedStatement.prepare(this, sql);
  }

  @Override
  public PreparedStatement prepareStatement(
      String sql, int resultSetType, int concurrency, int holdability) throws SQLException {
    return IvmPreparedStatement.prepare(this, sql);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int autoGeneratedKeys) throws SQLException {
    return IvmPreparedStatement.prepare(this, sql);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, int[] columnIndexes) throws SQLException {
    return IvmPreparedStatement.prepare(this, sql);
  }

  @Override
  public PreparedStatement prepareStatement(String sql, String[] columnNames) throws SQLException {
    return IvmPreparedStatement.prepare(this, sql);
  }

  /**
   * Commits the open transaction. If a conflict aborted it, it is rolled back instead and this
   * fails with SQLState 40001 (DuckDB would report success for the COMMIT of an aborted transaction
   * and roll it back); a conflict at commit fails with SQLState 40001 too.
   */
  @Override
  public void commit() throws SQLException {
    failCommitIfAborted();
    try {
      delegate.commit();
    } catch (SQLException e) {
      throw Conflicts.isConflict(e) ? Conflicts.atCommit(e) : e;
    } finally {
      sqlTransaction = false;
      transactionEnded(true);
      nextTransactionMayBegin();
    }
  }

  /**
   * Before a commit ({@link #commit}, SQL {@code COMMIT}): if a conflict aborted the open
   * transaction, rolls it back and fails with SQLState 40001.
   */
  void failCommitIfAborted() throws SQLException {
    SQLException conflict = abortedBy;
    if (conflict == null) {
      return;
    }
    try {
      rollBackAfter(conflict);
    } finally {
      sqlTransaction = false;
      transactionEnded(false);
      nextTransactionMayBegin();
    }
  }

  /** Rolls back the transaction {@code conflict} aborted, and fails as its commit. */
  private void rollBackAfter(SQLException conflict) throws SQLException {
    SQLException failure = Conflicts.commitAfterConflict(conflict);
    try {
      delegate.rollback();
    } catch (SQLException rollbackFailure) {
      failure.addSuppressed(rollbackFailure);
    }
    throw failure;
  }

  @Override
  public void rollback() throws SQLException {
    try {
      delegate.rollback();
    } finally {
      sqlTransaction = false;
      transactionEnded(false);
      nextTransactionMayBegin();
    }
  }

  /**
   * Turns auto-commit on or off. Turning it on commits the open transaction, so after a conflict
   * aborted that transaction it rolls back and fails with SQLState 40001, as {@link #commit} does.
   */
  @Override
  public void setAutoCommit(boolean autoCommit) throws SQLException {
    boolean commits = autoCommit && !delegate.getAutoCommit();
    if (!autoCommit) {
      // before DuckDB's transaction takes its snapshot, at its first statement
      claims.begin();
    }
    SQLException conflict = commits ? abortedBy : null;
    if (conflict != null) {
      try {
        rollBackAfter(conflict);
      } finally {
        delegate.setAutoCommit(true);
        transactionEnded(false);
      }
    }
    try {
      delegate.setAutoCommit(autoCommit);
    } finally {
      if (commits) {
        transactionEnded(true);
      }
    }
  }

  @Override
  public void close() throws SQLException {
    if (delegate.isClosed()) {
      return;
    }
    try {
      delegate.close();
    } finally {
      // DuckDB rolls back the open transaction of a closed connection
      transactionEnded(false);
      database.release();
    }
  }

  /**
   * Refuses to expose DuckDB's own connection: writes through it (such as its Appender) would
   * bypass change capture. Use a plain {@code jdbc:duckdb:} connection for tables without views.
   */
  @Override
  public <T> T unwrap(Class<T> iface) throws SQLException {
    if (iface.isInstance(this)) {
      return iface.cast(this);
    }
    throw new SQLException(
        "calcite-ivm does not expose "
            + iface.getName()
            + ": writes through DuckDB's own connection (such as its Appender) would not be"
            + " captured");
  }
}
