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

  private static final String GROUP_MERGE_STRATEGY =
      "strategy: GROUP_MERGE (aggregate view: one MERGE of each touched group's state change;"
          + " GROUP_APPEND (no empty-group delete) when every change is an insert and"
          + " ivm_skip_aggregate_delete is on)";

  @Test
  void explainNamesGroupMergeAndHiddenColumns() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      createTable(connection);
      execute(connection, "CREATE MATERIALIZED VIEW g AS " + GROUPED);
      execute(connection, "INSERT INTO t VALUES ('c', 3)");
      String appendWhenInserts =
          "a refresh chooses among: GROUP_MERGE, GROUP_APPEND; with the current settings and an"
              + " insert-only change: GROUP_APPEND, otherwise: GROUP_MERGE";
      // SUM(x): a sum and a non-null count; COUNT(*): the row count; AVG(x): SUM(x)'s columns
      String hidden = "hidden columns: _ivm_count, a1_sum, a1_count";
      assertThat(explain(connection, "g"))
          .containsSubsequence("query: " + GROUPED, GROUP_MERGE_STRATEGY, appendWhenInserts, hidden)
          .contains("  merge when GROUP_MERGE:", "  merge when GROUP_APPEND:")
          .doesNotContain("  merge when GROUP_RECOMPUTE:");
      execute(connection, "DELETE FROM t WHERE k = 'a'");
      assertThat(explain(connection, "g"))
          .contains(GROUP_MERGE_STRATEGY, appendWhenInserts, hidden);
      execute(connection, "SET ivm_skip_aggregate_delete = false");
      assertThat(explain(connection, "g"))
          .contains(
              GROUP_MERGE_STRATEGY,
              "a refresh chooses among: GROUP_MERGE, GROUP_APPEND; with the current settings and an"
                  + " insert-only change: GROUP_MERGE, otherwise: GROUP_MERGE",
              hidden);
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
      String hidden = "hidden columns: _ivm_count, a1_min, a1_min_count, a2_max, a2_max_count";
      assertThat(explain(connection, "mm"))
          .anyMatch(
              line -> line.startsWith("strategy: GROUP_RECOMPUTE (aggregate view with MIN/MAX"))
          .contains(
              "a refresh chooses among: GROUP_MERGE, GROUP_APPEND, GROUP_RECOMPUTE; with the"
                  + " current settings and an insert-only change: GROUP_APPEND, otherwise:"
                  + " GROUP_RECOMPUTE",
              hidden)
          .containsSubsequence(
              "  merge when GROUP_MERGE:",
              "  merge when GROUP_APPEND:",
              "  merge when GROUP_RECOMPUTE:");
      execute(connection, "SET ivm_minmax_incremental = false");
      assertThat(explain(connection, "mm"))
          .contains(
              "a refresh chooses among: GROUP_MERGE, GROUP_APPEND, GROUP_RECOMPUTE; with the"
                  + " current settings and an insert-only change: GROUP_RECOMPUTE, otherwise:"
                  + " GROUP_RECOMPUTE",
              hidden);
      refreshAndCheck(connection, "mm", MIN_MAX);
    }
  }

  @Test
  void explainOfDistinctViewShowsHiddenColumns() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      createTable(connection);
      execute(connection, "CREATE MATERIALIZED VIEW d AS " + DISTINCT);
      execute(connection, "INSERT INTO t VALUES ('a', 9)");
      // DISTINCT is a group by every column: only the row count is hidden
      assertThat(explain(connection, "d"))
          .contains(GROUP_MERGE_STRATEGY, "hidden columns: _ivm_count")
          .containsSubsequence(
              "delta plan:",
              "  LogicalProject(k1=[$0], _ivm_count=[$1])",
              "    LogicalAggregate(group=[{0}], _ivm_count=[SUM($1)])");
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
    assertThat(lines).doesNotContainNull();
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
