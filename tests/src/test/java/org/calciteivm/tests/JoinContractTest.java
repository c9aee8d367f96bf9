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
 * The parts of the join views' contract that scenario scripts cannot express: which expansion
 * {@code ivm_join_strategy = auto} chooses, the terms and pruned terms EXPLAIN REFRESH shows, and
 * that a six-way join compiles under each strategy (its compile times are printed, not asserted:
 * speed is the benchmark's business).
 */
class JoinContractTest {
  private static final String URL = "jdbc:ivm:duckdb:";
  private static final String JOIN = "SELECT a.x, b.y FROM a JOIN b ON a.k = b.k";

  @Test
  void autoUsesInclusionExclusionForOneChangedInputAndTelescopingForMore() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      createTables(connection);
      execute(connection, "CREATE MATERIALIZED VIEW j AS " + JOIN);
      execute(connection, "INSERT INTO b VALUES (1, 11)");
      String oneChanged = explain(connection, "j");
      assertThat(oneChanged)
          .contains("join expansion: INCLUSION_EXCLUSION (ivm_join_strategy = auto)")
          .contains("  + a ⋈ Δb\n")
          .doesNotContain("Δa");
      execute(connection, "DELETE FROM a WHERE x = 2");
      String bothChanged = explain(connection, "j");
      assertThat(bothChanged)
          .contains("join expansion: TELESCOPING (ivm_join_strategy = auto)")
          .contains("  + Δa ⋈ b⁻\n  + a ⋈ Δb\n");
      execute(connection, "SET ivm_join_strategy = inclusion_exclusion");
      assertThat(explain(connection, "j"))
          .contains("join expansion: INCLUSION_EXCLUSION (ivm_join_strategy = inclusion_exclusion)")
          .contains("  + Δa ⋈ b\n  + a ⋈ Δb\n  - Δa ⋈ Δb\n");
      refreshAndCheck(connection, "j", JOIN);
    }
  }

  @Test
  void invalidStrategyIsRefusedAndLeavesTheSettingAsItWas() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      execute(connection, "SET ivm_join_strategy = telescoping");
      assertThatThrownBy(() -> execute(connection, "SET ivm_join_strategy = sideways"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("invalid value \"sideways\" for setting ivm_join_strategy")
          .hasMessageContaining("auto or inclusion_exclusion or telescoping");
      createTables(connection);
      execute(connection, "CREATE MATERIALIZED VIEW j AS " + JOIN);
      execute(connection, "INSERT INTO b VALUES (1, 11)");
      assertThat(explain(connection, "j"))
          .contains("join expansion: TELESCOPING (ivm_join_strategy = telescoping)");
    }
    Properties invalid = new Properties();
    invalid.setProperty("ivm_join_strategy", "never");
    assertThatThrownBy(() -> DriverManager.getConnection(URL, invalid))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("ivm_join_strategy");
  }

  @Test
  void explainShowsTheTermAForeignKeyLeavesOut() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      createOrdersAndItems(connection);
      execute(connection, "INSERT INTO orders VALUES (1, 'a')");
      execute(connection, "INSERT INTO items VALUES (1, 5)");
      String query = "SELECT o.cust, i.qty FROM orders o JOIN items i ON o.id = i.order_id";
      execute(connection, "CREATE MATERIALIZED VIEW lines AS " + query);
      execute(connection, "INSERT INTO orders VALUES (2, 'b')");
      execute(connection, "INSERT INTO items VALUES (2, 6), (1, 7)");
      // the terms of a change with deletes, then what an insert-only change leaves out
      assertThat(explain(connection, "lines"))
          .contains(
              "join expansion: TELESCOPING (ivm_join_strategy = auto); terms (Δt change, t current"
                  + " state, t⁻ previous state):\n"
                  + "  + Δorders ⋈ items⁻\n"
                  + "  + orders ⋈ Δitems\n"
                  + "  when every change is an insert: left out items⁻ ⋈ Δ(orders): FOREIGN KEY"
                  + " items(order_id) REFERENCES orders(id) and orders was only inserted into\n"
                  + "  when every change is a delete: left out items' ⋈ Δ(orders): FOREIGN KEY"
                  + " items(order_id) REFERENCES orders(id) and orders was only deleted from\n"
                  + "  an insert-only change can give rows of negative weight here: the append"
                  + " path consolidates them first\n"
                  + "delta plan:\n");
      refreshAndCheck(connection, "lines", query);
      // deleting an order with its items: the items' change joins the previous orders, alone
      execute(connection, "DELETE FROM items WHERE order_id = 2");
      execute(connection, "DELETE FROM orders WHERE id = 2");
      refreshAndCheck(connection, "lines", query);
      // without a declared key nothing is left out
      execute(connection, "CREATE TABLE loose (order_id INTEGER, qty INTEGER)");
      String looseQuery = "SELECT o.cust, l.qty FROM orders o JOIN loose l ON o.id = l.order_id";
      execute(connection, "CREATE MATERIALIZED VIEW loose_lines AS " + looseQuery);
      execute(connection, "INSERT INTO orders VALUES (3, 'c')");
      execute(connection, "INSERT INTO loose VALUES (3, 1)");
      assertThat(explain(connection, "loose_lines"))
          .contains("  + Δorders ⋈ loose⁻\n  + orders ⋈ Δloose\n")
          .doesNotContain("left out");
      refreshAndCheck(connection, "loose_lines", looseQuery);
    }
  }

  @Test
  void aForeignKeyLeavesATermOutThroughTheDistinctOfAnExistsSubquery() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      createOrdersAndItems(connection);
      execute(connection, "INSERT INTO orders VALUES (1, 'a'), (2, 'b')");
      execute(connection, "INSERT INTO items VALUES (1, 5), (2, 1)");
      String query =
          "SELECT id, cust FROM orders o WHERE EXISTS"
              + " (SELECT * FROM items i WHERE i.order_id = o.id AND i.qty > 2)";
      execute(connection, "CREATE MATERIALIZED VIEW busy AS " + query);
      execute(connection, "INSERT INTO orders VALUES (3, 'a')");
      execute(connection, "INSERT INTO items VALUES (3, 6), (2, 7)");
      // the items' distinct order keys are values of items.order_id: no previous one is a new order
      assertThat(explain(connection, "busy"))
          .contains(
              "when every change is an insert: left out items⁻ ⋈ Δ(orders): FOREIGN KEY"
                  + " items(order_id) REFERENCES orders(id) and orders was only inserted into")
          .contains(
              "when every change is a delete: left out items' ⋈ Δ(orders): FOREIGN KEY"
                  + " items(order_id) REFERENCES orders(id) and orders was only deleted from");
      refreshAndCheck(connection, "busy", query);
      execute(connection, "DELETE FROM items WHERE order_id = 1");
      execute(connection, "DELETE FROM orders WHERE id = 1");
      refreshAndCheck(connection, "busy", query);
    }
  }

  /**
   * Tables {@code orders (id, cust)} and {@code items (order_id, qty)}, items referencing orders.
   */
  private static void createOrdersAndItems(Connection connection) throws SQLException {
    execute(connection, "CREATE TABLE orders (id INTEGER PRIMARY KEY, cust VARCHAR)");
    execute(
        connection, "CREATE TABLE items (order_id INTEGER REFERENCES orders (id), qty INTEGER)");
  }

  @Test
  void aViewWhoseColumnsDetermineEveryPrimaryKeyDeletesByKey() throws SQLException {
    try (Connection connection = DriverManager.getConnection(URL)) {
      execute(connection, "CREATE TABLE o (id INTEGER PRIMARY KEY, c INTEGER)");
      execute(
          connection, "CREATE TABLE l (oid INTEGER, n INTEGER, q INTEGER, PRIMARY KEY (oid, n))");
      execute(connection, "INSERT INTO o VALUES (1, 10), (2, 20)");
      execute(connection, "INSERT INTO l VALUES (1, 1, 5), (1, 2, 6), (2, 1, 7)");
      // l's key (oid, n) is determined by o.id, equal to l.oid, and n
      String keyed = "SELECT o.id, o.c, l.q, l.n FROM o JOIN l ON o.id = l.oid";
      execute(connection, "CREATE MATERIALIZED VIEW keyed AS " + keyed);
      String unkeyed = "SELECT o.c, l.q FROM o JOIN l ON o.id = l.oid";
      execute(connection, "CREATE MATERIALIZED VIEW unkeyed AS " + unkeyed);
      execute(connection, "DELETE FROM l WHERE n = 2");
      assertThat(explain(connection, "keyed"))
          .contains(
              "SELECT rowid AS rid, \"id\", \"n\" FROM \"_ivm\".\"view_1_keyed\" WHERE \"id\" IN"
                  + " (SELECT \"c1\" FROM \"_ivm_view_delta_1\" WHERE \"_ivm_weight\" < 0)) AS d"
                  + " JOIN \"_ivm_view_delta_1\" AS v ON d.\"id\" = v.\"c1\" AND d.\"n\" = v.\"c4\"");
      // without every key determined, a deleted tuple is matched on every column
      assertThat(explain(connection, "unkeyed"))
          .contains("row_number() OVER (PARTITION BY v.rowid)")
          .doesNotContain("SELECT rowid AS rid");
      refreshAndCheck(connection, "keyed", keyed);
      refreshAndCheck(connection, "unkeyed", unkeyed);
    }
  }

  @Test
  void sixWayJoinCompilesUnderEachStrategy() throws SQLException {
    StringBuilder query = new StringBuilder("SELECT t1.k, t6.v FROM t1");
    for (int i = 2; i <= 6; i++) {
      query.append(" JOIN t").append(i).append(" ON t").append(i - 1).append(".k = t");
      query.append(i).append(".k");
    }
    try (Connection connection = DriverManager.getConnection(URL)) {
      for (int i = 1; i <= 6; i++) {
        execute(connection, "CREATE TABLE t" + i + " (k INTEGER, v INTEGER)");
        execute(connection, "INSERT INTO t" + i + " SELECT r % 5, r FROM range(20) t(r)");
      }
      execute(connection, "CREATE MATERIALIZED VIEW six AS " + query);
      for (String strategy : List.of("inclusion_exclusion", "telescoping")) {
        execute(connection, "SET ivm_join_strategy = " + strategy);
        for (int i = 1; i <= 6; i++) {
          execute(connection, "INSERT INTO t" + i + " VALUES (" + i % 5 + ", 100)");
          execute(connection, "DELETE FROM t" + i + " WHERE v = " + (i + 3));
        }
        long start = System.nanoTime();
        String explained = explain(connection, "six");
        long compiled = System.nanoTime() - start;
        List<String> terms = explained.lines().filter(l -> l.matches("  [+-] .*⋈.*")).toList();
        if (strategy.equals("telescoping")) {
          assertThat(terms)
              .containsExactly(
                  "  + Δt1 ⋈ t2⁻ ⋈ t3⁻ ⋈ t4⁻ ⋈ t5⁻ ⋈ t6⁻",
                  "  + t1 ⋈ Δt2 ⋈ t3⁻ ⋈ t4⁻ ⋈ t5⁻ ⋈ t6⁻",
                  "  + t1 ⋈ t2 ⋈ Δt3 ⋈ t4⁻ ⋈ t5⁻ ⋈ t6⁻",
                  "  + t1 ⋈ t2 ⋈ t3 ⋈ Δt4 ⋈ t5⁻ ⋈ t6⁻",
                  "  + t1 ⋈ t2 ⋈ t3 ⋈ t4 ⋈ Δt5 ⋈ t6⁻",
                  "  + t1 ⋈ t2 ⋈ t3 ⋈ t4 ⋈ t5 ⋈ Δt6");
        } else {
          // one term per non-empty subset of the six changed inputs, fewest changes first
          assertThat(terms)
              .hasSize(63)
              .startsWith("  + Δt1 ⋈ t2 ⋈ t3 ⋈ t4 ⋈ t5 ⋈ t6", "  + t1 ⋈ Δt2 ⋈ t3 ⋈ t4 ⋈ t5 ⋈ t6")
              .contains("  - Δt1 ⋈ Δt2 ⋈ t3 ⋈ t4 ⋈ t5 ⋈ t6", "  + Δt1 ⋈ Δt2 ⋈ Δt3 ⋈ t4 ⋈ t5 ⋈ t6")
              .endsWith("  - Δt1 ⋈ Δt2 ⋈ Δt3 ⋈ Δt4 ⋈ Δt5 ⋈ Δt6");
        }
        start = System.nanoTime();
        refreshAndCheck(connection, "six", query.toString());
        long refreshed = System.nanoTime() - start;
        System.out.printf(
            "JoinContractTest: six-way join, %s, all inputs changed: compile + explain %d ms,"
                + " refresh + check %d ms%n",
            strategy, compiled / 1_000_000, refreshed / 1_000_000);
      }
    }
  }

  private static void createTables(Connection connection) throws SQLException {
    execute(connection, "CREATE TABLE a (k INTEGER, x INTEGER)");
    execute(connection, "CREATE TABLE b (k INTEGER, y INTEGER)");
    execute(connection, "INSERT INTO a VALUES (1, 1), (1, 2), (NULL, 3)");
    execute(connection, "INSERT INTO b VALUES (1, 10), (2, 20), (NULL, 30)");
  }

  private static void refreshAndCheck(Connection connection, String view, String query)
      throws SQLException {
    execute(connection, "REFRESH MATERIALIZED VIEW " + view);
    ViewCheck.assertMatches(connection, view, query, "after refresh");
  }

  private static String explain(Connection connection, String view) throws SQLException {
    List<String> lines = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("EXPLAIN REFRESH MATERIALIZED VIEW " + view)) {
      while (rs.next()) {
        lines.add(rs.getString(1));
      }
    }
    return String.join("\n", lines) + "\n";
  }

  private static void execute(Connection connection, String sql) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute(sql);
    }
  }
}
