package org.calciteivm.jdbc;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.calciteivm.jdbc.capture.RowClaims;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.IvmCatalog;
import org.calciteivm.jdbc.refresh.RefreshProgram;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.duckdb.DuckDBConnection;

/**
 * What every connection of this JVM to one DuckDB database shares: the DuckDB instance, the last
 * committed calcite-ivm catalog and the compiled refresh programs.
 *
 * <p>DuckDB lets only one process open a database file, so this JVM's view of the catalog is the
 * only one; it is replaced after every committed change of the catalog.
 */
public final class IvmDatabase {
  private static final Map<String, IvmDatabase> OPEN = new HashMap<>();

  private final String key;
  private final DuckDBConnection root;
  private int connections;
  private volatile CatalogSnapshot catalog;
  private final Map<Integer, RefreshProgram> programs = new ConcurrentHashMap<>();
  private final ReentrantLock catalogLock = new ReentrantLock();
  private final ReentrantLock refreshLock = new ReentrantLock();

  /** The captured writes to the tracked tables, as this JVM saw them. */
  private final CaptureLedger captures = new CaptureLedger();

  /** The rows captured writes of open and recently ended transactions change. */
  private final RowClaims rowClaims = new RowClaims();

  private final ImmediateViewLocks immediateViewLocks = new ImmediateViewLocks();

  /** Per view, the marks of its base tables read before its last refresh began. */
  private final Map<Integer, List<CaptureLedger.Mark>> refreshedAt = new ConcurrentHashMap<>();

  /** Whether the database is read-only: nothing is scheduled on it. */
  private final boolean readOnly;

  /**
   * DuckDB's name of the database (its catalog: {@code memory}, or the file's name without its
   * extension), by which statements may qualify its tables ({@code shop.t}, {@code shop.main.t}).
   */
  private final String name;

  /** The scheduler of scheduled views, once the catalog has one; null before. */
  private @Nullable RefreshScheduler scheduler;

  private IvmDatabase(String key, DuckDBConnection root) throws SQLException {
    this.key = key;
    this.root = root;
    this.readOnly = IvmCatalog.isReadOnly(root);
    try (Statement s = root.createStatement();
        ResultSet rs = s.executeQuery("SELECT current_database()")) {
      rs.next();
      this.name = rs.getString(1);
    }
    IvmCatalog.open(root);
    this.catalog = IvmCatalog.load(root);
    scheduleIfNeeded();
  }

  /** DuckDB's name of the database, by which statements may qualify its tables. */
  public String name() {
    return name;
  }

  /** Starts the scheduler if the catalog has a scheduled view and none runs yet. */
  private synchronized void scheduleIfNeeded() {
    if (scheduler == null
        && !readOnly
        && catalog.views().stream().anyMatch(view -> view.timing().isScheduled())) {
      scheduler = RefreshScheduler.start(this, key == null ? "in-memory" : key);
    }
  }

  /**
   * A connection of the driver's own to this database, for work of its own (the scheduler's); it
   * does not keep the database open. The caller closes it.
   */
  IvmConnection internalConnection() throws SQLException {
    return new IvmConnection(this, root.duplicate(), IvmSettings.defaults(), false);
  }

  /**
   * Opens a new DuckDB connection to the database at {@code path} (empty for a private in-memory
   * database), sharing the instance with the other connections of this JVM to the same file.
   */
  static synchronized Opened open(String path, Properties duckDbProperties) throws SQLException {
    String key = sharingKey(path);
    IvmDatabase database = key == null ? null : OPEN.get(key);
    if (database == null) {
      Connection connection = DriverManager.getConnection("jdbc:duckdb:" + path, duckDbProperties);
      database = new IvmDatabase(key, connection.unwrap(DuckDBConnection.class));
      if (key != null) {
        OPEN.put(key, database);
      }
    }
    database.connections++;
    return new Opened(database, database.root.duplicate());
  }

  /**
   * The key under which connections to {@code path} share one instance: the absolute file path, or
   * the name of a named in-memory database; null for a private in-memory database.
   */
  private static String sharingKey(String path) {
    if (path.isEmpty() || path.equals(":memory:")) {
      return null;
    }
    if (path.startsWith(":memory:")) {
      return path;
    }
    try {
      return Path.of(path).toAbsolutePath().normalize().toString();
    } catch (InvalidPathException e) {
      return path; // DuckDB reports what is wrong with it
    }
  }

  /** A new DuckDB connection and the database it belongs to. */
  record Opened(IvmDatabase database, Connection connection) {}

  /** Called when a connection closes; closes the DuckDB instance with the last one. */
  synchronized void release() throws SQLException {
    synchronized (IvmDatabase.class) {
      if (--connections == 0) {
        if (key != null) {
          OPEN.remove(key);
        }
        if (scheduler != null) {
          scheduler.stop();
        }
        root.close();
      }
    }
  }

  /**
   * A new DuckDB connection of the driver's own to this database, for work that must not run in a
   * user's connection or transaction (compiling a view's program on first use). The caller closes
   * it.
   */
  public Connection newConnection() throws SQLException {
    return root.duplicate();
  }

  /** The last committed catalog. */
  public CatalogSnapshot catalog() {
    return catalog;
  }

  /**
   * Runs a change of the catalog while no other connection of this JVM changes it, then reloads the
   * catalog from the database. {@code change} commits or rolls back its own transaction.
   */
  public <T> T changeCatalog(SqlWork<T> change) throws SQLException {
    catalogLock.lock();
    try {
      try {
        return change.run();
      } finally {
        catalog = IvmCatalog.load(root);
        scheduleIfNeeded();
      }
    } finally {
      catalogLock.unlock();
    }
  }

  /**
   * Runs a refresh while no other connection of this JVM refreshes. Refreshes seal the change logs
   * they read by updating catalog rows, so two at once would conflict and one would have to start
   * over; taking turns avoids that work.
   */
  public <T> T refreshing(SqlWork<T> refresh) throws SQLException {
    refreshLock.lock();
    try {
      return refresh.run();
    } finally {
      refreshLock.unlock();
    }
  }

  /** The captured writes to this database's tracked tables ({@link CaptureLedger}). */
  public CaptureLedger captures() {
    return captures;
  }

  /**
   * Whether view {@code viewId} was refreshed, in a transaction of its own, and no write to its
   * base tables {@code tableIds} was registered since the marks its refresh began from: then it has
   * consumed every change there is.
   */
  public boolean refreshedSince(int viewId, List<Integer> tableIds) {
    List<CaptureLedger.Mark> last = refreshedAt.get(viewId);
    return last != null && captures.unchangedSince(tableIds, last);
  }

  /**
   * The marks of the base tables of view {@code viewId} read before its last refresh in a
   * transaction of its own began, in the order of its input tables; null if it had none in this
   * JVM. The writes registered after them hold every change the view has not consumed.
   */
  public @Nullable List<CaptureLedger.Mark> lastRefreshed(int viewId) {
    return refreshedAt.get(viewId);
  }

  /**
   * Records that a refresh of view {@code viewId} committed that began after its base tables' marks
   * were {@code marks}.
   */
  public void refreshed(int viewId, List<CaptureLedger.Mark> marks) {
    refreshedAt.put(viewId, List.copyOf(marks));
  }

  /** Which transaction maintains each immediate view ({@link ImmediateViewLocks}). */
  ImmediateViewLocks immediateViewLocks() {
    return immediateViewLocks;
  }

  /** The row claims of the captured writes to this database ({@link RowClaims}). */
  public RowClaims rowClaims() {
    return rowClaims;
  }

  /** The compiled refresh program of view {@code viewId}, or null if not compiled yet. */
  public RefreshProgram cachedProgram(int viewId) {
    return programs.get(viewId);
  }

  /** Caches the program of a view that was just compiled. */
  public void cacheProgram(int viewId, RefreshProgram program) {
    programs.put(viewId, program);
  }

  /** Forgets the compiled program of a dropped view. */
  public void evictProgram(int viewId) {
    programs.remove(viewId);
    refreshedAt.remove(viewId);
  }

  /** A unit of work against the database that may fail with an {@link SQLException}. */
  @FunctionalInterface
  public interface SqlWork<T> {
    /** Does the work. */
    T run() throws SQLException;
  }
}
