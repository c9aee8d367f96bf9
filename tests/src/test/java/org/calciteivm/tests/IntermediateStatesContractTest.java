package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What EXPLAIN REFRESH says of a view that keeps intermediate states: the hidden views it reads,
 * with their queries, before its own plan; and the catalog's record of their owner. The maintained
 * content is checked by intermediate_states.test and RandomizedNestedViewsTest.
 */
class IntermediateStatesContractTest {
  @Test
  void explainListsTheHiddenViewsBeforeTheViewsPlan() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      s.execute("CREATE TABLE t (k INTEGER, x INTEGER)");
      s.execute("INSERT INTO t VALUES (1, 1), (1, 2), (2, 5)");
      s.execute(
          "CREATE MATERIALIZED VIEW h AS SELECT n, COUNT(*) AS k FROM"
              + " (SELECT k, COUNT(*) AS n FROM (SELECT DISTINCT k, x FROM t) d GROUP BY k) q"
              + " GROUP BY n");
      List<String> lines = ViewCheck.rows(connection, "EXPLAIN REFRESH MATERIALIZED VIEW h");
      assertThat(lines.subList(0, 5))
          .containsExactly(
              "materialized view: h",
              "query: SELECT n, COUNT(*) AS k FROM (SELECT k, COUNT(*) AS n FROM"
                  + " (SELECT DISTINCT k, x FROM t) d GROUP BY k) q GROUP BY n",
              "refreshed: deferred (by REFRESH MATERIALIZED VIEW)",
              "reads hidden view \"_ivm\".\"node_2_1\" (an intermediate state, refreshed first):"
                  + " SELECT DISTINCT k, x FROM t",
              "reads hidden view \"_ivm\".\"node_1_1\" (an intermediate state, refreshed first):"
                  + " SELECT k, COUNT(*) AS n FROM (SELECT DISTINCT k, x FROM t) d GROUP BY k");
      assertThat(
              ViewCheck.rows(
                  connection,
                  "SELECT view_name || ' ' || coalesce(owner_view_id::VARCHAR, '-')"
                      + " FROM _ivm.views ORDER BY view_id"))
          .containsExactly("h -", "node_1_1 1", "node_2_1 2");
      assertThat(ViewCheck.rows(connection, "SELECT * FROM h"))
          .containsExactlyInAnyOrder("1\t1", "2\t1");
    }
  }

  @Test
  void explainShowsEachHiddenViewsPlanAndAnalyzeItsStatements() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = connection.createStatement()) {
      s.execute("CREATE TABLE t (k INTEGER, x INTEGER)");
      s.execute("INSERT INTO t VALUES (1, 1), (1, 2), (2, 5)");
      s.execute("CREATE MATERIALIZED VIEW d AS SELECT k, COUNT(DISTINCT x) AS n FROM t GROUP BY k");
      List<String> lines = ViewCheck.rows(connection, "EXPLAIN REFRESH MATERIALIZED VIEW d");
      int hidden = lines.indexOf("hidden view \"_ivm\".\"node_1_1\", refreshed first:");
      assertThat(hidden).isPositive();
      assertThat(lines.subList(hidden + 1, lines.size()))
          .startsWith(
              "  materialized view: node_1_1",
              "  query: SELECT k AS \"key_1\", x AS \"distinct_value\" FROM t GROUP BY k, x")
          .contains("  delta plan:");
      s.execute("INSERT INTO t VALUES (3, 3)");
      List<String> analyzed =
          ViewCheck.rows(connection, "EXPLAIN ANALYZE REFRESH MATERIALIZED VIEW d");
      assertThat(analyzed.get(1))
          .endsWith(
              "refresh hidden view \"_ivm\".\"node_1_1\", a subquery this view reads (1 change rows)");
      assertThat(analyzed.get(2)).endsWith("  | find the pending change");
      assertThat(ViewCheck.rows(connection, "SELECT * FROM d"))
          .containsExactlyInAnyOrder("1\t2", "2\t1", "3\t1");
    }
  }
}
