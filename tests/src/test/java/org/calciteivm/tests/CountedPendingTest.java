package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A refresh whose pending change the driver counted (every write since the view's last refresh ran
 * through this JVM, and each table it changed is read by this view alone) takes the change from
 * those counts instead of querying it. The counts may be too high (a rolled back write counts) and
 * may report deletes where there are none, never the other way round; these tests change the tables
 * by every kind of captured write, each followed by a refresh, and check every view against its
 * query: an insert-only path taken for a change that deletes would leave rows behind.
 */
class CountedPendingTest {
  private static final String FIND = "find the pending change";
  private static final String SNAPSHOT = "take the refresh's snapshot";

  private static final Map<String, String> VIEWS =
      Map.of(
          "sums", "SELECT k, SUM(v) AS s, COUNT(*) AS n FROM t GROUP BY k",
          "extremes", "SELECT k, MIN(v) AS lo, MAX(v) AS hi FROM t GROUP BY k",
          "rows_of", "SELECT k, v FROM t WHERE v > 0 ");

  @Test
  void refreshesAfterTheFirstTakeTheirChangeFromTheCounts() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      s.execute("CREATE TABLE t (k INTEGER, v INTEGER)");
      s.execute("INSERT INTO t VALUES (1, 1), (1, 2), (2, 5)");
      s.execute("CREATE MATERIALIZED VIEW v AS " + VIEWS.get("sums"));
      s.execute("INSERT INTO t VALUES (3, 3)");
      // the first refresh in this process has no counts to start from
      assertThat(analyzed(connection, "v")).anyMatch(line -> line.endsWith(FIND));
      s.execute("INSERT INTO t VALUES (3, 4), (4, 4)");
      List<String> second = analyzed(connection, "v");
      assertThat(second).noneMatch(line -> line.endsWith(FIND));
      assertThat(second.get(0)).contains("2 change rows consumed");
      s.execute("DELETE FROM t WHERE k = 1");
      assertThat(s.executeUpdate("REFRESH MATERIALIZED VIEW v")).isEqualTo(2);
      ViewCheck.assertMatches(connection, "v", VIEWS.get("sums"), "after a counted delete");
    }
  }

  @Test
  void everyKindOfWriteIsMergedAsWhatItIs() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      // a table per view: a table other views read too is queried
      createTablesAndViews(s, VIEWS, "");
      step(connection, "a first refresh", t -> s.execute("INSERT INTO " + t + " VALUES (7, 7)"));
      step(connection, "an insert", t -> s.execute("INSERT INTO " + t + " VALUES (1, 0), (4, 9)"));
      step(connection, "a delete", t -> s.execute("DELETE FROM " + t + " WHERE v = 2"));
      step(connection, "an update", t -> s.execute("UPDATE " + t + " SET v = v - 5 WHERE k = 2"));
      step(connection, "a truncate", t -> s.execute("TRUNCATE " + t));
      step(
          connection,
          "a prepared batch of inserts",
          t -> {
            try (PreparedStatement insert =
                connection.prepareStatement("INSERT INTO " + t + " VALUES (?, ?)")) {
              for (int i = 0; i < 6; i++) {
                insert.setInt(1, i % 3);
                insert.setInt(2, i - 2);
                insert.addBatch();
              }
              insert.executeBatch();
            }
          });
      step(
          connection,
          "a prepared delete",
          t -> {
            try (PreparedStatement delete =
                connection.prepareStatement("DELETE FROM " + t + " WHERE k = ?")) {
              delete.setInt(1, 1);
              delete.executeUpdate();
            }
          });
      step(
          connection,
          "an insert and a delete in one transaction",
          t -> {
            connection.setAutoCommit(false);
            s.execute("INSERT INTO " + t + " VALUES (5, 5), (5, 6)");
            s.execute("DELETE FROM " + t + " WHERE v = 5");
            connection.commit();
            connection.setAutoCommit(true);
          });
      step(connection, "a delete of no row", t -> s.execute("DELETE FROM " + t + " WHERE k = 99"));
      step(connection, "an insert again", t -> s.execute("INSERT INTO " + t + " VALUES (5, 7)"));
    }
  }

  /**
   * Random writes of every kind (with NULLs, duplicates, rolled back and committed transactions
   * that mix kinds) to tables each read by one view, among them a join of two, refreshed in random
   * order, each view checked against its query after each refresh. The seed is printed; {@code
   * -Divm.seed} replays it.
   */
  @Test
  void randomWritesAndRefreshes() throws SQLException {
    long seed = Long.getLong("ivm.seed", new Random().nextLong());
    System.out.println("CountedPendingTest: -Divm.seed=" + seed);
    Random random = new Random(seed);
    Map<String, String> views = new LinkedHashMap<>();
    for (Map.Entry<String, String> view : VIEWS.entrySet()) {
      views.put(view.getKey(), ofTable(view));
    }
    views.put(
        "joined", "SELECT a.k, a.v AS av, b.v AS bv FROM t_ja AS a JOIN t_jb AS b ON a.k = b.k");
    List<String> tables = new ArrayList<>();
    VIEWS.keySet().forEach(v -> tables.add("t_" + v));
    tables.add("t_ja");
    tables.add("t_jb");
    // a hidden view below: refreshed in the graph's transaction
    views.put("distincts", "SELECT k, COUNT(DISTINCT v) AS d FROM t_cd GROUP BY k");
    tables.add("t_cd");
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      for (String table : tables) {
        s.execute("CREATE TABLE " + table + " (k INTEGER, v INTEGER)");
        s.execute("INSERT INTO " + table + " SELECT i % 4, i FROM range(8) AS r(i)");
      }
      for (Map.Entry<String, String> view : views.entrySet()) {
        s.execute("CREATE MATERIALIZED VIEW " + view.getKey() + " AS " + view.getValue());
      }
      for (int step = 0; step < 120; step++) {
        String table = tables.get(random.nextInt(tables.size()));
        try {
          if (random.nextInt(5) == 0) {
            connection.setAutoCommit(false);
            for (int i = 1 + random.nextInt(3); i > 0; i--) {
              s.execute(randomWrite(random, table));
            }
            if (random.nextBoolean()) {
              connection.commit();
            } else {
              connection.rollback();
            }
            connection.setAutoCommit(true);
          } else {
            s.execute(randomWrite(random, table));
          }
          if (random.nextInt(3) == 0) {
            List<String> names = new ArrayList<>(views.keySet());
            Collections.shuffle(names, random);
            for (String name : names.subList(0, 1 + random.nextInt(names.size()))) {
              s.execute("REFRESH MATERIALIZED VIEW " + name);
              ViewCheck.assertMatches(connection, name, views.get(name), "step " + step);
            }
          }
        } catch (AssertionError | SQLException e) {
          throw new AssertionError("seed=" + seed + " step=" + step + ": " + e.getMessage(), e);
        }
      }
    }
  }

  /** An INSERT, DELETE or UPDATE of {@code table}, with NULLs and duplicate rows. */
  private static String randomWrite(Random random, String table) {
    int k = random.nextInt(5);
    String v = random.nextInt(6) == 0 ? "NULL" : Integer.toString(random.nextInt(10) - 2);
    return switch (random.nextInt(4)) {
      case 0 -> "INSERT INTO " + table + " VALUES (" + k + ", " + v + "), (" + k + ", " + v + ")";
      case 1 -> "INSERT INTO " + table + " VALUES (" + k + ", " + v + ")";
      case 2 -> "DELETE FROM " + table + " WHERE k = " + k + " AND v < " + random.nextInt(8);
      default -> "UPDATE " + table + " SET v = v + 1 WHERE k = " + k;
    };
  }

  @Test
  void aHiddenViewRefreshedWithItsOwnerCountsItsChange() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      String query = "SELECT k, COUNT(DISTINCT v) AS d FROM t GROUP BY k";
      s.execute("CREATE TABLE t (k INTEGER, v INTEGER)");
      s.execute("INSERT INTO t VALUES (1, 1), (1, 2), (2, 5)");
      s.execute("CREATE MATERIALIZED VIEW d AS " + query);
      s.execute("INSERT INTO t VALUES (1, 3)");
      s.execute("REFRESH MATERIALIZED VIEW d");
      s.execute("DELETE FROM t WHERE v = 1");
      List<String> analyzed = analyzed(connection, "d");
      // the hidden view reads t: counted; the view reads the hidden view's change log: queried
      assertThat(analyzed.get(2)).endsWith("  | take the refresh's snapshot");
      assertThat(analyzed).anyMatch(line -> line.endsWith(" " + FIND));
      ViewCheck.assertMatches(connection, "d", query, "after a counted delete below");
    }
  }

  @Test
  void hiddenViewsAfterTheFirstInTheGraphsTransactionTakeNoSnapshot() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      String query =
          "SELECT a.k, a.s, b.w FROM (SELECT k, SUM(v) AS s FROM t GROUP BY k) a"
              + " JOIN (SELECT k, SUM(v) AS w FROM u GROUP BY k) b ON a.k = b.k";
      s.execute("CREATE TABLE t (k INTEGER, v INTEGER)");
      s.execute("CREATE TABLE u (k INTEGER, v INTEGER)");
      s.execute("INSERT INTO t VALUES (1, 1), (2, 2)");
      s.execute("INSERT INTO u VALUES (1, 10), (2, 20)");
      s.execute("CREATE MATERIALIZED VIEW j AS " + query);
      s.execute("INSERT INTO t VALUES (1, 3)");
      s.execute("INSERT INTO u VALUES (2, 5)");
      s.execute("REFRESH MATERIALIZED VIEW j");
      s.execute("DELETE FROM t WHERE v = 1");
      s.execute("UPDATE u SET v = v + 1 WHERE k = 2");
      List<String> analyzed = analyzed(connection, "j");
      // both hidden views count their change; the transaction's snapshot is taken once
      assertThat(analyzed)
          .filteredOn(line -> line.endsWith("take the refresh's snapshot"))
          .hasSize(1);
      assertThat(analyzed.stream().filter(line -> line.endsWith("  | " + FIND)).count()).isZero();
      ViewCheck.assertMatches(connection, "j", query, "after counted changes of two hidden views");
    }
  }

  @Test
  void aRolledBackWriteLeavesNothingToConsume() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      s.execute("CREATE TABLE t (k INTEGER, v INTEGER)");
      s.execute("INSERT INTO t VALUES (1, 1), (2, 2)");
      s.execute("CREATE MATERIALIZED VIEW v AS " + VIEWS.get("sums"));
      s.execute("INSERT INTO t VALUES (3, 3)");
      s.execute("REFRESH MATERIALIZED VIEW v");
      long refreshes = refreshCount(connection);
      connection.setAutoCommit(false);
      s.execute("INSERT INTO t VALUES (4, 4)");
      s.execute("DELETE FROM t WHERE k = 1");
      connection.rollback();
      connection.setAutoCommit(true);
      // counted, though rolled back: the refresh merges, finds nothing, and says so; it is
      // recorded all the same, by the statement that deletes the consumed change rows
      assertThat(s.executeUpdate("REFRESH MATERIALIZED VIEW v")).isZero();
      assertThat(refreshCount(connection)).isEqualTo(refreshes + 1);
      ViewCheck.assertMatches(connection, "v", VIEWS.get("sums"), "after a rollback");
    }
  }

  @Test
  void aRefreshTakesItsSnapshotFirstOnlyWhileAWriteIsOpen(@TempDir Path dir) throws SQLException {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("open.duckdb");
    String query = VIEWS.get("sums");
    try (Connection connection = DriverManager.getConnection(url);
        Connection writer = DriverManager.getConnection(url);
        Statement s = connection.createStatement();
        Statement w = writer.createStatement()) {
      s.execute("CREATE TABLE t (k INTEGER, v INTEGER)");
      s.execute("INSERT INTO t VALUES (1, 1), (2, 2)");
      s.execute("CREATE MATERIALIZED VIEW v AS " + query);
      s.execute("INSERT INTO t VALUES (3, 3)");
      s.execute("REFRESH MATERIALIZED VIEW v");
      s.execute("INSERT INTO t VALUES (4, 4)");
      // counted, and every write ended: the merge's own statement takes the snapshot
      assertThat(analyzed(connection, "v"))
          .noneMatch(line -> line.endsWith(FIND) || line.endsWith(SNAPSHOT));
      writer.setAutoCommit(false);
      w.execute("DELETE FROM t WHERE k = 1");
      s.execute("INSERT INTO t VALUES (5, 5)");
      // a write is open (its writer may register more): the snapshot is taken first, and the
      // open delete, counted but not seen, is not consumed
      assertThat(analyzed(connection, "v")).anyMatch(line -> line.endsWith(SNAPSHOT));
      ViewCheck.assertMatches(connection, "v", query, "while a delete is open");
      writer.commit();
      assertThat(s.executeUpdate("REFRESH MATERIALIZED VIEW v")).isEqualTo(1);
      ViewCheck.assertMatches(connection, "v", query, "after the delete committed");
    }
  }

  @Test
  void aTableOtherViewsReadIsQueried() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      s.execute("CREATE TABLE t (k INTEGER, v INTEGER)");
      s.execute("INSERT INTO t VALUES (1, 1), (2, 2)");
      s.execute("CREATE MATERIALIZED VIEW v AS " + VIEWS.get("sums"));
      s.execute("CREATE MATERIALIZED VIEW w AS " + VIEWS.get("rows_of"));
      s.execute("INSERT INTO t VALUES (3, 3)");
      s.execute("REFRESH MATERIALIZED VIEW v");
      s.execute("INSERT INTO t VALUES (4, 4)");
      // w has not consumed the first insert: what v has not is in the log's epochs
      assertThat(analyzed(connection, "v")).anyMatch(line -> line.endsWith(FIND));
      ViewCheck.assertMatches(connection, "v", VIEWS.get("sums"), "v");
      s.execute("REFRESH MATERIALIZED VIEW w");
      ViewCheck.assertMatches(connection, "w", VIEWS.get("rows_of"), "w");
    }
  }

  @Test
  void aRefreshAfterImmediateWritesHasNothingToDo() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      // a graph: the COUNT(DISTINCT) keeps a hidden view below, maintained by the write too
      String query = "SELECT k, COUNT(DISTINCT v) AS d, SUM(v) AS s FROM t GROUP BY k";
      s.execute("CREATE TABLE t (k INTEGER, v INTEGER)");
      s.execute("INSERT INTO t VALUES (1, 1), (1, 2), (2, 5)");
      s.execute("CREATE MATERIALIZED VIEW i WITH (refresh = 'immediate') AS " + query);
      s.execute("CREATE MATERIALIZED VIEW v AS " + VIEWS.get("sums"));
      s.execute("INSERT INTO t VALUES (1, 3), (3, 3)");
      s.execute("UPDATE t SET v = v + 1 WHERE k = 1");
      long refreshes = refreshCount(connection, "i");
      // the writes' own transactions brought it up to date: the REFRESH runs no statement
      List<String> analyzed = analyzed(connection, "i");
      assertThat(analyzed.get(0)).contains("nothing pending");
      assertThat(analyzed)
          .noneMatch(line -> line.endsWith(FIND))
          .noneMatch(line -> line.contains("snapshot") || line.contains("merge"))
          .filteredOn(line -> line.contains("hidden view"))
          .allMatch(line -> line.endsWith("(0 change rows)"));
      assertThat(refreshCount(connection, "i")).isEqualTo(refreshes);
      ViewCheck.assertMatches(connection, "i", query, "after immediate writes");
      // the deferred view on the same table still has the writes to consume
      assertThat(s.executeUpdate("REFRESH MATERIALIZED VIEW v")).isPositive();
      ViewCheck.assertMatches(connection, "v", VIEWS.get("sums"), "a deferred view beside it");
      // a write in the client's transaction is not counted as consumed: the REFRESH looks
      connection.setAutoCommit(false);
      s.execute("DELETE FROM t WHERE k = 2");
      connection.commit();
      connection.setAutoCommit(true);
      assertThat(analyzed(connection, "i")).anyMatch(line -> line.endsWith(FIND));
      ViewCheck.assertMatches(connection, "i", query, "after a write in a transaction");
      // deferred from now on: the next write is the REFRESH's to apply
      s.execute("ALTER MATERIALIZED VIEW i SET (refresh = 'deferred')");
      s.execute("INSERT INTO t VALUES (4, 4)");
      assertThat(s.executeUpdate("REFRESH MATERIALIZED VIEW i")).isPositive();
      ViewCheck.assertMatches(connection, "i", query, "deferred again");
    }
  }

  /**
   * An auto-commit write that maintains immediate views refreshes them with the change counted:
   * DuckDB's query log shows no query of a base table's pending change (after the first write,
   * which has no counts to start from; a view over a hidden view queries the change the hidden view
   * wrote), and every view equals its query after every write.
   */
  @Test
  void immediateWritesTakeTheirChangeFromTheCounts() throws SQLException {
    Map<String, String> views = new LinkedHashMap<>(VIEWS);
    views.put("distinct_values", "SELECT k, COUNT(DISTINCT v) AS d FROM t GROUP BY k");
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      createTablesAndViews(s, views, "WITH (refresh = 'immediate') ");
      List<Write> writes =
          List.of(
              t -> s.execute("INSERT INTO " + t + " VALUES (7, 7)"),
              t -> s.execute("INSERT INTO " + t + " VALUES (1, 0), (4, 9), (4, 9)"),
              t -> s.execute("DELETE FROM " + t + " WHERE v = 2"),
              t -> s.execute("UPDATE " + t + " SET v = v - 5 WHERE k = 2"),
              t -> s.execute("DELETE FROM " + t + " WHERE k = 99"),
              t -> {
                try (PreparedStatement insert =
                    connection.prepareStatement("INSERT INTO " + t + " VALUES (?, ?)")) {
                  for (int i = 0; i < 4; i++) {
                    insert.setInt(1, i % 2);
                    insert.setInt(2, i);
                    insert.addBatch();
                  }
                  insert.executeBatch();
                }
              },
              t -> s.execute("TRUNCATE " + t),
              t -> s.execute("INSERT INTO " + t + " VALUES (1, NULL), (1, 3)"));
      for (int w = 0; w < writes.size(); w++) {
        for (Map.Entry<String, String> view : views.entrySet()) {
          s.execute("CALL truncate_duckdb_logs()");
          s.execute("CALL enable_logging('QueryLog')");
          writes.get(w).run("t_" + view.getKey());
          s.execute("CALL disable_logging()");
          List<String> log =
              ViewCheck.rows(connection, "SELECT message FROM duckdb_logs WHERE type = 'QueryLog'");
          if (w > 0) {
            // the view over a hidden view reads the change the hidden view just wrote, uncounted
            // (if the hidden view had any)
            long expected = view.getKey().equals("distinct_values") ? 1 : 0;
            assertThat(log.stream().filter(line -> line.contains("AS change_rows")).count())
                .as("queries of the pending change, write %d to %s: %s", w, view.getKey(), log)
                .isLessThanOrEqualTo(expected);
          }
          ViewCheck.assertMatches(
              connection, view.getKey(), ofTable(view), "after write " + w + " (immediate)");
        }
      }
    }
  }

  /**
   * Creates, per view of {@code views}, its table {@code t_<view>} with rows (duplicates and a NULL
   * among them) and the view over it, with {@code options} before its {@code AS}.
   */
  private static void createTablesAndViews(Statement s, Map<String, String> views, String options)
      throws SQLException {
    for (Map.Entry<String, String> view : views.entrySet()) {
      String table = "t_" + view.getKey();
      s.execute("CREATE TABLE " + table + " (k INTEGER, v INTEGER)");
      s.execute("INSERT INTO " + table + " VALUES (1, 1), (1, 2), (2, 5), (2, 5), (3, NULL)");
      s.execute(
          "CREATE MATERIALIZED VIEW " + view.getKey() + " " + options + "AS " + ofTable(view));
    }
  }

  /** A view's query over a table of its own, {@code t_<view>}. */
  private static String ofTable(Map.Entry<String, String> view) {
    return view.getValue().replace("FROM t ", "FROM t_" + view.getKey() + " ");
  }

  /**
   * Runs {@code write} on every view's table, refreshes each view and checks it against its query;
   * each refresh after a view's first takes its change from the counts.
   */
  private static void step(Connection connection, String what, Write write) throws SQLException {
    for (Map.Entry<String, String> view : VIEWS.entrySet()) {
      write.run("t_" + view.getKey());
      List<String> analyzed = analyzed(connection, view.getKey());
      if (!what.equals("a first refresh")) {
        assertThat(analyzed).as(what).noneMatch(line -> line.endsWith(FIND));
      }
      ViewCheck.assertMatches(connection, view.getKey(), ofTable(view), "after " + what);
    }
  }

  private static List<String> analyzed(Connection connection, String view) throws SQLException {
    return ViewCheck.rows(connection, "EXPLAIN ANALYZE REFRESH MATERIALIZED VIEW " + view);
  }

  private static long refreshCount(Connection connection) throws SQLException {
    return refreshCount(connection, "v");
  }

  private static long refreshCount(Connection connection, String view) throws SQLException {
    return Long.parseLong(
        ViewCheck.rows(
                connection, "SELECT refresh_count FROM ivm_views WHERE name = '" + view + "'")
            .get(0));
  }

  /** A write to the table it is given. */
  @FunctionalInterface
  private interface Write {
    void run(String table) throws SQLException;
  }
}
