package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/**
 * The parts of the aggregate views' contract that scenario scripts cannot express: what EXPLAIN
 * REFRESH shows (the strategy and the hidden columns) and the settings of this slice as JDBC
 * connection properties.
 */
class AggContractTest {
  private static final String URL = "jdbc:ivm:duckdb:";
  private static final String GROUPED =
      "SELECT k, SUM(x) AS s, COUNT(*) AS n, AVG(x) AS a FROM t GROUP BY k";
  private static final String MIN_MAX = "SELECT k, MIN(x) AS lo, MAX(x) AS hi FROM t GROUP BY k";
  private static final String DISTINCT = "SELECT DISTINCT k FROM t";

  @Test
  void explainNamesGroupMergeAndHiddenColumns() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      createTable(connection);
      execute(connection, "CREATE MATERIALIZED VIEW g AS " + GROUPED);
      execute(connection, "INSERT INTO t VALUES ('c', 3)");
      assertGroupMerge(explain(connection, "g"));
      execute(connection, "DELETE FROM t WHERE k = 'a'");
      assertGroupMerge(explain(connection, "g"));
      execute(connection, "SET ivm_skip_aggregate_delete = false");
      assertGroupMerge(explain(connection, "g"));
      refreshAndCheck(connection, "g", GROUPED);
    }
  }

  @Test
  void explainMentionsGroupRecomputeForMinMax() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      createTable(connection);
      execute(connection, "CREATE MATERIALIZED VIEW mm AS " + MIN_MAX);
      execute(connection, "DELETE FROM t WHERE x = 2");
      execute(connection, "INSERT INTO t VALUES ('a', 0)");
      List<String> lines = explain(connection, "mm");
      assertThat(String.join("\n", lines)).contains("GROUP_RECOMPUTE");
      assertHiddenColumnsLine(lines);
      execute(connection, "SET ivm_minmax_incremental = false");
      assertThat(String.join("\n", explain(connection, "mm"))).contains("GROUP_RECOMPUTE");
      refreshAndCheck(connection, "mm", MIN_MAX);
    }
  }

  @Test
  void explainOfDistinctViewShowsHiddenColumns() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      createTable(connection);
      execute(connection, "CREATE MATERIALIZED VIEW d AS " + DISTINCT);
      execute(connection, "INSERT INTO t VALUES ('a', 9)");
      assertHiddenColumnsLine(explain(connection, "d"));
      refreshAndCheck(connection, "d", DISTINCT);
    }
  }

  @Test
  void aggregateSettingsAreConnectionProperties() throws SQLException {
    for (int combination = 0; combination < 8; combination++) {
      Properties properties = new Properties();
      properties.setProperty("ivm_skip_aggregate_delete", String.valueOf((combination & 1) != 0));
      properties.setProperty("ivm_minmax_incremental", String.valueOf((combination & 2) != 0));
      properties.setProperty("ivm_skip_projection_delete", String.valueOf((combination & 4) != 0));
      try (Connection connection = DriverManager.getConnection(URL, properties)) {
        createTable(connection);
        execute(connection, "CREATE MATERIALIZED VIEW g AS " + GROUPED);
        execute(connection, "CREATE MATERIALIZED VIEW mm AS " + MIN_MAX);
        execute(connection, "CREATE MATERIALIZED VIEW d AS " + DISTINCT);
        execute(connection, "INSERT INTO t VALUES ('a', 5), ('c', NULL)");
        refreshAll(connection);
        execute(connection, "DELETE FROM t WHERE x = 5");
        execute(connection, "UPDATE t SET k = 'a' WHERE k = 'b'");
        refreshAll(connection);
        assertThat(ViewCheck.rows(connection, "SELECT * FROM mm ORDER BY k"))
            .as("combination %d", combination)
            .containsExactly("a\t1\t2", "c\tNULL\tNULL");
      }
    }
    for (String setting : List.of("ivm_skip_aggregate_delete", "ivm_minmax_incremental")) {
      Properties properties = new Properties();
      properties.setProperty(setting, "maybe");
      assertThatThrownBy(() -> DriverManager.getConnection(URL, properties).close())
          .isInstanceOf(SQLException.class)
          .message()
          .containsIgnoringCase("invalid value");
    }
  }

  private static void assertGroupMerge(List<String> lines) {
    assertThat(String.join("\n", lines)).contains("GROUP_MERGE");
    assertHiddenColumnsLine(lines);
  }

  private static void assertHiddenColumnsLine(List<String> lines) {
    assertThat(lines)
        .as("a line starting 'hidden columns:'")
        .anyMatch(line -> line.strip().toLowerCase(Locale.ROOT).startsWith("hidden columns:"));
  }

  private static void refreshAll(Connection connection) throws SQLException {
    refreshAndCheck(connection, "g", GROUPED);
    refreshAndCheck(connection, "mm", MIN_MAX);
    refreshAndCheck(connection, "d", DISTINCT);
  }

  private static List<String> explain(Connection connection, String view) throws SQLException {
    List<String> lines = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("EXPLAIN REFRESH MATERIALIZED VIEW " + view)) {
      while (result.next()) {
        lines.add(result.getString(1));
      }
    }
    assertThat(lines).isNotEmpty().doesNotContainNull();
    return lines;
  }

  /** Table t (k VARCHAR, x INTEGER) with rows ('a', 1), ('a', 2) and ('b', 2). */
  private static void createTable(Connection connection) throws SQLException {
    execute(connection, "CREATE TABLE t (k VARCHAR, x INTEGER)");
    execute(connection, "INSERT INTO t VALUES ('a', 1), ('a', 2), ('b', 2)");
  }

  private static void refreshAndCheck(Connection connection, String view, String query)
      throws SQLException {
    execute(connection, "REFRESH MATERIALIZED VIEW " + view);
    ViewCheck.assertMatches(connection, view, query, "after refresh of " + view);
  }

  private static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }
}
