package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The parts of the driver's contract that scenario scripts cannot express: registration, private
 * in-memory databases, settings as connection properties, transactions and writes through the JDBC
 * API (prepared, batched), update counts, and the shape of EXPLAIN output.
 */
class DriverContractTest {
  private static final String URL = "jdbc:ivm:duckdb:";
  private static final String VIEW_QUERY = "SELECT k, UPPER(v) AS big FROM t WHERE k > 0";

  @Test
  void driverIsRegisteredAsService() throws SQLException {
    String name = "org.calciteivm.jdbc.IvmDriver";
    assertThat(DriverManager.getDriver(URL).getClass().getName()).isEqualTo(name);
    assertThat(ServiceLoader.load(Driver.class).stream().map(p -> p.type().getName()))
        .contains(name);
  }

  @Test
  void largeBatchesAreCaptured() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      createTableAndView(connection);
      try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t VALUES (?, ?)")) {
        for (int k = 10; k < 13; k++) {
          insert.setInt(1, k);
          insert.setString(2, "p" + k);
          insert.addBatch();
        }
        assertThat(insert.executeLargeBatch()).containsExactly(1L, 1L, 1L);
      }
      try (Statement statement = connection.createStatement()) {
        statement.addBatch("INSERT INTO t VALUES (20, 's')");
        statement.addBatch("DELETE FROM t WHERE k = 10");
        assertThat(statement.executeLargeBatch()).containsExactly(1L, 1L);
      }
      refreshAndCheck(connection);
      assertThat(ViewCheck.rows(connection, "SELECT count(*) FROM v WHERE k >= 10"))
          .containsExactly("3");
    }
  }

  @Test
  void inMemoryDatabasesArePrivateToTheirConnection() throws SQLException {
    try (Connection a = DriverManager.getConnection(URL);
        Connection b = DriverManager.getConnection(URL)) {
      execute(a, "CREATE TABLE t (k INTEGER)");
      assertThatThrownBy(() -> execute(b, "SELECT * FROM t")).isInstanceOf(SQLException.class);
    }
  }

  @Test
  void settingsAreConnectionProperties() throws SQLException {
    try (Connection connection = connect("ivm_skip_projection_delete", "false")) {
      createTableAndView(connection);
      execute(connection, "INSERT INTO t VALUES (3, 'c'), (3, 'c')");
      refreshAndCheck(connection);
    }
    assertThatThrownBy(() -> connect("ivm_skip_projection_delete", "maybe").close())
        .isInstanceOf(SQLException.class)
        .message()
        .containsIgnoringCase("invalid value");
    assertThatThrownBy(() -> connect("ivm_foo", "1").close())
        .isInstanceOf(SQLException.class)
        .message()
        .containsIgnoringCase("unknown setting");
  }

  @Test
  void jdbcTransactionsAreCapturedWhenCommitted() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      createTableAndView(connection);
      connection.setAutoCommit(false);
      execute(connection, "INSERT INTO t VALUES (5, 'e')");
      execute(connection, "UPDATE t SET v = 'z' WHERE k = 1");
      connection.rollback();
      execute(connection, "DELETE FROM t WHERE k = 2");
      execute(connection, "INSERT INTO t VALUES (6, 'f')");
      connection.commit();
      connection.setAutoCommit(true);
      refreshAndCheck(connection);
      assertThat(ViewCheck.rows(connection, "SELECT * FROM v ORDER BY k"))
          .containsExactly("1\tA", "6\tF");
    }
  }

  @Test
  void preparedAndBatchedWritesAreCaptured() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      createTableAndView(connection);
      try (PreparedStatement insert = connection.prepareStatement("INSERT INTO t VALUES (?, ?)")) {
        insert.setInt(1, 7);
        insert.setString(2, "g");
        assertThat(insert.executeUpdate()).isEqualTo(1);
        for (int k = 8; k <= 10; k++) {
          insert.setInt(1, k);
          insert.setString(2, "batch");
          insert.addBatch();
        }
        insert.executeBatch();
      }
      try (PreparedStatement update =
          connection.prepareStatement("UPDATE t SET v = ? WHERE k = ?")) {
        update.setString(1, "updated");
        update.setInt(2, 8);
        assertThat(update.executeUpdate()).isEqualTo(1);
      }
      try (PreparedStatement delete = connection.prepareStatement("DELETE FROM t WHERE k = ?")) {
        delete.setInt(1, 9);
        delete.execute();
      }
      try (Statement batch = connection.createStatement()) {
        batch.addBatch("INSERT INTO t VALUES (11, 'k')");
        batch.addBatch("DELETE FROM t WHERE k = 1");
        batch.addBatch("UPDATE t SET k = -k WHERE k = 10");
        batch.executeBatch();
      }
      refreshAndCheck(connection);
      assertThat(ViewCheck.rows(connection, "SELECT * FROM v ORDER BY k"))
          .containsExactly("2\tB", "7\tG", "8\tUPDATED", "11\tK");
    }
  }

  @Test
  void updateCountsAreDuckDbs() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL);
        Statement statement = connection.createStatement()) {
      createTableAndView(connection);
      assertThat(statement.executeUpdate("INSERT INTO t VALUES (3, 'c'), (4, 'd'), (4, 'd')"))
          .isEqualTo(3);
      assertThat(statement.executeUpdate("UPDATE t SET v = 'x' WHERE k >= 2")).isEqualTo(4);
      assertThat(statement.execute("DELETE FROM t WHERE k = 4")).isFalse();
      assertThat(statement.getUpdateCount()).isEqualTo(2);
      refreshAndCheck(connection);
    }
  }

  @Test
  void explainRefreshShowsTheViewItsStrategiesPlanAndStatementsAndRefreshesNothing()
      throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      createTableAndView(connection);
      execute(connection, "INSERT INTO t VALUES (3, 'c')");
      List<String> lines = ViewCheck.rows(connection, "EXPLAIN REFRESH MATERIALIZED VIEW v");
      assertThat(lines.get(5))
          .startsWith(
              "refresh mode: incremental (ivm_refresh_mode = auto); for 1 change rows with"
                  + " deletes: BAG_COUNTED not measured yet, recompute ~")
          .contains("; past refreshes: FULL_RECOMPUTE 0 rows in ");
      lines.remove(5);
      assertThat(lines.remove(2)).isEqualTo("refreshed: deferred (by REFRESH MATERIALIZED VIEW)");
      assertThat(lines.subList(0, 6))
          .containsExactly(
              "materialized view: v",
              "query: " + VIEW_QUERY,
              "strategy: BAG_COUNTED (bag view: fan out net inserts, delete exactly the net deleted"
                  + " copies; BAG_APPEND when every change is an insert and"
                  + " ivm_skip_projection_delete is on)",
              "a refresh chooses among: BAG_COUNTED, BAG_APPEND; with the current settings and an"
                  + " insert-only change: BAG_APPEND, otherwise: BAG_COUNTED",
              "hidden columns: none",
              "pending change to t");
      // one table, no join: no expansion to show
      assertThat(lines).noneMatch(line -> line.startsWith("join expansion"));
      assertThat(lines.subList(6, 10))
          .containsExactly(
              "delta plan:",
              "  LogicalProject(k=[$0], big=[UPPER($1)], _ivm_weight=[$2])",
              "    LogicalFilter(condition=[>($0, 0)])",
              "      LogicalTableScan(table=[[_ivm, pending_1_1]])");
      assertThat(lines)
          .containsSubsequence(
              "refresh statements, in one transaction:",
              "  find the pending change:",
              "  per changed table that other views read too: seal its captured rows",
              "  (the merge reads each table's change through the view's pending view of it, created"
                  + " with the view, e.g.",
              "  merge when BAG_COUNTED:",
              "  merge when BAG_APPEND:",
              "  advance the view's watermarks, delete the change rows every reader has consumed,"
                  + " record the refresh");
      assertThat(lines.get(lines.size() - 1)).startsWith("  advance the view's watermarks");
      execute(connection, "SET ivm_skip_projection_delete = false");
      assertThat(ViewCheck.rows(connection, "EXPLAIN REFRESH MATERIALIZED VIEW v"))
          .contains(
              "a refresh chooses among: BAG_COUNTED, BAG_APPEND; with the current settings and an"
                  + " insert-only change: BAG_COUNTED, otherwise: BAG_COUNTED");
      // EXPLAIN refreshed nothing: the view still has its rows of before the insert
      assertThat(ViewCheck.rows(connection, "SELECT * FROM v ORDER BY k"))
          .containsExactly("1\tA", "2\tB");
      refreshAndCheck(connection);
    }
  }

  @Test
  void explainAnalyzeRefreshRefreshesAndTimesEachStatement() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      createTableAndView(connection);
      // a second reader of t: the refresh must seal t's rows for it
      execute(connection, "CREATE MATERIALIZED VIEW w AS SELECT k FROM t WHERE k > 1");
      execute(connection, "INSERT INTO t VALUES (3, 'c'), (4, 'd')");
      execute(connection, "DELETE FROM t WHERE k = 1");
      List<String> lines = explainAnalyze(connection, "v");
      assertThat(lines.get(0)).startsWith("refresh of v: ").contains("3 change rows consumed");
      assertThat(lines).anyMatch(l -> l.contains("ms  seal the change of"));
      assertThat(lines).anyMatch(l -> l.contains("ms  merge ("));
      assertThat(lines.get(lines.size() - 1))
          .endsWith("ms  the commit, and the driver's work between statements");
      ViewCheck.assertMatches(connection, "v", VIEW_QUERY, "after EXPLAIN ANALYZE REFRESH");
      assertThat(explainAnalyze(connection, "v").get(0)).contains("(nothing pending)");
      execute(connection, "REFRESH MATERIALIZED VIEW w");
      ViewCheck.assertMatches(connection, "w", "SELECT k FROM t WHERE k > 1", "second reader");
    }
  }

  @Test
  void preparedWriteIsRefusedOnceViewsChangeHowItIsCaptured() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      execute(connection, "CREATE TABLE p (k INTEGER, v VARCHAR, note VARCHAR)");
      PreparedStatement insert = connection.prepareStatement("INSERT INTO p VALUES (?, ?, 'n')");
      PreparedStatement touchNote = connection.prepareStatement("UPDATE p SET note = ?");
      insert.setInt(1, 1);
      insert.setString(2, "a");
      assertThat(insert.executeUpdate()).isEqualTo(1);
      execute(connection, "CREATE MATERIALIZED VIEW pv AS SELECT k, v FROM p");
      // prepared before p was tracked, it would write p without capturing the change
      insert.setInt(1, 2);
      insert.setString(2, "b");
      assertThatThrownBy(insert::executeUpdate)
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("prepare it again");
      // setting a column no view reads is captured by nobody before or after
      touchNote.setString(1, "x");
      assertThat(touchNote.executeUpdate()).isEqualTo(1);
      PreparedStatement again = connection.prepareStatement("INSERT INTO p VALUES (?, ?, 'n')");
      again.setInt(1, 3);
      again.setString(2, "c");
      assertThat(again.executeUpdate()).isEqualTo(1);
      assertThatThrownBy(again::executeQuery).hasMessageContaining("returns no result set");
      execute(connection, "CREATE MATERIALIZED VIEW notes AS SELECT note FROM p");
      touchNote.setString(1, "y");
      assertThatThrownBy(touchNote::executeUpdate).hasMessageContaining("prepare it again");
      execute(connection, "REFRESH MATERIALIZED VIEW pv");
      ViewCheck.assertMatches(connection, "pv", "SELECT k, v FROM p", "prepared writes");
      ViewCheck.assertMatches(connection, "notes", "SELECT note FROM p", "prepared writes");
      try (Statement statement = connection.createStatement();
          ResultSet rows =
              statement.executeQuery(
                  "SELECT count(*) FILTER (WHERE note = 'x'), count(*) FILTER (WHERE note = 'y'),"
                      + " count(*) FROM p")) {
        rows.next();
        // the refused statements wrote nothing
        assertThat(List.of(rows.getLong(1), rows.getLong(2), rows.getLong(3)))
            .containsExactly(1L, 0L, 2L);
      }
    }
  }

  @Test
  void aRefreshWithNoNewCaptureSkipsTheDatabaseButNeverACommittedWrite(@TempDir Path dir)
      throws SQLException {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("skip.duckdb");
    try (Connection writer = DriverManager.getConnection(url);
        Connection refresher = DriverManager.getConnection(url)) {
      createTableAndView(writer);
      execute(refresher, "REFRESH MATERIALIZED VIEW v");
      // nothing captured since: the refresh runs no statement at all
      assertThat(explainAnalyze(refresher, "v")).hasSize(1).first().asString().contains("nothing");
      // a write in a transaction that is still open when the view is refreshed ...
      writer.setAutoCommit(false);
      execute(writer, "INSERT INTO t VALUES (5, 'e')");
      execute(refresher, "REFRESH MATERIALIZED VIEW v");
      execute(refresher, "REFRESH MATERIALIZED VIEW v");
      // ... is refreshed once it commits, through JDBC or SQL
      writer.commit();
      execute(refresher, "REFRESH MATERIALIZED VIEW v");
      ViewCheck.assertMatches(refresher, "v", VIEW_QUERY, "after the commit");
      writer.setAutoCommit(true);
      execute(writer, "BEGIN");
      execute(writer, "DELETE FROM t WHERE k = 1");
      execute(refresher, "REFRESH MATERIALIZED VIEW v");
      execute(writer, "COMMIT");
      execute(refresher, "REFRESH MATERIALIZED VIEW v");
      ViewCheck.assertMatches(refresher, "v", VIEW_QUERY, "after SQL COMMIT");
      // turning auto-commit back on commits too
      writer.setAutoCommit(false);
      execute(writer, "UPDATE t SET v = 'z' WHERE k = 2");
      execute(refresher, "REFRESH MATERIALIZED VIEW v");
      writer.setAutoCommit(true);
      execute(refresher, "REFRESH MATERIALIZED VIEW v");
      ViewCheck.assertMatches(refresher, "v", VIEW_QUERY, "after setAutoCommit(true)");
      // and a prepared write in auto-commit mode
      try (PreparedStatement insert = writer.prepareStatement("INSERT INTO t VALUES (?, 'p')")) {
        insert.setInt(1, 7);
        insert.executeUpdate();
      }
      execute(refresher, "REFRESH MATERIALIZED VIEW v");
      ViewCheck.assertMatches(refresher, "v", VIEW_QUERY, "after a prepared write");
    }
  }

  private static List<String> explainAnalyze(Connection connection, String view)
      throws SQLException {
    List<String> lines = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet result =
            statement.executeQuery("EXPLAIN ANALYZE REFRESH MATERIALIZED VIEW " + view)) {
      while (result.next()) {
        lines.add(result.getString(1));
      }
    }
    return lines;
  }

  private static Connection connect(String property, String value) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty(property, value);
    return DriverManager.getConnection(URL, properties);
  }

  /** Table t with rows (1, 'a') and (2, 'b') and view v over it. */
  private static void createTableAndView(Connection connection) throws SQLException {
    execute(connection, "CREATE TABLE t (k INTEGER, v VARCHAR)");
    execute(connection, "INSERT INTO t VALUES (1, 'a'), (2, 'b')");
    execute(connection, "CREATE MATERIALIZED VIEW v AS " + VIEW_QUERY);
  }

  private static void refreshAndCheck(Connection connection) throws SQLException {
    execute(connection, "REFRESH MATERIALIZED VIEW v");
    ViewCheck.assertMatches(connection, "v", VIEW_QUERY, "after refresh");
  }

  private static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
