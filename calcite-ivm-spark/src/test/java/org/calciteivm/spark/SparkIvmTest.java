package org.calciteivm.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.calciteivm.core.UnsupportedViewException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Views over Iceberg tables maintained by Spark, checked against Spark's own result of the view's
 * query after every refresh, as bags, under random inserts, deletes and updates of both sides of
 * joins (duplicates, NULLs, groups that empty); and what a refresh does when it cannot run. Spark
 * runs in-process ({@code local[2]}, one session for the suite), Iceberg's Hadoop catalog in a
 * temporary directory. {@code -Divm.seed} replays a run.
 */
class SparkIvmTest {
  /** Refreshes per view in the differential test ({@code -Divm.spark.steps}). */
  private static final int STEPS = Integer.getInteger("ivm.spark.steps", 4);

  @TempDir static Path warehouse;

  private static SparkSession spark;
  private static SparkIvm ivm;

  @BeforeAll
  static void startSpark() {
    spark =
        SparkSession.builder()
            .master("local[2]")
            .appName("calcite-ivm")
            .config("spark.ui.enabled", "false")
            .config("spark.sql.shuffle.partitions", "2")
            .config(
                "spark.sql.extensions",
                "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions")
            .config("spark.sql.catalog.lake", "org.apache.iceberg.spark.SparkCatalog")
            .config("spark.sql.catalog.lake.type", "hadoop")
            .config("spark.sql.catalog.lake.warehouse", warehouse.toString())
            .getOrCreate();
    spark.sparkContext().setLogLevel("ERROR");
    ivm = SparkIvm.on(spark);
  }

  @AfterAll
  static void stopSpark() {
    spark.stop();
  }

  @BeforeEach
  void createTables() {
    spark.sql("CREATE NAMESPACE IF NOT EXISTS lake.db");
    for (Row table : spark.sql("SHOW TABLES IN lake.db").collectAsList()) {
      spark.sql("DROP TABLE lake.db." + table.getString(1));
    }
    spark.sql("CREATE TABLE lake.db.r (a INT, b STRING, c DECIMAL(10,2), d DOUBLE) USING iceberg");
    spark.sql("CREATE TABLE lake.db.s (a INT, e STRING) USING iceberg");
    spark.sql("CREATE TABLE lake.db.u (e STRING, f INT) USING iceberg");
  }

  /**
   * Runs with the base tables writing deletes copy-on-write (their change read from Iceberg's
   * changelog) and merge-on-read (read from the files each snapshot added).
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"copy-on-write", "merge-on-read"})
  void viewsEqualTheirQueryAfterEveryRefresh(String writeMode) throws Exception {
    for (String table : List.of("r", "s", "u")) {
      spark.sql(
          "ALTER TABLE lake.db."
              + table
              + " SET TBLPROPERTIES ('write.delete.mode' = '"
              + writeMode
              + "', 'write.update.mode' = '"
              + writeMode
              + "', 'write.merge.mode' = '"
              + writeMode
              + "')");
    }
    List<String> views =
        List.of(
            "SELECT b, c, a + 1 AS a1 FROM lake.db.r WHERE a >= 2 OR a IS NULL",
            "SELECT b, SUM(c) AS sc, COUNT(*) AS n, AVG(d) AS ad, SUM(d) AS sd, AVG(c) AS ac"
                + " FROM lake.db.r"
                + " GROUP BY b"
                + " HAVING COUNT(*) > 1",
            "SELECT r.b, s.e, u.f FROM lake.db.r AS r JOIN lake.db.s AS s ON r.a = s.a"
                + " JOIN lake.db.u AS u ON s.e = u.e",
            "SELECT s.e, SUM(r.c) AS sc, COUNT(*) AS n FROM lake.db.r AS r JOIN lake.db.s AS s"
                + " ON r.a = s.a GROUP BY s.e",
            "SELECT b, MIN(c) AS lo, MAX(a) AS hi, COUNT(*) AS n FROM lake.db.r GROUP BY b",
            "SELECT DISTINCT r.b, s.e FROM lake.db.r AS r LEFT JOIN lake.db.s AS s ON r.a = s.a");
    long seed = Long.getLong("ivm.seed", System.nanoTime());
    Random random = new Random(seed);
    spark.sql("INSERT INTO lake.db.s VALUES (1, 'w'), (2, 'x'), (2, 'x'), (NULL, 'y')");
    spark.sql("INSERT INTO lake.db.u VALUES ('w', 1), ('x', 2), ('x', 3), (NULL, 4)");
    change(random, 8);
    for (int i = 0; i < views.size(); i++) {
      ivm.create("lake.db.v" + i, views.get(i));
    }
    for (int step = 0; step < STEPS; step++) {
      change(random, 3);
      for (int i = 0; i < views.size(); i++) {
        Refresh refresh = ivm.refresh("lake.db.v" + i);
        assertThat(rows(ivm.readSql("lake.db.v" + i)))
            .as(
                "view %s after step %d (%s), seed %d (-Divm.seed=%d)",
                views.get(i), step, refresh, seed, seed)
            .isEqualTo(rows(views.get(i)));
      }
    }
    // nothing pending: nothing to do
    assertThat(ivm.refresh("lake.db.v0").changedTables()).isEmpty();
  }

  @Test
  void aSnapshotTheViewNeedsMustNotHaveExpired() throws Exception {
    spark.sql("INSERT INTO lake.db.r VALUES (1, 'x', 1.00, 1.0)");
    ivm.create("lake.db.totals", "SELECT b, COUNT(*) AS n FROM lake.db.r GROUP BY b");
    spark.sql("INSERT INTO lake.db.r VALUES (2, 'y', 2.00, 2.0)");
    spark.sql("INSERT INTO lake.db.r VALUES (3, 'y', 3.00, 3.0)");
    spark.sql(
        "CALL lake.system.expire_snapshots(table => 'db.r', older_than => TIMESTAMP '9999-12-31"
            + " 00:00:00', retain_last => 1)");
    assertThat(ivm.explain("lake.db.totals")).contains("(pending)");
    assertThatThrownBy(() -> ivm.refresh("lake.db.totals"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("of table lake.db.r, which view lake.db.totals holds, is no longer")
        .hasMessageContaining("refreshFull");
    ivm.refreshFull("lake.db.totals");
    assertThat(rows(ivm.readSql("lake.db.totals")))
        .isEqualTo(rows("SELECT b, COUNT(*) AS n FROM lake.db.r GROUP BY b"));
    spark.sql("DELETE FROM lake.db.r WHERE a = 2");
    ivm.refresh("lake.db.totals");
    assertThat(rows(ivm.readSql("lake.db.totals")))
        .isEqualTo(rows("SELECT b, COUNT(*) AS n FROM lake.db.r GROUP BY b"));
    assertThat(ivm.explain("lake.db.totals")).contains("up to date");
    // a view whose base table is gone can still be dropped
    spark.sql("DROP TABLE lake.db.r");
    ivm.drop("lake.db.totals");
    assertThat(spark.catalog().tableExists("lake.db.totals")).isFalse();
  }

  @Test
  void aFailedRefreshLeavesTheViewAndItsWatermarks() throws Exception {
    String query = "SELECT a, CAST(b AS INT) AS n FROM lake.db.r";
    spark.sql("INSERT INTO lake.db.r VALUES (1, '10', 1.00, 1.0)");
    ivm.create("lake.db.casts", query);
    long stored = snapshotOf("lake.db.casts");
    String explained = ivm.explain("lake.db.casts");
    // a value the view cannot compute: Spark's ANSI mode fails the cast
    spark.sql("INSERT INTO lake.db.r VALUES (2, 'x', 2.00, 2.0), (3, '30', 3.00, 3.0)");
    assertThatThrownBy(() -> ivm.refresh("lake.db.casts"))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("writing view lake.db.casts failed, nothing was committed")
        .hasMessageContaining("'x'");
    assertThat(snapshotOf("lake.db.casts")).isEqualTo(stored);
    assertThat(ivm.explain("lake.db.casts"))
        .startsWith(explained.substring(0, explained.indexOf("table ")))
        .contains("(pending)");
    assertThat(rows(ivm.readSql("lake.db.casts"))).containsExactly("[1, 10]");
    // once the data is fixed, a full refresh brings the view up to date
    spark.sql("UPDATE lake.db.r SET b = '20' WHERE a = 2");
    ivm.refreshFull("lake.db.casts");
    assertThat(rows(ivm.readSql("lake.db.casts"))).isEqualTo(rows(query));
    spark.sql("INSERT INTO lake.db.r VALUES (4, '40', 4.00, 4.0)");
    ivm.refresh("lake.db.casts");
    assertThat(rows(ivm.readSql("lake.db.casts"))).isEqualTo(rows(query));
  }

  @Test
  void aWriterCommittingDuringARefreshIsPickedUpByTheNextOne() throws Exception {
    String query = "SELECT r.b, s.e FROM lake.db.r AS r JOIN lake.db.s AS s ON r.a = s.a";
    spark.sql("INSERT INTO lake.db.r VALUES (1, 'x', 1.00, 1.0)");
    spark.sql("INSERT INTO lake.db.s VALUES (1, 'p')");
    ivm.create("lake.db.pairs", query);
    spark.sql("INSERT INTO lake.db.r VALUES (1, 'y', 2.00, 2.0)");
    List<String> beforeTheWriter = rows(query);
    ivm.beforeMerge(
        () -> {
          spark.sql("INSERT INTO lake.db.s VALUES (1, 'q')");
          spark.sql("DELETE FROM lake.db.r WHERE b = 'x'");
        });
    try {
      ivm.refresh("lake.db.pairs");
    } finally {
      ivm.beforeMerge(() -> {});
    }
    // the refresh read r and s at the snapshots whose changes it consumed
    assertThat(rows(ivm.readSql("lake.db.pairs"))).isEqualTo(beforeTheWriter);
    assertThat(ivm.explain("lake.db.pairs")).contains("(pending)");
    ivm.refresh("lake.db.pairs");
    assertThat(rows(ivm.readSql("lake.db.pairs"))).isEqualTo(rows(query));
  }

  @Test
  void theExampleScriptRuns() throws Exception {
    // docs/spark-example.sql, which bin/calcite-ivm spark runs
    new SparkScript(spark)
        .run(java.nio.file.Files.readString(Path.of("../docs/spark-example.sql")));
    assertThat(rows("SELECT * FROM totals"))
        .containsExactly("[ann, 16, 2]", "[cid, 7.25, 1]")
        .isEqualTo(
            rows(
                "SELECT customer, SUM(amount) AS total, COUNT(*) AS n FROM lake.shop.orders"
                    + " GROUP BY customer"));
    assertThat(SparkScript.statements("SELECT ';' AS x; -- a ; comment\nSELECT 2"))
        .containsExactly("SELECT ';' AS x", "SELECT 2");
  }

  @Test
  void whatCannotBeMaintainedIsRefusedClearly() {
    spark.sql("INSERT INTO lake.db.r VALUES (1, 'x', 1.00, 1.0)");
    assertThatThrownBy(
            () -> ivm.create("lake.db.top", "SELECT a FROM lake.db.r ORDER BY a LIMIT 3"))
        .isInstanceOf(UnsupportedViewException.class)
        .hasMessageContaining("LIMIT");
    assertThatThrownBy(() -> ivm.create("lake.db.empty", "SELECT a, e FROM lake.db.s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("lake.db.s has no snapshot yet");
    assertThatThrownBy(() -> ivm.refresh("lake.db.r"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a materialized view");
  }

  @Test
  void filesRewrittenWhileDeleteFilesAreInUseAreRecomputed() throws Exception {
    spark.sql(
        "ALTER TABLE lake.db.r SET TBLPROPERTIES ('write.delete.mode' = 'merge-on-read',"
            + " 'write.update.mode' = 'merge-on-read')");
    spark.sql("INSERT INTO lake.db.r VALUES (1, 'x', 1.00, 1.0), (2, 'y', 2.00, 2.0)");
    spark.sql("INSERT INTO lake.db.r VALUES (3, 'y', 3.00, 3.0), (3, 'y', 3.00, 3.0)");
    String query = "SELECT b, COUNT(*) AS n, SUM(c) AS sc FROM lake.db.r GROUP BY b";
    ivm.create("lake.db.totals", query);
    spark.sql("DELETE FROM lake.db.r WHERE a = 2");
    Refresh positions = ivm.refresh("lake.db.totals");
    assertThat(positions.full()).isFalse();
    assertThat(rows(ivm.readSql("lake.db.totals"))).isEqualTo(rows(query));
    // a compaction rewrites the files the delete files point into: the view is recomputed
    spark.sql("UPDATE lake.db.r SET c = c + 1 WHERE a = 3");
    spark.sql(
        "CALL lake.system.rewrite_data_files(table => 'db.r', options => map('min-input-files',"
            + " '1', 'delete-file-threshold', '1'))");
    spark.sql("DELETE FROM lake.db.r WHERE a = 1");
    Refresh rewritten = ivm.refresh("lake.db.totals");
    assertThat(rewritten.full()).isTrue();
    assertThat(rows(ivm.readSql("lake.db.totals"))).isEqualTo(rows(query));
    spark.sql("INSERT INTO lake.db.r VALUES (4, 'z', 4.00, 4.0)");
    spark.sql("DELETE FROM lake.db.r WHERE a = 3");
    assertThat(ivm.refresh("lake.db.totals").full()).isFalse();
    assertThat(rows(ivm.readSql("lake.db.totals"))).isEqualTo(rows(query));
  }

  private static long snapshotOf(String table) {
    return spark
        .sql("SELECT snapshot_id FROM " + table + ".snapshots ORDER BY committed_at DESC LIMIT 1")
        .first()
        .getLong(0);
  }

  /** A few random inserts, deletes and updates of both tables, each its own Iceberg commit. */
  private static void change(Random random, int statements) {
    for (int i = 0; i < statements; i++) {
      int a = random.nextInt(5);
      switch (random.nextInt(6)) {
        case 0, 1 ->
            spark.sql(
                "INSERT INTO lake.db.r VALUES "
                    + rRow(random)
                    + ", "
                    + rRow(random)
                    + ", "
                    + rRow(random));
        case 2 -> spark.sql("DELETE FROM lake.db.r WHERE a = " + a);
        case 3 ->
            spark.sql(
                "UPDATE lake.db.r SET c = c + 1, b = "
                    + text(random)
                    + " WHERE a = "
                    + a
                    + " OR a IS NULL");
        case 4 ->
            spark.sql(
                random.nextBoolean()
                    ? "INSERT INTO lake.db.s VALUES (" + value(random) + ", " + text(random) + ")"
                    : "DELETE FROM lake.db.s WHERE a = " + a);
        default ->
            spark.sql(
                random.nextBoolean()
                    ? "INSERT INTO lake.db.u VALUES (" + text(random) + ", " + value(random) + ")"
                    : "UPDATE lake.db.u SET f = f + 1 WHERE e = " + text(random));
      }
    }
  }

  private static String rRow(Random random) {
    String c = random.nextInt(6) == 0 ? "NULL" : (random.nextInt(2000) - 1000) + ".25";
    // eighths add exactly in any order; now and then a NaN or an infinity, which a sum keeps
    // counted apart from its finite values
    String d =
        switch (random.nextInt(12)) {
          case 0, 1 -> "NULL";
          case 2 -> "CAST('NaN' AS DOUBLE)";
          case 3 ->
              random.nextBoolean() ? "CAST('Infinity' AS DOUBLE)" : "CAST('-Infinity' AS DOUBLE)";
          default -> String.valueOf(random.nextInt(100) / 8.0);
        };
    return "(" + value(random) + ", " + text(random) + ", " + c + ", " + d + ")";
  }

  private static String value(Random random) {
    return random.nextInt(6) == 0 ? "NULL" : String.valueOf(random.nextInt(5));
  }

  private static String text(Random random) {
    return random.nextInt(6) == 0 ? "NULL" : "'" + (char) ('w' + random.nextInt(4)) + "'";
  }

  /**
   * The rows of {@code sql} as a sorted bag of texts, finite numbers compared by value to 10
   * digits.
   */
  private static List<String> rows(String sql) {
    List<String> rows = new ArrayList<>();
    for (Row row : spark.sql(sql).collectAsList()) {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < row.length(); i++) {
        Object value = row.get(i);
        values.add(
            value instanceof Number n && Double.isFinite(n.doubleValue())
                ? new BigDecimal(n.toString())
                    .round(new MathContext(10))
                    .stripTrailingZeros()
                    .toPlainString()
                : String.valueOf(value));
      }
      rows.add(values.toString());
    }
    Collections.sort(rows);
    return rows;
  }
}
