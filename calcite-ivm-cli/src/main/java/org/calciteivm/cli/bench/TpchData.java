package org.calciteivm.cli.bench;

import io.trino.tpch.GenerateUtils;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.io.InterruptedIOException;
import java.math.BigDecimal;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.StringJoiner;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBPreparedStatement;
import org.duckdb.QueryProgress;

/**
 * The benchmark's TPC-H data: a DuckDB database file per scale factor and holdout fraction,
 * generated once with the Java port of dbgen ({@code io.trino.tpch}) and reused by later runs.
 *
 * <p>The file holds the eight TPC-H tables with their standard column names; keys are {@code
 * BIGINT}, the other integers ({@code l_linenumber}, {@code p_size}, {@code ps_availqty}, {@code
 * o_shippriority}) {@code INTEGER}, prices, quantities, discounts, taxes and balances {@code
 * DECIMAL(15,2)}, dates {@code DATE} and text, flags included, {@code VARCHAR}, all {@code NOT
 * NULL}. Every table but lineitem has its primary key (lineitem's would be one more index as large
 * as the table, which nothing needs), and every reference of the TPC-H schema is a declared foreign
 * key (nation to region, supplier and customer to nation, partsupp to part and supplier, orders to
 * customer, lineitem to orders and to partsupp), so that calcite-ivm can use them. Rows are stored
 * in key order.
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
 * holdout is a hash of the key and rows are stored in key order whatever the number of generator
 * threads.
 */
public final class TpchData {
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

  /**
   * A TPC-H table: its generator, the key its rows are stored in and its constraints.
   *
   * @param split whether its rows are split between it and its holdout table
   */
  private record Table(TpchTable<?> source, String sortKey, String constraints, boolean split) {
    String name() {
      return source.getTableName();
    }
  }

  /** The tables in the order of their foreign keys, referenced tables first. */
  private static final List<Table> TABLES =
      List.of(
          new Table(TpchTable.REGION, "r_regionkey", "PRIMARY KEY (r_regionkey)", false),
          new Table(
              TpchTable.NATION,
              "n_nationkey",
              "PRIMARY KEY (n_nationkey),"
                  + " FOREIGN KEY (n_regionkey) REFERENCES region (r_regionkey)",
              false),
          new Table(TpchTable.PART, "p_partkey", "PRIMARY KEY (p_partkey)", false),
          new Table(
              TpchTable.SUPPLIER,
              "s_suppkey",
              "PRIMARY KEY (s_suppkey),"
                  + " FOREIGN KEY (s_nationkey) REFERENCES nation (n_nationkey)",
              false),
          new Table(
              TpchTable.PART_SUPPLIER,
              "ps_partkey, ps_suppkey",
              "PRIMARY KEY (ps_partkey, ps_suppkey),"
                  + " FOREIGN KEY (ps_partkey) REFERENCES part (p_partkey),"
                  + " FOREIGN KEY (ps_suppkey) REFERENCES supplier (s_suppkey)",
              false),
          new Table(
              TpchTable.CUSTOMER,
              "c_custkey",
              "PRIMARY KEY (c_custkey),"
                  + " FOREIGN KEY (c_nationkey) REFERENCES nation (n_nationkey)",
              false),
          new Table(
              TpchTable.ORDERS,
              "o_orderkey",
              "PRIMARY KEY (o_orderkey),"
                  + " FOREIGN KEY (o_custkey) REFERENCES customer (c_custkey)",
              true),
          new Table(
              TpchTable.LINE_ITEM,
              "l_orderkey, l_linenumber",
              "FOREIGN KEY (l_orderkey) REFERENCES orders (o_orderkey),"
                  + " FOREIGN KEY (l_partkey, l_suppkey)"
                  + " REFERENCES partsupp (ps_partkey, ps_suppkey)",
              true));

  /** The in-memory database the generators append to, attached to the one being generated. */
  private static final String STAGE = "tpch_stage";

  /** The column of the staged held-out orders that {@value #HOLDOUT_RANK} is computed from. */
  private static final String HOLDOUT_HASH = "holdout_hash";

  private static final long POLL_MILLIS = 200;

  /** Rows a generator thread produces between two updates of the shared progress counter. */
  private static final int PROGRESS_BATCH = 10_000;

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
          new Generation(partial, scaleFactor, holdoutFraction, progress).run();
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
   * tpch-sf1-holdout0.1.duckdb}.
   */
  public static String fileName(double scaleFactor, double holdoutFraction) {
    if (!(scaleFactor > 0) || Double.isInfinite(scaleFactor)) {
      throw new IllegalArgumentException("scale factor must be positive: " + scaleFactor);
    }
    if (!(holdoutFraction >= 0 && holdoutFraction < 1)) {
      throw new IllegalArgumentException("holdout fraction must be in [0, 1): " + holdoutFraction);
    }
    return "tpch-sf" + plain(scaleFactor) + "-holdout" + plain(holdoutFraction) + ".duckdb";
  }

  private static String plain(double value) {
    return BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  /** Whether the order {@code orderKey} is held out at {@code fraction}. */
  static boolean isHeldOut(long orderKey, double fraction) {
    return holdoutHash(orderKey) * 0x1.0p-53 < fraction;
  }

  /**
   * A pseudo-random 53-bit value of an order key, uniform in [0, 2^53): SplitMix64's finalizer,
   * chosen over DuckDB's {@code hash()} because it can never change with a DuckDB version.
   */
  static long holdoutHash(long orderKey) {
    long z = orderKey + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return (z ^ (z >>> 31)) >>> 11;
  }

  /** Waits for a task to end, whatever its outcome, keeping but not obeying interrupts. */
  private static void awaitQuietly(Future<?> future) {
    boolean interrupted = false;
    while (true) {
      try {
        future.get();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (ExecutionException e) {
        break;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** Deletes a DuckDB database file and its write-ahead log, if they exist. */
  private static void deleteDatabase(Path file) throws IOException {
    Files.deleteIfExists(file);
    Files.deleteIfExists(file.resolveSibling(file.getFileName() + ".wal"));
  }

  /**
   * The column definitions of a generated table, in the generator's order; every column is {@code
   * NOT NULL}, as in TPC-H's own schema, which also tells calcite-ivm that no value is null.
   */
  private static String columnDefinitions(TpchTable<?> table) {
    StringJoiner columns = new StringJoiner(", ");
    for (TpchColumn<?> column : table.getColumns()) {
      String type =
          switch (column.getType().getBase()) {
            case IDENTIFIER -> "BIGINT";
            case INTEGER -> "INTEGER";
            case DATE -> "DATE";
            // Every DOUBLE of TPC-H is money, a quantity or a rate with two decimals.
            case DOUBLE -> "DECIMAL(15,2)";
            case VARCHAR -> "VARCHAR";
          };
      columns.add(column.getColumnName() + " " + type + " NOT NULL");
    }
    return columns.toString();
  }

  /** Appends one generated row's columns to the current row of {@code appender}. */
  private static <E extends TpchEntity> void appendColumns(
      DuckDBAppender appender, List<TpchColumn<E>> columns, E row) throws SQLException {
    for (TpchColumn<E> column : columns) {
      switch (column.getType().getBase()) {
        case IDENTIFIER -> appender.append(column.getIdentifier(row));
        case INTEGER -> appender.append(column.getInteger(row));
        case DATE -> appender.appendEpochDays(column.getDate(row));
        // dbgen computes in cents and divides by 100: rounding recovers the cents exactly.
        case DOUBLE -> appender.appendDecimal(Math.round(column.getDouble(row) * 100));
        case VARCHAR -> appender.append(column.getString(row));
      }
    }
  }

  /**
   * One generation of a database file.
   *
   * <p>Appending to tables with primary and foreign keys is slow (DuckDB checks and indexes each
   * appended chunk: at SF 1 the load took twice as long), so generator threads append in parallel
   * to unconstrained tables of an attached in-memory database; each table is then copied in key
   * order into its constrained table with one {@code INSERT ... SELECT} and its staged copy
   * dropped, so memory holds at most one staged table.
   */
  private static final class Generation {
    private final Path file;
    private final double scaleFactor;
    private final double holdoutFraction;
    private final ProgressListener progress;
    private final int threads = Runtime.getRuntime().availableProcessors();
    private final ExecutorService executor;
    private DuckDBConnection connection;

    /** Set when a part of a table failed, to stop the others. */
    private volatile boolean stopped;

    Generation(Path file, double scaleFactor, double holdoutFraction, ProgressListener progress) {
      this.file = file;
      this.scaleFactor = scaleFactor;
      this.holdoutFraction = holdoutFraction;
      this.progress = progress;
      AtomicInteger ids = new AtomicInteger();
      this.executor =
          Executors.newFixedThreadPool(
              threads,
              task -> {
                Thread thread = new Thread(task, "tpch-generator-" + ids.incrementAndGet());
                thread.setDaemon(true);
                return thread;
              });
    }

    void run() throws SQLException, IOException {
      try (DuckDBConnection opened =
              DriverManager.getConnection("jdbc:duckdb:" + file).unwrap(DuckDBConnection.class);
          Statement statement = opened.createStatement()) {
        connection = opened;
        statement.execute("ATTACH ':memory:' AS " + STAGE);
        for (Table table : TABLES) {
          stage(table);
          load(table);
        }
        statement.execute("DETACH " + STAGE);
        execute("ANALYZE", "analyze");
        execute("CHECKPOINT", "checkpoint");
      } finally {
        executor.shutdownNow();
      }
    }

    /** Generates a table into the stage, and its held-out rows into the holdout's stage. */
    private void stage(Table table) throws SQLException, IOException {
      String columns = columnDefinitions(table.source());
      try (Statement statement = connection.createStatement()) {
        statement.execute("CREATE TABLE " + STAGE + "." + table.name() + " (" + columns + ")");
        if (table.split()) {
          statement.execute(
              "CREATE TABLE "
                  + STAGE
                  + ".holdout_"
                  + table.name()
                  + " ("
                  + columns
                  + (table.source() == TpchTable.ORDERS ? ", " + HOLDOUT_HASH + " BIGINT" : "")
                  + ")");
        }
      }
      // region and nation are constants: one generator (dbgen does not split them either).
      int parts = total(table) < 1000 ? 1 : threads;
      AtomicLong done = new AtomicLong();
      String phase = "generate " + table.name();
      progress.progress(phase, 0, total(table));
      // Connections are duplicated here, not in the tasks: DuckDB's driver does not promise that
      // duplicating one connection from several threads at once is safe.
      List<DuckDBConnection> duplicates = new ArrayList<>();
      List<Future<?>> futures = new ArrayList<>();
      try {
        for (int part = 1; part <= parts; part++) {
          DuckDBConnection duplicate = connection.duplicate().unwrap(DuckDBConnection.class);
          duplicates.add(duplicate);
          int thisPart = part;
          futures.add(
              executor.submit(
                  () -> {
                    stagePart(duplicate, table.source(), table.split(), thisPart, parts, done);
                    return null;
                  }));
        }
        for (Future<?> future : futures) {
          await(future, () -> progress.progress(phase, done.get(), total(table)));
        }
      } catch (IOException | SQLException | RuntimeException | Error e) {
        // Stop the other parts before their connections are closed.
        stopped = true;
        futures.forEach(TpchData::awaitQuietly);
        throw e;
      } finally {
        for (DuckDBConnection duplicate : duplicates) {
          duplicate.close();
        }
      }
      progress.progress(phase, total(table), total(table));
    }

    /**
     * Generates part {@code part} of {@code parts} of a table through its own connection; progress
     * counts distinct order keys for the split tables, so that lineitem's total is known.
     */
    private <E extends TpchEntity> void stagePart(
        DuckDBConnection duplicate,
        TpchTable<E> source,
        boolean split,
        int part,
        int parts,
        AtomicLong done)
        throws SQLException {
      List<TpchColumn<E>> columns = source.getColumns();
      TpchColumn<E> orderKeyColumn = columns.get(0); // o_orderkey, l_orderkey
      boolean orders = source == TpchTable.ORDERS;
      String name = source.getTableName();
      try (DuckDBAppender loaded = duplicate.createAppender(STAGE, "main", name);
          DuckDBAppender held =
              split ? duplicate.createAppender(STAGE, "main", "holdout_" + name) : null) {
        long units = 0;
        long previousKey = -1;
        for (E row : source.createGenerator(scaleFactor, part, parts)) {
          long orderKey = split ? orderKeyColumn.getIdentifier(row) : 0;
          DuckDBAppender target = split && isHeldOut(orderKey, holdoutFraction) ? held : loaded;
          target.beginRow();
          appendColumns(target, columns, row);
          if (orders && target == held) {
            target.append(holdoutHash(orderKey));
          }
          target.endRow();
          if (!split || orderKey != previousKey) {
            previousKey = orderKey;
            if (++units == PROGRESS_BATCH) {
              done.addAndGet(units);
              units = 0;
              if (stopped) {
                return; // another part failed
              }
            }
          }
        }
        done.addAndGet(units);
      }
    }

    /** Copies a staged table in key order into its constrained table, and drops the stage. */
    private void load(Table table) throws SQLException, IOException {
      String name = table.name();
      String columns = columnDefinitions(table.source());
      try (Statement statement = connection.createStatement()) {
        statement.execute(
            "CREATE TABLE " + name + " (" + columns + ", " + table.constraints() + ")");
        execute(
            "INSERT INTO "
                + name
                + " SELECT * FROM "
                + STAGE
                + "."
                + name
                + " ORDER BY "
                + table.sortKey(),
            "load " + name);
        statement.execute("DROP TABLE " + STAGE + "." + name);
        if (table.split()) {
          String holdout = "holdout_" + name;
          String staged = STAGE + "." + holdout;
          boolean orders = table.source() == TpchTable.ORDERS;
          statement.execute(
              "CREATE TABLE "
                  + holdout
                  + " ("
                  + columns
                  + (orders ? ", " + HOLDOUT_RANK + " BIGINT NOT NULL" : "")
                  + ")");
          statement.execute(
              "INSERT INTO "
                  + holdout
                  + (orders
                      ? " SELECT * EXCLUDE ("
                          + HOLDOUT_HASH
                          + "), row_number() OVER (ORDER BY "
                          + HOLDOUT_HASH
                          + ", o_orderkey) FROM "
                      : " SELECT * FROM ")
                  + staged
                  + " ORDER BY "
                  + table.sortKey());
          statement.execute("DROP TABLE " + staged);
        }
      }
    }

    /** Executes a statement, reporting DuckDB's progress of it as a percentage. */
    private void execute(String sql, String phase) throws SQLException, IOException {
      progress.progress(phase, 0, 100);
      try (DuckDBPreparedStatement statement =
          connection.prepareStatement(sql).unwrap(DuckDBPreparedStatement.class)) {
        Future<Boolean> future = executor.submit((Callable<Boolean>) statement::execute);
        try {
          await(
              future,
              () -> {
                QueryProgress now = statement.getQueryProgress();
                if (now.getPercentage() >= 0) {
                  progress.progress(phase, Math.round(now.getPercentage()), 100);
                }
              });
        } catch (IOException | SQLException | RuntimeException | Error e) {
          // Interrupted or the listener failed: stop the statement before closing it.
          statement.cancel();
          awaitQuietly(future);
          throw e;
        }
      }
      progress.progress(phase, 100, 100);
    }

    /** Something to do while waiting. */
    private interface Poll {
      void run() throws SQLException;
    }

    /**
     * Waits for a task, polling every {@value #POLL_MILLIS} ms, and rethrows what it threw.
     *
     * @throws InterruptedIOException if the calling thread is interrupted
     */
    private static void await(Future<?> future, Poll poll) throws SQLException, IOException {
      while (true) {
        try {
          future.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
          return;
        } catch (TimeoutException e) {
          poll.run();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("TPC-H generation interrupted");
        } catch (ExecutionException e) {
          Throwable cause = e.getCause();
          if (cause instanceof SQLException sql) {
            throw sql;
          }
          if (cause instanceof RuntimeException runtime) {
            throw runtime;
          }
          if (cause instanceof Error error) {
            throw error;
          }
          throw new IOException(cause);
        }
      }
    }

    /** The progress total of a table: its row count, for the split tables the number of orders. */
    private long total(Table table) {
      return switch (table.name()) {
        case "region" -> 5;
        case "nation" -> 25;
        case "part" -> rows(200_000);
        case "supplier" -> rows(10_000);
        case "partsupp" -> 4 * rows(200_000); // four suppliers per part
        case "customer" -> rows(150_000);
        case "orders", "lineitem" -> rows(1_500_000);
        default -> throw new IllegalArgumentException(table.name());
      };
    }

    private long rows(int scaleBase) {
      return GenerateUtils.calculateRowCount(scaleBase, scaleFactor, 1, 1);
    }
  }
}
