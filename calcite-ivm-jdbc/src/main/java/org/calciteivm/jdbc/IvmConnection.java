package org.calciteivm.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.calciteivm.jdbc.IvmDatabase.SqlWork;
import org.calciteivm.jdbc.capture.CapturePlan;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.ddl.ImmediateRefreshes;
import org.calciteivm.jdbc.delegate.DelegatingConnection;
import org.calciteivm.jdbc.refresh.RefreshStatements;
import org.calciteivm.jdbc.sql.ParsedStatement;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A connection of the calcite-ivm driver: a DuckDB connection whose statements are routed through
 * {@link StatementRouter}, with this connection's settings. Its transaction control and captured
 * writes go through its {@link TransactionState}, which tracks the open transaction, its row claims
 * and the conflicts that abort it.
 */
public final class IvmConnection extends DelegatingConnection {
  private final IvmDatabase database;
  private final TransactionState transaction;
  private final RefreshStatements refreshStatements;
  private IvmSettings settings;

  /** Whether closing this connection gives back its share of the database (a user's does). */
  private final boolean counted;

  /**
   * The writes this connection prepared by SQL {@code PREPARE}, by name: an {@code EXECUTE} of one
   * whose table a view has read since is refused, as the {@code PREPARE} would be now.
   */
  private final Map<String, ParsedStatement.Write> sqlPreparedWrites = new ConcurrentHashMap<>();

  IvmConnection(IvmDatabase database, Connection duckDb, IvmSettings settings) {
    this(database, duckDb, settings, true);
  }

  /**
   * A connection; one not {@code counted} is the driver's own ({@link
   * IvmDatabase#internalConnection}), which does not keep the database open.
   */
  IvmConnection(IvmDatabase database, Connection duckDb, IvmSettings settings, boolean counted) {
    super(duckDb);
    this.counted = counted;
    this.database = database;
    this.settings = settings;
    this.transaction = new TransactionState(database, duckDb);
    this.refreshStatements = new RefreshStatements(duckDb);
  }

  /** The writes this connection prepared by SQL {@code PREPARE}, by lower-case name. */
  public Map<String, ParsedStatement.Write> sqlPreparedWrites() {
    return sqlPreparedWrites;
  }

  /** The shared state of the database this connection is connected to. */
  public IvmDatabase database() {
    return database;
  }

  /** The prepared statements of this connection's refreshes. */
  public RefreshStatements refreshStatements() {
    return refreshStatements;
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

  /** Records that a SQL statement began ({@code open}) or ended a transaction. */
  void sqlTransaction(boolean open) {
    transaction.sqlTransaction(open);
  }

  /**
   * Runs {@code capture}, the captured write {@code plan} plans, {@linkplain #atomically
   * atomically}, followed by the refresh of the immediate views it changes ({@link
   * ImmediateRefreshes}); an auto-commit write that conflicts is run again ({@link
   * TransactionState#capturing}). {@code capture} returns the write's update count or counts.
   */
  public <T> T capturing(CapturePlan plan, SqlWork<T> capture) throws SQLException {
    int tableId = plan.tableId();
    boolean inserts = plan.inserts();
    boolean deletes = plan.deletes();
    CatalogSnapshot catalog = database.catalog();
    List<ViewEntry> immediate = catalog.immediateViewsChangedBy(tableId);
    if (immediate.isEmpty()) {
      return transaction.capturing(
          tableId, inserts, deletes, Map.of(), List.of(), capture, () -> null);
    }
    Map<Integer, String> views = new LinkedHashMap<>();
    immediate.forEach(view -> views.put(view.id(), view.name()));
    String table = catalog.trackedTable(tableId).relation().displayName();
    return transaction.capturing(
        tableId,
        inserts,
        deletes,
        views,
        ImmediateRefreshes.maintained(catalog, immediate),
        capture,
        () -> {
          try {
            ImmediateRefreshes.refresh(this, immediate, table);
          } catch (SQLException e) {
            throw Conflicts.isConflict(e) ? e : new TransactionState.MaintenanceFailure(e);
          }
          return null;
        });
  }

  /**
   * Where the unconsumed change of view {@code viewId} starts for its refresh by the auto-commit
   * write running now on this connection, which maintains it; null outside such a write (see {@link
   * TransactionState#countedSince}).
   */
  public @Nullable List<CaptureLedger.Mark> countedSince(int viewId) {
    return transaction.countedSince(viewId);
  }

  /**
   * Runs {@code work}, the client's statement {@code what}, so that a conflict inside the client's
   * open transaction fails with SQLState 40001 and aborts it ({@link
   * TransactionState#inClientTransaction}).
   */
  <T> T inClientTransaction(String what, SqlWork<T> work) throws SQLException {
    return transaction.inClientTransaction(what, work);
  }

  /** Conflicts of auto-commit writes that this connection ran again, so far. */
  public long conflictRetries() {
    return transaction.conflictRetries();
  }

  /** Whether a transaction is open, by {@code BEGIN} or by turning auto-commit off. */
  public boolean inTransaction() throws SQLException {
    return transaction.inTransaction();
  }

  /**
   * Records that a refresh on this connection wrote rows into the change log of the tracked
   * relation {@code tableId} (see {@link TransactionState#changeLogWritten}).
   */
  public void changeLogWritten(int tableId) throws SQLException {
    transaction.changeLogWritten(tableId);
  }

  /**
   * Runs {@code work} atomically: inside the transaction that is open, or else in a transaction of
   * its own that commits when it succeeds and rolls back when it fails. Inside a user's transaction
   * a failure aborts that transaction, as a failing DuckDB statement does.
   */
  public <T> T atomically(SqlWork<T> work) throws SQLException {
    return transaction.atomically(work);
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
    transaction.commit();
  }

  /**
   * Before a SQL {@code COMMIT}: if a conflict aborted the open transaction, rolls it back and
   * fails with SQLState 40001.
   */
  void failCommitIfAborted() throws SQLException {
    transaction.failCommitIfAborted();
  }

  @Override
  public void rollback() throws SQLException {
    transaction.rollback();
  }

  /**
   * Turns auto-commit on or off. Turning it on commits the open transaction, so after a conflict
   * aborted that transaction it rolls back and fails with SQLState 40001, as {@link #commit} does.
   */
  @Override
  public void setAutoCommit(boolean autoCommit) throws SQLException {
    transaction.setAutoCommit(autoCommit);
  }

  @Override
  public void close() throws SQLException {
    if (delegate.isClosed()) {
      return;
    }
    try {
      refreshStatements.close();
      delegate.close();
    } finally {
      // DuckDB rolls back the open transaction of a closed connection
      transaction.closed();
      if (counted) {
        database.release();
      }
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
