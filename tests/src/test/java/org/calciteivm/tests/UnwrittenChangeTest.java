package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A materialized view that other views read writes its change for them, unless every one of them
 * recomputes in the same refresh: then nobody reads it, it is not written, and the readers must
 * recompute even when the change they would have read is all they have. These tests run under
 * {@code ivm_refresh_mode = full}, where every view recomputes and the choice is certain, and check
 * from {@code EXPLAIN ANALYZE REFRESH} which views wrote their change and against their queries
 * that every view is right, also once the mode goes back to incremental.
 */
class UnwrittenChangeTest {
  private static final String WRITES = "write the view's change for the views that read it";
  private static final String NOT_WRITTEN = "its change is not written";

  private static final String SUMS = "SELECT k, SUM(v) AS s, COUNT(*) AS n FROM t GROUP BY k";
  private static final String BY_COUNT =
      "SELECT n, COUNT(*) AS groups, MAX(s) AS top FROM sums GROUP BY n";
  private static final String BIG = "SELECT k, s FROM sums WHERE s > 2";

  @Test
  void aHiddenViewWhoseReaderRecomputesWritesNoChange() throws SQLException {
    String query =
        "SELECT COUNT(*) AS groups, MAX(s) AS top, MIN(s) AS low"
            + " FROM (SELECT k, SUM(v) AS s FROM t GROUP BY k) x";
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      s.execute("CREATE TABLE t (k INTEGER, v INTEGER)");
      s.execute("INSERT INTO t VALUES (1, 1), (1, 2), (2, 5), (3, NULL)");
      s.execute("CREATE MATERIALIZED VIEW h AS " + query);
      s.execute("SET ivm_refresh_mode = full");
      s.execute("INSERT INTO t VALUES (4, 9), (1, 1)");
      s.execute("DELETE FROM t WHERE k = 2");
      List<String> analyzed = analyzed(connection, "h");
      assertThat(analyzed)
          .anyMatch(line -> line.contains(NOT_WRITTEN))
          .noneMatch(line -> line.contains(WRITES));
      ViewCheck.assertMatches(connection, "h", query, "after a recompute over an unwritten change");
      // the view's own change is nothing but the hidden view's: it still recomputes, and counts
      // the two rows the hidden view consumed for it
      s.execute("UPDATE t SET v = v + 10 WHERE k = 4");
      assertThat(s.executeUpdate("REFRESH MATERIALIZED VIEW h")).isEqualTo(2);
      ViewCheck.assertMatches(connection, "h", query, "after an update below, recomputed");
      // back to merging: the hidden view writes its change again, and nothing was lost meanwhile
      s.execute("SET ivm_refresh_mode = incremental");
      s.execute("DELETE FROM t WHERE k = 4");
      s.execute("INSERT INTO t VALUES (5, 20), (5, NULL)");
      assertThat(analyzed(connection, "h")).anyMatch(line -> line.contains(WRITES));
      ViewCheck.assertMatches(connection, "h", query, "after merging again");
    }
  }

  @Test
  void aViewThatAReaderOutsideTheRefreshStillNeedsWritesItsChange() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      s.execute("CREATE TABLE t (k INTEGER, v INTEGER)");
      s.execute("INSERT INTO t VALUES (1, 1), (1, 2), (2, 5), (3, 3), (NULL, 4)");
      s.execute("CREATE MATERIALIZED VIEW sums AS " + SUMS);
      s.execute("CREATE MATERIALIZED VIEW by_count AS " + BY_COUNT);
      s.execute("CREATE MATERIALIZED VIEW big AS " + BIG);
      s.execute("SET ivm_refresh_mode = full");
      s.execute("INSERT INTO t VALUES (2, 1), (4, 4), (NULL, 1)");
      s.execute("UPDATE t SET v = 0 WHERE k = 3");
      // big reads sums too and is not refreshed here: sums writes its change for it
      assertThat(analyzed(connection, "by_count"))
          .anyMatch(line -> line.contains(WRITES))
          .noneMatch(line -> line.contains(NOT_WRITTEN));
      s.execute("SET ivm_refresh_mode = incremental");
      assertThat(s.executeUpdate("REFRESH MATERIALIZED VIEW big")).isPositive();
      checkAll(connection, "after refreshing the readers one at a time");
      // with big dropped, by_count is the only reader: sums' change goes unwritten
      s.execute("DROP MATERIALIZED VIEW big");
      s.execute("SET ivm_refresh_mode = full");
      s.execute("DELETE FROM t WHERE k = 1");
      s.execute("INSERT INTO t VALUES (6, 6), (6, 6)");
      assertThat(analyzed(connection, "by_count"))
          .anyMatch(line -> line.contains(NOT_WRITTEN))
          .noneMatch(line -> line.contains(WRITES));
      ViewCheck.assertMatches(connection, "sums", SUMS, "after an unwritten change");
      ViewCheck.assertMatches(connection, "by_count", BY_COUNT, "after an unwritten change");
      // a refresh of sums alone under full mode writes its change: by_count reads it later
      s.execute("DELETE FROM t WHERE k = 6");
      s.execute("REFRESH MATERIALIZED VIEW sums");
      s.execute("SET ivm_refresh_mode = incremental");
      s.execute("INSERT INTO t VALUES (7, 1)");
      s.execute("REFRESH MATERIALIZED VIEW by_count");
      ViewCheck.assertMatches(connection, "by_count", BY_COUNT, "after a change written alone");
    }
  }

  @Test
  void aRefreshInTheClientsTransactionLeavesTheChangeUnwrittenToo() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      s.execute("CREATE TABLE t (k INTEGER, v INTEGER)");
      s.execute("INSERT INTO t VALUES (1, 1), (2, 2)");
      s.execute("CREATE MATERIALIZED VIEW sums AS " + SUMS);
      s.execute("CREATE MATERIALIZED VIEW by_count AS " + BY_COUNT);
      s.execute("SET ivm_refresh_mode = full");
      connection.setAutoCommit(false);
      s.execute("INSERT INTO t VALUES (1, 5), (3, 3)");
      s.execute("REFRESH MATERIALIZED VIEW by_count");
      ViewCheck.assertMatches(connection, "by_count", BY_COUNT, "inside the transaction");
      connection.rollback();
      connection.setAutoCommit(true);
      ViewCheck.assertMatches(connection, "sums", SUMS, "after the rollback");
      ViewCheck.assertMatches(connection, "by_count", BY_COUNT, "after the rollback");
      s.execute("DELETE FROM t WHERE k = 2");
      s.execute("REFRESH MATERIALIZED VIEW by_count");
      ViewCheck.assertMatches(connection, "sums", SUMS, "after a refresh once rolled back");
      ViewCheck.assertMatches(connection, "by_count", BY_COUNT, "after a refresh once rolled back");
    }
  }

  private static void checkAll(Connection connection, String where) throws SQLException {
    ViewCheck.assertMatches(connection, "sums", SUMS, where);
    ViewCheck.assertMatches(connection, "by_count", BY_COUNT, where);
    ViewCheck.assertMatches(connection, "big", BIG, where);
  }

  private static List<String> analyzed(Connection connection, String view) throws SQLException {
    return ViewCheck.rows(connection, "EXPLAIN ANALYZE REFRESH MATERIALIZED VIEW " + view);
  }
}
