package org.calciteivm.cli.bench;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.calciteivm.cli.bench.TpchSchema.Table;
import org.duckdb.DuckDBConnection;

/**
 * The benchmark's TPC-H data: a DuckDB database file per scale factor and holdout fraction,
 * generated once with the Java port of dbgen ({@code io.trino.tpch}) and reused by later runs.
 *
 * <p>The file holds the eight TPC-H tables with their standard column names; keys are {@code
 * BIGINT}, the other integers ({@code l_linenumber}, {@code p_size}, {@code ps_availqty}, {@code
 * o_shippriority}) {@code INTEGER}, prices, quantities, discounts, taxes and balances {@code
 * DECIMAL(15,2)}, dates {@code DATE} and text, flags included, {@code VARCHAR}, all {@code NOT
 * NULL}. Every table has its primary key (lineitem's lets a view of lineitem rows, such as the join
 * view, delete by key), and every reference of the TPC-H schema is a declared foreign key (nation
 * to region, supplier and customer to nation, partsupp to part and supplier, orders to customer,
 * lineitem to orders and to partsupp), so that calcite-ivm can use them. Rows are stored in key
 * order.
 *
 * <p><b>Holdout.</b> A share {@code holdoutFraction} of the orders, chosen by a hash of {@code
 * o_orderkey} and therefore spread over the whole key range, is not loaded into {@code orders} and
 * {@code lineitem} but, with all its lineitems, into {@value #HOLDOUT_ORDERS} and {@value
 * #HOLDOUT_LINEITEM} (the same columns, no constraints). {@value #HOLDOUT_ORDERS} has one more
 * column, {@value #HOLDOUT_RANK} ({@code BIGINT}, 1 to the number of held-out orders), a
 * deterministic pseudo-random order of the held-out orders: the first {@code n} by rank are a
 * sample of any size spread over the key range. The held-out share is close to, not exactly, {@code
 * holdoutFraction} (each order is drawn independently); the held-out orders of a smaller fraction
 * are the first ones by rank of a larger one. With it the benchmark can
 *
 * <ul>
 *   <li>insert new orders <i>between</i> existing keys: the first {@code n} held-out orders by
 *       {@value #HOLDOUT_RANK} and their lineitems (orders first, for the foreign key), as TPC-H's
 *       refresh function RF1 does; deleting the same keys again restores the data (lineitems first,
 *       and not in the same transaction as the orders: DuckDB refuses to delete a key whose
 *       referencing rows were deleted by the same transaction);
 *   <li>insert new orders <i>after</i> every existing key, as an append-only workload: the same
 *       rows with {@code o_orderkey} and {@code l_orderkey} shifted by one offset, at least the
 *       largest order key of {@code orders} and {@value #HOLDOUT_ORDERS}, inserted in key order.
 * </ul>
 *
 * <p>The data depends only on the scale factor and the fraction: dbgen is deterministic, the
 * holdout is a hash of the key ({@link Holdout}) and rows are stored in key order whatever the
 * number of generator threads.
 *
 * <p>This class finds or generates the file; a generation stages the generated rows in memory
 * ({@link TpchStaging}), then loads them into the tables of {@link TpchSchema} ({@link
 * TpchLoading}).
 */
public final class TpchData {
  /** The version of the generated schema, in the file name. */
  private static final String SCHEMA_VERSION = "v2";

  /** The held-out orders, with their rank. */
  public static final String HOLDOUT_ORDERS = "holdout_orders";

  /** The lineitems of the held-out orders. */
  public static final String HOLDOUT_LINEITEM = "holdout_lineitem";

  /** The column of {@value #HOLDOUT_ORDERS} that orders it pseudo-randomly, from 1. */
  public static final String HOLDOUT_RANK = "holdout_rank";

  /**
   * Receives the progress of a generation, always on the thread that called {@link
   * #ensureDatabase}.
   */
  @FunctionalInterface
  public interface ProgressListener {
    /**
     * {@code done} of {@code total} units of {@code phase} are finished. Phases come in this order:
     * {@code generate <table>} for each table (units are rows, for lineitem the orders whose
     * lineitems are generated), each followed by {@code load <table>} (copying it into the table
     * with its constraints; units are percent), then {@code analyze} and {@code checkpoint}.
     */
    void progress(String phase, long done, long total);
  }

  private TpchData() {}

  /**
   * Returns the database of the given scale factor and holdout fraction in {@code dataDir},
   * generating it first if it does not exist yet ({@link #fileName}).
   *
   * <p>The database is written under a temporary name and renamed when complete, so an interrupted
   * generation is never mistaken for a finished one; a lock file next to it keeps two processes
   * from generating the same file at once. Generating uses one thread per processor.
   *
   * @param dataDir directory of the generated databases; created if missing
   * @param scaleFactor TPC-H scale factor, greater than 0 (1 = 1.5 million orders)
   * @param holdoutFraction share of the orders to hold out, in [0, 1)
   * @param progress receives the progress of a generation; not called if the file exists
   * @return the database file, to be opened with {@code jdbc:duckdb:} or {@code jdbc:ivm:duckdb:}
   */
  public static Path ensureDatabase(
      Path dataDir, double scaleFactor, double holdoutFraction, ProgressListener progress)
      throws IOException, SQLException {
    String name = fileName(scaleFactor, holdoutFraction);
    Path file = dataDir.resolve(name);
    if (Files.exists(file)) {
      return file;
    }
    Files.createDirectories(dataDir);
    Path partial = dataDir.resolve(name + ".partial");
    // A FileLock excludes other processes only: threads of this JVM are serialized by the monitor.
    synchronized (TpchData.class) {
      try (FileChannel lockFile =
          FileChannel.open(
              dataDir.resolve(name + ".lock"),
              StandardOpenOption.CREATE,
              StandardOpenOption.WRITE)) {
        lockFile.lock(); // released when the channel closes
        if (Files.exists(file)) {
          return file; // generated meanwhile by another process
        }
        deleteDatabase(partial); // left over by an interrupted generation
        try {
          generate(partial, scaleFactor, holdoutFraction, progress);
          Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
        } finally {
          deleteDatabase(partial);
        }
      }
    }
    return file;
  }

  /**
   * The name of the database file of a scale factor and holdout fraction, such as {@code
   * tpch-sf1-holdout0.1-v2.duckdb}. The version changes with the schema, so that a database
   * generated for another one is not reused (v2: lineitem declares its primary key).
   */
  public static String fileName(double scaleFactor, double holdoutFraction) {
    if (!(scaleFactor > 0) || Double.isInfinite(scaleFactor)) {
      throw new IllegalArgumentException("scale factor must be positive: " + scaleFactor);
    }
    if (!(holdoutFraction >= 0 && holdoutFraction < 1)) {
      throw new IllegalArgumentException("holdout fraction must be in [0, 1): " + holdoutFraction);
    }
    return "tpch-sf"
        + plain(scaleFactor)
        + "-holdout"
        + plain(holdoutFraction)
        + "-"
        + SCHEMA_VERSION
        + ".duckdb";
  }

  private static String plain(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  /**
   * Generates a database file: rows are staged in an attached in-memory database by one generator
   * thread per processor, each table is loaded from there into its constrained table, then the
   * statistics are computed and the file checkpointed.
   */
  private static void generate(
      Path file, double scaleFactor, double holdoutFraction, ProgressListener progress)
      throws SQLException, IOException {
    int threads = Runtime.getRuntime().availableProcessors();
    AtomicInteger ids = new AtomicInteger();
    ExecutorService executor =
        Executors.newFixedThreadPool(
            threads,
            task -> {
              Thread thread = new Thread(task, "tpch-generator-" + ids.incrementAndGet());
              thread.setDaemon(true);
              return thread;
            });
    try (DuckDBConnection connection =
            DriverManager.getConnection("jdbc:duckdb:" + file).unwrap(DuckDBConnection.class);
        Statement statement = connection.createStatement()) {
      TpchStaging staging =
          new TpchStaging(connection, executor, threads, scaleFactor, holdoutFraction, progress);
      TpchLoading loading = new TpchLoading(connection, executor, progress);
      statement.execute("ATTACH ':memory:' AS " + TpchStaging.STAGE);
      for (Table table : TpchSchema.TABLES) {
        staging.stage(table);
        loading.load(table);
      }
      statement.execute("DETACH " + TpchStaging.STAGE);
      loading.execute("ANALYZE", "analyze");
      loading.execute("CHECKPOINT", "checkpoint");
    } finally {
      executor.shutdownNow();
    }
  }

  /** Deletes a DuckDB database file and its write-ahead log, if they exist. */
  private static void deleteDatabase(Path file) throws IOException {
    Files.deleteIfExists(file);
    Files.deleteIfExists(file.resolveSibling(file.getFileName() + ".wal"));
  }
}
