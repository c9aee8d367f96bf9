package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The MERGE of an aggregate view takes its source in the stored rows' order (DuckDB updates rows
 * out of that order one at a time) when DuckDB's estimates say it would otherwise probe the source:
 * a change with deletes to a view with MIN or MAX of at least as many rows as the view stores, or
 * any change read from change tables DuckDB estimates at least as large as the stored table (rows a
 * refresh consumed count until a checkpoint); any other change, or any change to a view of fewer
 * rows than one of DuckDB's vectors, as it comes. Both leave the view equal to its query. The
 * changes here mix updates of every group, new groups, groups that vanish, NULL keys and values,
 * for SUM/COUNT/AVG (folded into the state), MIN/MAX (a delete recomputes the groups it empties of
 * their extreme) and HAVING.
 */
class MergeOrderTest {
  private static final int GROUPS = 3_000;

  private static final String SUMS =
      "SELECT k, COUNT(*) AS n, SUM(x) AS s, AVG(x) AS a, COUNT(x) AS nx FROM t GROUP BY k";
  private static final String EXTREMES =
      "SELECT k, MIN(x) AS lo, MAX(d) AS hi, COUNT(*) AS n FROM t GROUP BY k";
  private static final String FILTERED =
      "SELECT k % 1000 AS g, SUM(x) AS s, MAX(x) AS hi FROM t GROUP BY k % 1000"
          + " HAVING COUNT(*) > 1";

  private static final String ESTIMATE =
      "estimate the stored rows and the change tables' rows, to choose the order of the MERGE";
  private static final String COUNT =
      "count the view's stored rows, to choose the order of its MERGE";
  private static final String ORDERED = "ORDER BY d.rowid) AS v ON";

  @TempDir Path directory;

  @Test
  void aChangeOfEveryGroupIsMergedInStoredOrder() throws SQLException {
    try (Connection connection = open();
        Statement s = connection.createStatement()) {
      createViews(s);
      // every row updated (each group deleted and inserted), groups new and gone, NULL keys
      s.execute("UPDATE t SET x = x + 1, d = d - 1");
      s.execute("DELETE FROM t WHERE k % 7 = 0");
      s.execute(
          "INSERT INTO t SELECT " + GROUPS + " + range, range, DATE '2026-01-01' FROM range(500)");
      s.execute("INSERT INTO t VALUES (NULL, 5, DATE '2025-01-01'), (NULL, NULL, NULL)");
      assertThat(explainAnalyze(s, "extremes")).contains(COUNT).contains(ORDERED);
      // no MIN or MAX: the change table's rows outnumber the stored groups
      assertThat(explainAnalyze(s, "sums")).contains(ESTIMATE).contains(ORDERED);
      // 1,000 groups: fewer than one vector of DuckDB's, out of order at little cost
      assertThat(explainAnalyze(s, "filtered"))
          .contains(COUNT)
          .contains("the MERGE takes its source as it comes: stored rows 1,000")
          .doesNotContain("ORDER BY d.rowid");
      check(connection);
    }
  }

  @Test
  void aChangeOfFewGroupsIsMergedAsItComes() throws SQLException {
    try (Connection connection = open();
        Statement s = connection.createStatement()) {
      createViews(s);
      s.execute("UPDATE t SET x = x + 1 WHERE k < 10");
      s.execute("DELETE FROM t WHERE k BETWEEN 10 AND 12");
      s.execute("INSERT INTO t VALUES (NULL, NULL, NULL), (" + GROUPS + ", 1, DATE '2026-01-01')");
      for (String view : new String[] {"sums", "extremes", "filtered"}) {
        assertThat(explainAnalyze(s, view))
            .as("the refresh of %s", view)
            .doesNotContain(ESTIMATE)
            .doesNotContain(COUNT)
            .doesNotContain("ORDER BY d.rowid");
      }
      check(connection);
    }
  }

  /**
   * A change of fewer rows than the view stores, read from a change table whose consumed rows
   * DuckDB still counts (no checkpoint since), is merged in stored order: DuckDB estimates the
   * source by those counts. A checkpoint drops the consumed rows, and the same change is merged as
   * it comes.
   */
  @Test
  void consumedChangeRowsCountUntilACheckpoint() throws SQLException {
    String query = "SELECT k, SUM(x) AS s, COUNT(*) AS n FROM u GROUP BY k";
    try (Connection connection = open();
        Statement s = connection.createStatement()) {
      s.execute("CREATE TABLE u (k INTEGER, x INTEGER)");
      s.execute("INSERT INTO u SELECT range, range % 100 FROM range(20000)");
      s.execute("CREATE MATERIALIZED VIEW per_key AS " + query);
      s.execute("SET ivm_refresh_mode = incremental");
      s.execute("UPDATE u SET x = x + 1"); // 40,000 change rows
      s.execute("REFRESH MATERIALIZED VIEW per_key"); // consumed: deleted from the change table
      s.execute("UPDATE u SET x = x - 1 WHERE k < 5000"); // 10,000 change rows, 5,000 groups
      assertThat(explainAnalyze(s, "per_key"))
          .contains("the MERGE takes its source in stored order: stored rows estimated at 20,000")
          .contains(ORDERED);
      ViewCheck.assertMatches(connection, "per_key", query, "after the ordered merge");
      s.execute("CHECKPOINT");
      s.execute("UPDATE u SET x = x + 1 WHERE k < 5000");
      assertThat(explainAnalyze(s, "per_key"))
          .contains("the MERGE takes its source as it comes")
          .doesNotContain("ORDER BY d.rowid");
      ViewCheck.assertMatches(connection, "per_key", query, "after the checkpoint");
    }
  }

  /**
   * In a refresh of a view over another, the change the view below writes in the same transaction
   * counts towards the estimate of the view above (DuckDB's planner sees it, {@code
   * duckdb_tables()} does not): a change of every row of t is merged into both in stored order.
   */
  @Test
  void aChangeWrittenInTheSameRefreshCounts() throws SQLException {
    String below = "SELECT k, SUM(x) AS s FROM u GROUP BY k";
    String above =
        "SELECT k % 5000 AS g, SUM(s) AS s, COUNT(*) AS n FROM per_key GROUP BY k % 5000";
    try (Connection connection = open();
        Statement s = connection.createStatement()) {
      s.execute("CREATE TABLE u (k INTEGER, x INTEGER)");
      s.execute("INSERT INTO u SELECT range, range % 100 FROM range(10000)");
      s.execute("CREATE MATERIALIZED VIEW per_key AS " + below);
      s.execute("CREATE MATERIALIZED VIEW per_group AS " + above);
      s.execute("SET ivm_refresh_mode = incremental");
      s.execute("UPDATE u SET x = x + 1"); // 20,000 change rows, then 20,000 of per_key's
      assertThat(explainAnalyze(s, "per_group"))
          .contains("the MERGE takes its source in stored order: stored rows estimated at 10,000")
          .contains("the MERGE takes its source in stored order: stored rows estimated at 5,000");
      ViewCheck.assertMatches(connection, "per_key", below, "below");
      ViewCheck.assertMatches(connection, "per_group", above, "above");
    }
  }

  @Test
  void randomChangesLargeAndSmall() throws SQLException {
    long seed = Long.getLong("ivm.seed", System.nanoTime());
    Random random = new Random(seed);
    try (Connection connection = open();
        Statement s = connection.createStatement()) {
      createViews(s);
      for (int round = 0; round < 6; round++) {
        String where = "seed " + seed + ", round " + round;
        // a share of the groups between 0.1% and all of them, by a random residue
        int modulus = 1 + random.nextInt(random.nextBoolean() ? 3 : 800);
        int residue = random.nextInt(modulus);
        s.execute(
            "UPDATE t SET x = CASE WHEN x % 5 = 0 THEN NULL ELSE x + "
                + (random.nextInt(7) - 3)
                + " END WHERE k % "
                + modulus
                + " = "
                + residue);
        s.execute("DELETE FROM t WHERE k % " + (modulus + 1) + " = " + residue + " AND x > 50");
        s.execute(
            "INSERT INTO t SELECT CASE WHEN range % 13 = 0 THEN NULL ELSE (range * "
                + (1 + random.nextInt(5))
                + ") % "
                + (GROUPS + 200)
                + " END, range % 100, DATE '2026-01-01' + (range % 40)::INTEGER FROM range("
                + random.nextInt(2 * GROUPS)
                + ")");
        refreshAll(s);
        checkAll(connection, where);
      }
    }
  }

  private Connection open() throws SQLException {
    return DriverManager.getConnection("jdbc:ivm:duckdb:" + directory.resolve("order.duckdb"));
  }

  /**
   * t: {@link #GROUPS} groups of three rows each, then the three views, refreshed incrementally.
   */
  private static void createViews(Statement s) throws SQLException {
    s.execute("CREATE TABLE t (k INTEGER, x INTEGER, d DATE)");
    s.execute(
        "INSERT INTO t SELECT range % "
            + GROUPS
            + ", range % 100, DATE '2026-01-01' + (range % 40)::INTEGER FROM range("
            + 3 * GROUPS
            + ")");
    s.execute("CREATE MATERIALIZED VIEW sums AS " + SUMS);
    s.execute("CREATE MATERIALIZED VIEW extremes AS " + EXTREMES);
    s.execute("CREATE MATERIALIZED VIEW filtered AS " + FILTERED);
    s.execute("SET ivm_refresh_mode = incremental");
  }

  private static void refreshAll(Statement s) throws SQLException {
    for (String view : new String[] {"sums", "extremes", "filtered"}) {
      s.execute("REFRESH MATERIALIZED VIEW " + view);
    }
  }

  private static String explainAnalyze(Statement s, String view) throws SQLException {
    StringBuilder plan = new StringBuilder();
    try (ResultSet rs = s.executeQuery("EXPLAIN ANALYZE REFRESH MATERIALIZED VIEW " + view)) {
      while (rs.next()) {
        plan.append(rs.getString(1)).append('\n');
      }
    }
    return plan.toString();
  }

  private static void check(Connection connection) throws SQLException {
    checkAll(connection, "after the refresh");
  }

  private static void checkAll(Connection connection, String where) throws SQLException {
    ViewCheck.assertMatches(connection, "sums", SUMS, where);
    ViewCheck.assertMatches(connection, "extremes", EXTREMES, where);
    ViewCheck.assertMatches(connection, "filtered", FILTERED, where);
  }
}
