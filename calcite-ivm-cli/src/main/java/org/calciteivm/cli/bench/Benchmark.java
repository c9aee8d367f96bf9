package org.calciteivm.cli.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.calciteivm.jdbc.RefreshMode;

/**
 * Runs the benchmark: for each view, refresh timing, refresh mode, change kind and change size,
 * applies the change through the calcite-ivm driver, refreshes the view under that {@code
 * ivm_refresh_mode}, reads from {@code ivm_views} what the refresh did and how long its merge took,
 * recomputes the view's query from scratch on the same data, checks that the two agree, and undoes
 * the change; the same change on plain DuckDB gives the baseline of the captured DML.
 *
 * <p>Under the {@link Timing#IMMEDIATE immediate} timing the view is altered to {@code refresh =
 * 'immediate'}: the timed captured write then includes the view's maintenance, and the view is
 * compared with the recompute right after the write, before any {@code REFRESH} could bring it up
 * to date; the timed refresh that follows finds nothing pending (mode {@code none}) unless the
 * write left something undone. The timings run one after the other on the same view, in the order
 * given, each with all its modes.
 *
 * <p>The data is generated once per scale factor ({@link TpchData}) and copied twice per run: one
 * copy is opened through calcite-ivm, the other through DuckDB's own driver. Views are created one
 * at a time, so each refresh and each captured write serves exactly one view. The modes run one
 * after the other on the same view, in the order given, so {@code auto} chooses from the costs the
 * refreshes before it recorded (of its own mode and of the modes run before it). Each mode of each
 * view starts with one unrecorded cycle to warm up the JVM, the compiled refresh programs and
 * DuckDB's caches; so does each timing.
 */
public final class Benchmark {
  /**
   * What to run.
   *
   * @param scaleFactor TPC-H scale factor
   * @param deltaFractions change sizes as fractions of the orders
   * @param kinds kinds of change
   * @param views short names of the views ({@link TpchViews})
   * @param modes the {@code ivm_refresh_mode}s to run each view's cycles under, in this order
   * @param timings the refresh timings to run each view's cycles with, in this order, each with
   *     every mode
   * @param reps recorded repetitions per view, kind and size
   * @param workDir directory for the working copies of the database
   * @param dataDir directory of the generated databases, reused across runs
   */
  public record Options(
      double scaleFactor,
      List<Double> deltaFractions,
      List<ChangeKind> kinds,
      List<String> views,
      List<RefreshMode> modes,
      List<Timing> timings,
      int reps,
      Path workDir,
      Path dataDir) {

    /** How many cycles {@link #run} records. */
    public int cycles() {
      return views.size()
          * timings.size()
          * modes.size()
          * kinds.size()
          * deltaFractions.size()
          * reps;
    }

    /** Copies the lists. */
    public Options {
      deltaFractions = List.copyOf(deltaFractions);
      kinds = List.copyOf(kinds);
      views = List.copyOf(views);
      modes = List.copyOf(modes);
      timings = List.copyOf(timings);
    }
  }

  /** Receives a line of progress or a finished cycle. */
  public interface Listener {
    /** A phase started ({@code "generating TPC-H SF 1"}, {@code "view q3"}). */
    void phase(String description);

    /** A step of data generation. */
    void generating(String table, long done, long total);

    /** A recorded cycle finished. */
    void measured(Measurement measurement);
  }

  private final Options options;
  private final Listener listener;
  private Connection ivm;
  private Connection plain;

  /** A second connection to the calcite-ivm copy (the same DuckDB instance) for memory samples. */
  private Connection sampling;

  private long orders;

  private Benchmark(Options options, Listener listener) {
    this.options = options;
    this.listener = listener;
  }

  /** Runs the benchmark and returns every recorded cycle. */
  public static List<Measurement> run(Options options, Listener listener)
      throws SQLException, IOException {
    return new Benchmark(options, listener).run();
  }

  private List<Measurement> run() throws SQLException, IOException {
    double largest = options.deltaFractions().stream().mapToDouble(d -> d).max().orElse(0.001);
    listener.phase(String.format(Locale.ROOT, "TPC-H data at SF %s", options.scaleFactor()));
    Path data =
        TpchData.ensureDatabase(
            options.dataDir(),
            options.scaleFactor(),
            holdoutFraction(largest),
            listener::generating);
    Files.createDirectories(options.workDir());
    Path ivmCopy = copy(data, options.workDir().resolve("ivm.duckdb"));
    Path plainCopy = copy(data, options.workDir().resolve("plain.duckdb"));
    List<Measurement> measurements = new ArrayList<>();
    try (Connection ivmConnection = DriverManager.getConnection("jdbc:ivm:duckdb:" + ivmCopy);
        Connection samplingConnection = DriverManager.getConnection("jdbc:ivm:duckdb:" + ivmCopy);
        Connection plainConnection = DriverManager.getConnection("jdbc:duckdb:" + plainCopy)) {
      ivm = ivmConnection;
      sampling = samplingConnection;
      plain = plainConnection;
      for (String sql : ChangeKind.SETUP) {
        execute(ivm, sql);
        execute(plain, sql);
      }
      orders = count(ivm, "SELECT count(*) FROM orders");
      for (String view : options.views()) {
        listener.phase("view " + view);
        runView(view, measurements::add);
      }
    } finally {
      Files.deleteIfExists(ivmCopy);
      Files.deleteIfExists(plainCopy);
      Files.deleteIfExists(ivmCopy.resolveSibling(ivmCopy.getFileName() + ".wal"));
      Files.deleteIfExists(plainCopy.resolveSibling(plainCopy.getFileName() + ".wal"));
    }
    return measurements;
  }

  /**
   * The held-out share of the orders: enough for the largest change, at least 1%, and a round
   * value, so that runs with different change sizes share one generated database.
   */
  static double holdoutFraction(double largestDelta) {
    return largestDelta <= 0.01 ? 0.01 : 0.1;
  }

  private void runView(String view, Consumer<Measurement> sink) throws SQLException {
    if (!TpchViews.ALL.containsKey(view)) {
      throw new IllegalArgumentException("unknown view " + view);
    }
    List<String> below = TpchViews.BELOW.getOrDefault(view, List.of());
    for (String read : below) {
      execute(ivm, "CREATE MATERIALIZED VIEW " + read + " AS " + TpchViews.ALL.get(read));
    }
    execute(ivm, "CREATE MATERIALIZED VIEW " + view + " AS " + TpchViews.ALL.get(view));
    // a recompute reads the base tables: views below are inlined
    String query = TpchViews.recomputeQuery(view);
    // the view's rows before any change: every undone cycle must bring it back exactly
    execute(ivm, "CREATE OR REPLACE TABLE bench_initial AS SELECT * FROM " + view);
    try {
      ChangeKind firstKind = options.kinds().get(0);
      double smallest = options.deltaFractions().stream().mapToDouble(d -> d).min().orElseThrow();
      // created deferred: altered only when a timing differs, so a deferred run is as it was
      Timing current = Timing.DEFERRED;
      for (Timing timing : options.timings()) {
        if (timing != current) {
          execute(
              ivm, "ALTER MATERIALIZED VIEW " + view + " SET (refresh = '" + timing.label() + "')");
          current = timing;
        }
        for (RefreshMode mode : options.modes()) {
          List<String> phase = new ArrayList<>(List.of("view " + view));
          if (options.timings().size() > 1) {
            phase.add(timing.label());
          }
          if (options.modes().size() > 1) {
            phase.add(mode.sqlValue());
          }
          if (phase.size() > 1) {
            listener.phase(String.join(", ", phase));
          }
          execute(ivm, "SET ivm_refresh_mode = " + mode.sqlValue());
          cycle(view, query, timing, mode, firstKind, smallest, 0);
          for (ChangeKind kind : options.kinds()) {
            for (double fraction : options.deltaFractions()) {
              for (int rep = 1; rep <= options.reps(); rep++) {
                Measurement m = cycle(view, query, timing, mode, kind, fraction, rep);
                sink.accept(m);
                listener.measured(m);
              }
            }
          }
        }
      }
    } finally {
      execute(ivm, "DROP MATERIALIZED VIEW " + view);
      for (int i = below.size() - 1; i >= 0; i--) {
        execute(ivm, "DROP MATERIALIZED VIEW " + below.get(i));
      }
    }
  }

  private Measurement cycle(
      String view,
      String query,
      Timing timing,
      RefreshMode mode,
      ChangeKind kind,
      double fraction,
      int rep)
      throws SQLException {
    boolean immediate = timing == Timing.IMMEDIATE;
    long n = Math.max(1, Math.round(fraction * orders));
    for (String sql : kind.prepare(n)) {
      execute(ivm, sql);
      execute(plain, sql);
    }
    // read while nothing is pending: ivm_views counts pending rows, which would read the change
    // into DuckDB's caches before the measured refresh
    LastRefresh before = lastRefresh(view);
    long start = System.nanoTime();
    for (String sql : kind.apply(n)) {
      execute(plain, sql);
    }
    double plainMillis = millisSince(start);
    for (String sql : kind.undo(n)) {
      execute(plain, sql);
    }
    long changed = 0;
    start = System.nanoTime();
    for (String sql : kind.apply(n)) {
      changed += update(ivm, sql);
    }
    double capturedMillis = millisSince(start);
    boolean correct = true;
    double recomputeMillis = Double.NaN;
    if (immediate) {
      // the write refreshed the view: its refresh is not the timed one's
      before = lastRefresh(view);
      // checked before the REFRESH, which would bring the view up to date if the write had not
      start = System.nanoTime();
      execute(ivm, "CREATE OR REPLACE TABLE bench_recompute AS " + query);
      recomputeMillis = millisSince(start);
      correct = sameBag(view, "bench_recompute");
    }
    long peak;
    double refreshMillis;
    try (MemorySampler sampler = new MemorySampler(sampling)) {
      // the statement alone: stopping the sampler (its sleep and last query) is not the refresh's
      start = System.nanoTime();
      execute(ivm, "REFRESH MATERIALIZED VIEW " + view);
      refreshMillis = millisSince(start);
      peak = sampler.peak();
    }
    LastRefresh after = lastRefresh(view);
    // a refresh that found nothing pending is not counted, and leaves the last one's statistics
    boolean refreshed = after.count() > before.count();
    start = System.nanoTime();
    execute(ivm, "REFRESH MATERIALIZED VIEW " + view);
    double noopMillis = millisSince(start);
    if (!immediate) {
      start = System.nanoTime();
      execute(ivm, "CREATE OR REPLACE TABLE bench_recompute AS " + query);
      recomputeMillis = millisSince(start);
    }
    correct &= sameBag(view, "bench_recompute");
    for (String sql : kind.undo(n)) {
      execute(ivm, sql);
    }
    execute(ivm, "REFRESH MATERIALIZED VIEW " + view);
    correct &= sameBag(view, "bench_initial");
    return new Measurement(
        view,
        kind.label(),
        fraction,
        mode.sqlValue(),
        timing.label(),
        rep,
        changed,
        capturedMillis,
        plainMillis,
        refreshMillis,
        refreshed ? after.mergeMillis() : 0,
        refreshed ? after.mode() : Measurement.NO_REFRESH,
        recomputeMillis,
        noopMillis,
        peak + usedHeap(),
        correct);
  }

  /**
   * A view's statistics of its last counted refresh in {@code ivm_views}.
   *
   * @param count its counted refreshes so far
   * @param mode what the last one did, {@code incremental} or {@code full}; null before the first
   * @param mergeMillis how long the last one's merge or recompute statements took
   */
  private record LastRefresh(long count, String mode, double mergeMillis) {}

  private LastRefresh lastRefresh(String view) throws SQLException {
    try (PreparedStatement s =
        ivm.prepareStatement(
            "SELECT refresh_count, last_refresh_mode, last_merge_ms FROM ivm_views"
                + " WHERE name = ?")) {
      s.setString(1, view);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("no row of view " + view + " in ivm_views");
        }
        return new LastRefresh(rs.getLong(1), rs.getString(2), rs.getDouble(3));
      }
    }
  }

  /**
   * Whether {@code view} and {@code table} hold the same bag of rows ({@code EXCEPT ALL} both
   * ways). DOUBLE columns (averages) are compared to 9 significant digits: the view maintains a sum
   * and divides it when read, which can differ from DuckDB's own AVG in the last bits.
   */
  private boolean sameBag(String view, String table) throws SQLException {
    List<String> columns = new ArrayList<>();
    try (Statement s = ivm.createStatement();
        ResultSet rs = s.executeQuery("DESCRIBE SELECT * FROM " + view)) {
      while (rs.next()) {
        String name = '"' + rs.getString(1).replace("\"", "\"\"") + '"';
        String type = rs.getString(2);
        columns.add(
            type.equals("DOUBLE") || type.equals("FLOAT")
                ? "CASE WHEN "
                    + name
                    + " = 0 THEN 0 ELSE round("
                    + name
                    + " / pow(10, floor(log10(abs("
                    + name
                    + "))) - 8)) END AS "
                    + name
                : name);
      }
    }
    String select = String.join(", ", columns);
    String a = "(SELECT " + select + " FROM " + view + ")";
    String b = "(SELECT " + select + " FROM " + table + ")";
    return count(ivm, "SELECT count(*) FROM (" + a + " EXCEPT ALL " + b + ")") == 0
        && count(ivm, "SELECT count(*) FROM (" + b + " EXCEPT ALL " + a + ")") == 0;
  }

  /**
   * Samples DuckDB's memory in use from a second connection while a statement runs: DuckDB keeps no
   * peak, so the peak is the largest sample (every 5 ms).
   */
  private static final class MemorySampler implements AutoCloseable {
    private final AtomicLong peak = new AtomicLong();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;

    MemorySampler(Connection sampling) {
      thread =
          new Thread(
              () -> {
                try (Statement s = sampling.createStatement()) {
                  while (running.get()) {
                    try (ResultSet rs =
                        s.executeQuery("SELECT sum(memory_usage_bytes) FROM duckdb_memory()")) {
                      rs.next();
                      peak.accumulateAndGet(rs.getLong(1), Math::max);
                    }
                    Thread.sleep(5);
                  }
                } catch (SQLException | InterruptedException e) {
                  // sampling is best effort: the peak stays the largest value seen
                }
              },
              "bench-memory");
      thread.setDaemon(true);
      thread.start();
    }

    long peak() {
      return peak.get();
    }

    @Override
    public void close() {
      running.set(false);
      try {
        thread.join(1000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  private static long usedHeap() {
    Runtime runtime = Runtime.getRuntime();
    return runtime.totalMemory() - runtime.freeMemory();
  }

  private static Path copy(Path from, Path to) throws IOException {
    return Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
  }

  private static double millisSince(long start) {
    return (System.nanoTime() - start) / 1e6;
  }

  private static void execute(Connection connection, String sql) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute(sql);
    }
  }

  private static long update(Connection connection, String sql) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute(sql);
      return Math.max(0, s.getLargeUpdateCount());
    }
  }

  private static long count(Connection connection, String sql) throws SQLException {
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }
}
