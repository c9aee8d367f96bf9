package org.calciteivm.spark.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.calciteivm.spark.Refresh;
import org.calciteivm.spark.SparkIvm;

/**
 * The benchmark on Spark ({@code bin/calcite-ivm bench --engine spark}): TPC-H in Iceberg tables,
 * the same changes as the DuckDB benchmark (held-out orders inserted, loaded orders deleted, the
 * measures of their lineitems updated, each with all their lineitems), and per view and change the
 * incremental refresh against Spark recomputing the view's query into an Iceberg table. Every
 * refresh is checked against the query ({@code EXCEPT ALL} both ways).
 *
 * <p>The data comes from the DuckDB benchmark's database file ({@code bin/calcite-ivm bench} makes
 * it), exported to Parquet once and loaded into an Iceberg Hadoop catalog kept under {@code
 * ~/.cache/calcite-ivm}. Options: {@code --sf} (1), {@code --views} (q1,q3), {@code --kinds}
 * (insert,delete,update), {@code --fraction} of the orders changed (0.001), {@code --reps} (2),
 * {@code --write-mode} of the base tables' deletes and updates ({@code copy-on-write}, or {@code
 * merge-on-read}: delete files), {@code --out} (a directory for {@code measurements.csv}, {@code
 * summary.md} and the chart of {@link SparkBenchChart}).
 */
public final class SparkBench {
  private static final Map<String, String> VIEWS =
      Map.of(
          "q1",
          "SELECT l_returnflag, l_linestatus, SUM(l_quantity) AS sum_qty,"
              + " SUM(l_extendedprice) AS sum_base_price,"
              + " SUM(l_extendedprice * (1 - l_discount)) AS sum_disc_price,"
              + " SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,"
              + " AVG(l_quantity) AS avg_qty, AVG(l_extendedprice) AS avg_price,"
              + " AVG(l_discount) AS avg_disc, COUNT(*) AS count_order"
              + " FROM bench.tpch.lineitem WHERE l_shipdate <= DATE '1998-09-02'"
              + " GROUP BY l_returnflag, l_linestatus",
          "q3",
          "SELECT l_orderkey, SUM(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate,"
              + " o_shippriority FROM bench.tpch.customer, bench.tpch.orders, bench.tpch.lineitem"
              + " WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey"
              + " AND l_orderkey = o_orderkey AND o_orderdate < DATE '1995-03-15'"
              + " AND l_shipdate > DATE '1995-03-15' GROUP BY l_orderkey, o_orderdate, o_shippriority");

  /**
   * Per kind: the statements that apply a change of the orders ranked {@code :lo} to {@code :hi},
   * and those that undo it. Each repetition changes other orders: Iceberg rewrites the files a
   * delete or update touches, so orders changed and restored before sit in small new files, and
   * changing them again would be cheaper than changing orders spread over the table.
   */
  private static final Map<String, List<List<String>>> KINDS =
      Map.of(
          "insert",
          List.of(
              List.of(
                  "INSERT INTO bench.tpch.orders SELECT * EXCEPT (holdout_rank)"
                      + " FROM bench.tpch.holdout_orders WHERE holdout_rank BETWEEN :lo AND :hi",
                  "INSERT INTO bench.tpch.lineitem SELECT * FROM bench.tpch.holdout_lineitem"
                      + " WHERE l_orderkey IN (SELECT o_orderkey FROM bench.tpch.holdout_orders"
                      + " WHERE holdout_rank BETWEEN :lo AND :hi)"),
              List.of(
                  "DELETE FROM bench.tpch.lineitem WHERE l_orderkey IN (SELECT o_orderkey"
                      + " FROM bench.tpch.holdout_orders WHERE holdout_rank BETWEEN :lo AND :hi)",
                  "DELETE FROM bench.tpch.orders WHERE o_orderkey IN (SELECT o_orderkey"
                      + " FROM bench.tpch.holdout_orders WHERE holdout_rank BETWEEN :lo AND :hi)")),
          "delete",
          List.of(
              List.of(
                  "CREATE OR REPLACE TABLE bench.tpch.deleted_orders USING iceberg AS SELECT *"
                      + " FROM bench.tpch.orders WHERE o_orderkey IN (SELECT o_orderkey"
                      + " FROM bench.tpch.slice WHERE slice_rank BETWEEN :lo AND :hi)",
                  "CREATE OR REPLACE TABLE bench.tpch.deleted_lineitem USING iceberg AS SELECT *"
                      + " FROM bench.tpch.lineitem WHERE l_orderkey IN (SELECT o_orderkey"
                      + " FROM bench.tpch.slice WHERE slice_rank BETWEEN :lo AND :hi)",
                  "DELETE FROM bench.tpch.lineitem WHERE l_orderkey IN (SELECT o_orderkey"
                      + " FROM bench.tpch.slice WHERE slice_rank BETWEEN :lo AND :hi)",
                  "DELETE FROM bench.tpch.orders WHERE o_orderkey IN (SELECT o_orderkey"
                      + " FROM bench.tpch.slice WHERE slice_rank BETWEEN :lo AND :hi)"),
              List.of(
                  "INSERT INTO bench.tpch.orders SELECT * FROM bench.tpch.deleted_orders",
                  "INSERT INTO bench.tpch.lineitem SELECT * FROM bench.tpch.deleted_lineitem")),
          "update",
          List.of(
              List.of(
                  "UPDATE bench.tpch.lineitem SET l_quantity = l_quantity + 1,"
                      + " l_discount = l_discount + 0.01 WHERE l_orderkey IN (SELECT o_orderkey"
                      + " FROM bench.tpch.slice WHERE slice_rank BETWEEN :lo AND :hi)"),
              List.of(
                  "UPDATE bench.tpch.lineitem SET l_quantity = l_quantity - 1,"
                      + " l_discount = l_discount - 0.01 WHERE l_orderkey IN (SELECT o_orderkey"
                      + " FROM bench.tpch.slice WHERE slice_rank BETWEEN :lo AND :hi)")));

  private static final List<String> TABLES =
      List.of("customer", "orders", "lineitem", "holdout_orders", "holdout_lineitem");

  private final SparkSession spark;
  private final SparkIvm ivm;

  private SparkBench(SparkSession spark) {
    this.spark = spark;
    this.ivm = SparkIvm.on(spark);
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> options = new LinkedHashMap<>();
    options.put("--sf", "1");
    options.put("--views", "q1,q3");
    options.put("--kinds", "insert,delete,update");
    options.put("--fraction", "0.001");
    options.put("--reps", "2");
    options.put("--write-mode", "copy-on-write");
    options.put("--out", "bench-results/spark");
    for (int i = 0; i + 1 < args.length; i += 2) {
      if (!options.containsKey(args[i])) {
        System.err.println("unknown option " + args[i] + "; options: " + options.keySet());
        System.exit(2);
      }
      options.put(args[i], args[i + 1]);
    }
    String sf = options.get("--sf");
    Path cache = Path.of(System.getProperty("user.home"), ".cache", "calcite-ivm");
    Path duckdb = cache.resolve("tpch-sf" + sf + "-holdout0.01-v2.duckdb");
    if (!Files.exists(duckdb)) {
      System.err.println(
          "no TPC-H data at "
              + duckdb
              + ": run the DuckDB benchmark once at this scale (bin/calcite-ivm bench --sf "
              + sf
              + ") to generate it");
      System.exit(2);
    }
    SparkSession spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("calcite-ivm bench")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "4")
            .config("spark.driver.memory", "4g")
            .config(
                "spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
            .config("spark.sql.catalog.bench", "org.apache.iceberg.spark.SparkCatalog")
            .config("spark.sql.catalog.bench.type", "hadoop")
            .config(
                "spark.sql.catalog.bench.warehouse",
                cache.resolve("spark-tpch-sf" + sf).toAbsolutePath().toString())
            .getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    try {
      SparkBench bench = new SparkBench(spark);
      bench.load(duckdb);
      String mode = options.get("--write-mode");
      for (String table : List.of("orders", "lineitem")) {
        spark.sql(
            "ALTER TABLE bench.tpch."
                + table
                + " SET TBLPROPERTIES ('write.delete.mode' = '"
                + mode
                + "', 'write.update.mode' = '"
                + mode
                + "', 'write.merge.mode' = '"
                + mode
                + "')");
      }
      long orders = spark.sql("SELECT COUNT(*) FROM bench.tpch.orders").first().getLong(0);
      int n = (int) Math.round(orders * Double.parseDouble(options.get("--fraction")));
      List<String[]> rows = new ArrayList<>();
      for (String view : options.get("--views").split(",")) {
        for (String kind : options.get("--kinds").split(",")) {
          for (int rep = 1; rep <= Integer.parseInt(options.get("--reps")); rep++) {
            rows.add(bench.cycle(view, kind, n, rep));
          }
        }
      }
      write(Path.of(options.get("--out")), sf, n, mode, rows);
    } finally {
      spark.stop();
    }
  }

  /** Loads TPC-H into Iceberg tables from the DuckDB file, once. */
  private void load(Path duckdb) throws SQLException, IOException {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS bench.tpch");
    if (spark.catalog().tableExists("bench.tpch.slice")) {
      return;
    }
    Path parquet = Files.createTempDirectory("calcite-ivm-tpch");
    log("exporting TPC-H from " + duckdb + " to Parquet");
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + duckdb, readOnly());
        Statement s = c.createStatement()) {
      for (String table : TABLES) {
        s.execute(
            "COPY (SELECT * FROM "
                + table
                + ") TO '"
                + parquet.resolve(table + ".parquet")
                + "' (FORMAT parquet)");
      }
    }
    for (String table : TABLES) {
      log("loading " + table + " into Iceberg");
      spark.sql("DROP TABLE IF EXISTS bench.tpch." + table);
      spark.sql(
          "CREATE TABLE bench.tpch."
              + table
              + " USING iceberg TBLPROPERTIES ('format-version' = '2') AS SELECT * FROM parquet.`"
              + parquet.resolve(table + ".parquet")
              + "`");
    }
    // the loaded orders in a pseudo-random order: the ones deleted and updated
    spark.sql(
        "CREATE TABLE bench.tpch.slice USING iceberg AS SELECT o_orderkey, row_number() OVER"
            + " (ORDER BY hash(o_orderkey), o_orderkey) AS slice_rank FROM bench.tpch.orders");
  }

  private static java.util.Properties readOnly() {
    java.util.Properties properties = new java.util.Properties();
    properties.setProperty("duckdb.read_only", "true");
    return properties;
  }

  /**
   * One cycle: the change applied, the view refreshed (timed), the query recomputed into a table
   * (timed), both compared, the change undone and the view refreshed again (not timed).
   */
  private String[] cycle(String view, String kind, int n, int rep) throws SQLException {
    String name = "bench.tpch.v_" + view;
    String recomputed = "bench.tpch.recomputed_" + view;
    String query = VIEWS.get(view);
    if (!spark.catalog().tableExists(name)) {
      ivm.create(name, query);
      spark.sql("CREATE TABLE " + recomputed + " USING iceberg AS " + query);
    }
    List<List<String>> statements = KINDS.get(kind);
    long lo = (long) (rep - 1) * n + 1;
    long hi = (long) rep * n;
    run(statements.get(0), lo, hi);
    Refresh refresh = ivm.refresh(name);
    long start = System.nanoTime();
    spark.sql("INSERT OVERWRITE " + recomputed + " " + query);
    long recompute = (System.nanoTime() - start) / 1_000_000;
    String read = ivm.readSql(name);
    long differences =
        spark.sql("(" + read + ") EXCEPT ALL (" + query + ")").count()
            + spark.sql("(" + query + ") EXCEPT ALL (" + read + ")").count();
    if (differences > 0) {
      log("the view has: " + spark.sql("(" + read + ") EXCEPT ALL (" + query + ")").takeAsList(3));
      log("its query has: " + spark.sql("(" + query + ") EXCEPT ALL (" + read + ")").takeAsList(3));
    }
    run(statements.get(1), lo, hi);
    ivm.refresh(name);
    log(
        String.format(
            Locale.ROOT,
            "%s %s #%d: refresh %d ms (plan %d, changes %d, merge %d), recompute %d ms"
                + " (%.2fx)%s",
            view,
            kind,
            rep,
            refresh.millis(),
            refresh.planMillis(),
            refresh.changesMillis(),
            refresh.mergeMillis(),
            recompute,
            (double) recompute / Math.max(1, refresh.millis()),
            differences == 0 ? "" : ", " + differences + " rows DIFFER"));
    return new String[] {
      view,
      kind,
      String.valueOf(rep),
      String.valueOf(refresh.millis()),
      String.valueOf(recompute),
      String.valueOf(differences == 0)
    };
  }

  private void run(List<String> statements, long lo, long hi) {
    for (String statement : statements) {
      spark.sql(statement.replace(":lo", String.valueOf(lo)).replace(":hi", String.valueOf(hi)));
    }
  }

  private static void write(Path out, String sf, int n, String mode, List<String[]> rows)
      throws IOException {
    Files.createDirectories(out);
    StringBuilder csv =
        new StringBuilder(
            "engine,sf,orders_changed,write_mode,view,kind,rep,refresh_ms,recompute_ms,exact\n");
    for (String[] row : rows) {
      csv.append("spark,").append(sf).append(',').append(n).append(',').append(mode).append(',');
      csv.append(String.join(",", row)).append('\n');
    }
    Files.writeString(out.resolve("measurements.csv"), csv);
    StringBuilder md =
        new StringBuilder("# Spark benchmark (SF ")
            .append(sf)
            .append(", ")
            .append(n)
            .append(" orders changed, ")
            .append(mode)
            .append(", local[2])\n\n")
            .append("| view | change | refresh ms | recompute ms | speedup | exact |\n")
            .append("|---|---|---:|---:|---:|---|\n");
    Map<String, List<String[]>> groups = new LinkedHashMap<>();
    for (String[] row : rows) {
      groups.computeIfAbsent(row[0] + " " + row[1], k -> new ArrayList<>()).add(row);
    }
    for (List<String[]> group : groups.values()) {
      long refresh = median(group, 3);
      long recompute = median(group, 4);
      md.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %d | %d | %.2fx | %s |%n",
              group.get(0)[0],
              group.get(0)[1],
              refresh,
              recompute,
              (double) recompute / Math.max(1, refresh),
              group.stream().allMatch(r -> r[5].equals("true")) ? "yes" : "NO"));
    }
    Files.writeString(out.resolve("summary.md"), md);
    SparkBenchChart.write(out, "Spark SF " + sf + ", " + mode, rows);
    System.out.print(md);
  }

  static long median(List<String[]> rows, int column) {
    long[] values = rows.stream().mapToLong(r -> Long.parseLong(r[column])).sorted().toArray();
    int middle = values.length / 2;
    return values.length % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
  }

  private static void log(String message) {
    System.err.println("bench: " + message);
  }
}
