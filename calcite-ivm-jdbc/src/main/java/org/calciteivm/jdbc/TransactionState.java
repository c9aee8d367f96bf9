package org.calciteivm.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.calciteivm.jdbc.IvmDatabase.SqlWork;
import org.calciteivm.jdbc.capture.RowClaims;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The transaction state of one connection: whether a transaction is open (auto-commit off or SQL
 * {@code BEGIN}), the tracked tables it captured changes of (told to the database when it ends,
 * which counts them for refreshes), the rows its captured writes claimed, and the conflict that
 * aborted it. {@link IvmConnection} runs its transaction control and captured writes through it.
 *
 * <p>Captured writes that conflict with a concurrent transaction on the same rows ({@link
 * Conflicts}) are run again, up to {@link Conflicts#MAX_ATTEMPTS} times, when the transaction is
 * the driver's own (auto-commit): nothing of it was applied. Inside a client's transaction they
 * fail with SQLState 40001 and abort the transaction, whose COMMIT then rolls back and fails too.
 */
final class TransactionState {
  private final IvmDatabase database;
  private final Connection duckDb;

  /** Whether a transaction was opened with a SQL {@code BEGIN} and not yet ended. */
  private boolean sqlTransaction;

  /**
   * The writes the open transaction captured, registered with the database's {@link CaptureLedger},
   * which are told when it ends.
   */
  private final List<Write> writesInTransaction = new ArrayList<>();

  /** Per view, where its counted change starts in the auto-commit write running now. */
  private final Map<Integer, List<CaptureLedger.Mark>> countedSince = new HashMap<>();

  /** A write registered with the ledger: to tracked table {@code tableId}, number {@code write}. */
  private record Write(int tableId, long write) {}

  /** The rows the open transaction's captured writes change, claimed against other connections. */
  private final RowClaims.Session claims;

  /**
   * The conflict (or the failed maintenance of an immediate view) that aborted the client's open
   * transaction, or null.
   */
  private @Nullable SQLException abortedBy;

  private final AtomicLong conflictRetries = new AtomicLong();

  TransactionState(IvmDatabase database, Connection duckDb) {
    this.database = database;
    this.duckDb = duckDb;
    this.claims = database.rowClaims().session();
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
   * Runs {@code capture}, a captured write to the tracked table {@code tableId} whose change may
   * insert ({@code inserts}) and delete ({@code deletes}), {@linkplain #atomically atomically}, and
   * tells the database what it captured once the transaction it ran in has ended. The write
   * maintains {@code immediateViews} (by id, with their names), which the transaction holds until
   * it ends ({@link ImmediateViewLocks}), and refreshes {@code maintained}: those views and the
   * views below them.
   *
   * <p>In auto-commit mode a write that conflicts with a concurrent transaction is run again from
   * the start (its transaction was the driver's own, and rolled back), at most {@link
   * Conflicts#MAX_ATTEMPTS} times in all, then fails with SQLState 40001. So {@code capture} must
   * be able to run again: a JDBC batch cannot (DuckDB clears it when it runs), and its conflict
   * fails at once. Inside a client's transaction a conflict fails with SQLState 40001 and aborts
   * the transaction.
   */
  <T> T capturing(
      int tableId,
      boolean inserts,
      boolean deletes,
      Map<Integer, String> immediateViews,
      List<ViewEntry> maintained,
      SqlWork<T> capture,
      SqlWork<?> maintain)
      throws SQLException {
    if (inTransaction()) {
      // the views stay this transaction's until it ends
      database.immediateViewLocks().take(this, immediateViews.keySet(), immediateViews);
      return capturingInTransaction(tableId, inserts, deletes, capture, maintain);
    }
    return Conflicts.retrying(
        attempt -> {
          T result;
          database.immediateViewLocks().take(this, immediateViews.keySet(), immediateViews);
          // read with the views' locks held, before the transaction takes its snapshot: every
          // write they count as ended, the transaction's snapshot sees
          List<List<CaptureLedger.Mark>> before = new ArrayList<>();
          maintained.forEach(view -> before.add(database.captures().marks(view.inputTableIds())));
          // likewise where each view's last refresh left off, which it committed before
          maintained.forEach(
              view -> {
                List<CaptureLedger.Mark> since = database.lastRefreshed(view.id());
                if (since != null) {
                  countedSince.put(view.id(), since);
                }
              });
          Map<Integer, Integer> ours = new HashMap<>();
          try (RowClaims.Scope scope = claims.enter()) {
            result =
                ownTransaction(
                    () -> {
                      T written = capture.run();
                      // registered before the views' refreshes, which count it
                      captured(tableId, CapturedChange.of(inserts, deletes, written));
                      maintain.run();
                      writesInTransaction.forEach(w -> ours.merge(w.tableId(), 1, Integer::sum));
                      return written;
                    });
            maintainedUpTo(maintained, before, ours);
          } finally {
            countedSince.clear();
            database.immediateViewLocks().release(this);
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

  /**
   * Where the change that view {@code viewId} has not consumed starts, for its refresh by the
   * auto-commit write running now, which maintains it: the marks its last refresh in this JVM began
   * from, read before the write's transaction began (that refresh committed before the
   * transaction's snapshot). The writes registered after them, this transaction's included, hold
   * every change the refresh consumes ({@code RefreshExecutor}). Null outside such a write.
   */
  @Nullable List<CaptureLedger.Mark> countedSince(int viewId) {
    return countedSince.get(viewId);
  }

  /**
   * Records that the views {@code maintained} (in a transaction that committed, which wrote {@code
   * ours}: its writes per tracked table) consumed every change up to now, where the only writes to
   * their tables since the marks {@code before} (read before the transaction began, one list per
   * view) were the transaction's own: so a {@code REFRESH} of them right after it has nothing to do
   * and returns at once, as after a refresh of its own ({@link IvmDatabase#refreshed}).
   */
  private void maintainedUpTo(
      List<ViewEntry> maintained,
      List<List<CaptureLedger.Mark>> before,
      Map<Integer, Integer> ours) {
    for (int i = 0; i < maintained.size(); i++) {
      ViewEntry view = maintained.get(i);
      List<CaptureLedger.Mark> now =
          database.captures().marksAfterOnly(view.inputTableIds(), before.get(i), ours);
      if (now != null) {
        database.refreshed(view.id(), now);
      }
    }
  }

  private <T> T capturingInTransaction(
      int tableId, boolean inserts, boolean deletes, SqlWork<T> capture, SqlWork<?> maintain)
      throws SQLException {
    T result;
    try (RowClaims.Scope scope = claims.enter()) {
      result = capture.run();
      captured(tableId, CapturedChange.of(inserts, deletes, result));
      maintain.run();
    } catch (SQLException e) {
      if (!Conflicts.isConflict(e)) {
        // a write that went through without the views it changes must not commit either
        throw e instanceof MaintenanceFailure ? abort(e, e) : e;
      }
      throw abort(e, Conflicts.inTransaction(tableName(tableId), e));
    }
    return result;
  }

  /**
   * Runs {@code work}, a statement of the client's ({@code REFRESH}), in the client's open
   * transaction if there is one: a conflict with a concurrent transaction there aborts the
   * transaction and fails with SQLState 40001, as a captured write's does ({@code what} names the
   * statement in the message). Outside a transaction it just runs {@code work}.
   */
  <T> T inClientTransaction(String what, SqlWork<T> work) throws SQLException {
    if (!inTransaction()) {
      return work.run();
    }
    try {
      return work.run();
    } catch (SQLException e) {
      if (!Conflicts.isConflict(e)) {
        throw e;
      }
      throw abort(e, Conflicts.statementInTransaction(what, e));
    }
  }

  /**
   * Records that this connection wrote rows into the change log of tracked relation {@code tableId}
   * (a refresh of a materialized view other views read), in the open transaction, before it
   * commits: as a captured write whose rows are not counted.
   */
  void changeLogWritten(int tableId) throws SQLException {
    if (!inTransaction()) {
      throw new IllegalStateException("a change log is written inside a refresh's transaction");
    }
    captured(tableId, CapturedChange.UNKNOWN);
  }

  /**
   * Registers a write of the open transaction, which captured {@code change} of tracked table
   * {@code tableId}: before the transaction can commit, so that a refresh whose snapshot sees the
   * change finds it registered ({@link CaptureLedger}).
   */
  private void captured(int tableId, CapturedChange change) {
    writesInTransaction.add(new Write(tableId, database.captures().registered(tableId, change)));
  }

  /** Tells the ledger that the writes of the transaction that just ended have ended. */
  private void writesEnded() {
    for (Write write : writesInTransaction) {
      database.captures().ended(write.tableId(), write.write());
    }
    writesInTransaction.clear();
  }

  /**
   * Aborts the client's open transaction because of {@code cause}, so that its COMMIT fails, and
   * returns {@code failure}, the error to report.
   */
  private SQLException abort(SQLException cause, SQLException failure) {
    abortedBy = cause;
    abortDuckDbTransaction();
    return failure;
  }

  /**
   * Makes DuckDB abort the open transaction, as it does itself after its own conflicts but not
   * after the driver's: then every later statement of the transaction fails until it is rolled
   * back, and nothing of it can commit.
   */
  private void abortDuckDbTransaction() {
    try (Statement statement = duckDb.createStatement()) {
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

  /**
   * A captured write went through but the refresh of an immediate view it changes failed: the write
   * must not commit without it.
   */
  static final class MaintenanceFailure extends SQLException {
    MaintenanceFailure(SQLException cause) {
      super(cause.getMessage(), cause.getSQLState(), cause);
    }
  }

  /** Conflicts of auto-commit writes that this connection ran again, so far. */
  long conflictRetries() {
    return conflictRetries.get();
  }

  /**
   * Records that the open transaction ended: tells the database which tracked tables it captured
   * changes of, and ends its row claims, which are kept if it {@code mayHaveCommitted}.
   */
  private void transactionEnded(boolean mayHaveCommitted) {
    abortedBy = null;
    claims.end(mayHaveCommitted);
    database.immediateViewLocks().release(this);
    writesEnded();
  }

  /** With auto-commit off, a new transaction begins with the next statement. */
  private void nextTransactionMayBegin() throws SQLException {
    if (!duckDb.getAutoCommit()) {
      claims.begin();
    }
  }

  /** Whether a transaction is open, by {@code BEGIN} or by turning auto-commit off. */
  boolean inTransaction() throws SQLException {
    return sqlTransaction || !duckDb.getAutoCommit();
  }

  /**
   * Runs {@code work} in the open transaction, or else in one of its own ({@link #ownTransaction}).
   */
  <T> T atomically(SqlWork<T> work) throws SQLException {
    if (inTransaction()) {
      return work.run();
    }
    return ownTransaction(work);
  }

  /**
   * Runs {@code work} in a transaction of its own that commits when it succeeds and rolls back when
   * it fails.
   */
  private <T> T ownTransaction(SqlWork<T> work) throws SQLException {
    claims.begin();
    boolean commitTried = false;
    // JDBC's own transaction control, not SQL BEGIN: DuckDB's batch execution opens a
    // transaction of its own unless auto-commit is off
    duckDb.setAutoCommit(false);
    try {
      T result = work.run();
      commitTried = true;
      // a commit that fails rolls back
      DuckDbTransactions.commit(duckDb);
      return result;
    } catch (SQLException | RuntimeException | Error e) {
      // an Error too (e.g. an AssertionError from a planner rule): nothing half-done may commit
      if (!commitTried) {
        try {
          DuckDbTransactions.rollback(duckDb);
        } catch (SQLException rollbackFailure) {
          e.addSuppressed(rollbackFailure);
        }
      }
      throw e;
    } finally {
      try {
        duckDb.setAutoCommit(true);
      } finally {
        claims.end(commitTried);
        // its captured writes, and the change logs refreshes in it wrote
        writesEnded();
      }
    }
  }

  /** {@link IvmConnection#commit}: fails with SQLState 40001 if a conflict aborted it. */
  void commit() throws SQLException {
    failCommitIfAborted();
    try {
      DuckDbTransactions.commit(duckDb);
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
    SQLException failure =
        conflict instanceof MaintenanceFailure
            ? new SQLException(
                "the transaction was rolled back, not committed: " + conflict.getMessage(),
                conflict.getSQLState(),
                conflict)
            : Conflicts.commitAfterConflict(conflict);
    try {
      DuckDbTransactions.rollback(duckDb);
    } catch (SQLException rollbackFailure) {
      failure.addSuppressed(rollbackFailure);
    }
    throw failure;
  }

  /** Rolls back the open transaction. */
  void rollback() throws SQLException {
    try {
      DuckDbTransactions.rollback(duckDb);
    } finally {
      sqlTransaction = false;
      transactionEnded(false);
      nextTransactionMayBegin();
    }
  }

  /** {@link IvmConnection#setAutoCommit}: turning it on commits as {@link #commit} does. */
  void setAutoCommit(boolean autoCommit) throws SQLException {
    boolean commits = autoCommit && !duckDb.getAutoCommit();
    if (!autoCommit) {
      // before DuckDB's transaction takes its snapshot, at its first statement
      claims.begin();
    }
    SQLException conflict = commits ? abortedBy : null;
    if (conflict != null) {
      try {
        rollBackAfter(conflict);
      } finally {
        duckDb.setAutoCommit(true);
        transactionEnded(false);
      }
    }
    try {
      DuckDbTransactions.setAutoCommit(duckDb, autoCommit);
    } finally {
      if (commits) {
        transactionEnded(true);
      }
    }
  }

  /** Records that the connection closed: DuckDB rolled back its open transaction. */
  void closed() {
    transactionEnded(false);
  }
}
