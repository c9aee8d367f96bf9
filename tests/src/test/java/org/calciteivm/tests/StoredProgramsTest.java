package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiled refresh programs live in the catalog: a database opened again (all connections of the
 * JVM closed, so nothing is left in memory, as in a new process) refreshes without planning the
 * view for every kind of change a process compiled before, and plans again only after what the
 * programs were compiled against changed (ALTER TABLE of a base table) or for a build of
 * calcite-ivm that did not compile them. {@code EXPLAIN ANALYZE REFRESH} says when it compiles.
 */
class StoredProgramsTest {
  private static final String COMPILES = "compile the delta program";
  private static final String READS = "read the view's refresh program from the catalog";
  private static final String QUERY =
      "SELECT c.region, SUM(o.amount) AS total, COUNT(*) AS n"
          + " FROM orders o JOIN customers c ON o.cust = c.id GROUP BY c.region";

  @TempDir Path dir;

  private String url() {
    return "jdbc:ivm:duckdb:" + dir.resolve("db.duckdb");
  }

  /** Runs {@code sql} in a connection of its own, the only one open: as a new process would. */
  private List<String> inNewProcess(String... sql) throws SQLException {
    // incremental: the refreshes here are to use (and compile) delta programs, whatever auto thinks
    Properties incremental = new Properties();
    incremental.setProperty("ivm_refresh_mode", "incremental");
    try (Connection c = DriverManager.getConnection(url(), incremental);
        Statement s = c.createStatement()) {
      List<String> last = new ArrayList<>();
      for (String statement : sql) {
        if (s.execute(statement)) {
          last.clear();
          try (ResultSet rs = s.getResultSet()) {
            while (rs.next()) {
              last.add(rs.getString(1));
            }
          }
        }
      }
      ViewCheck.assertMatches(c, "rev", QUERY, "after " + String.join("; ", sql));
      return last;
    }
  }

  private static final String EXPLAIN = "EXPLAIN ANALYZE REFRESH MATERIALIZED VIEW rev";

  @Test
  void aNewProcessRefreshesWithoutPlanning() throws SQLException {
    inNewProcess(
        "CREATE TABLE customers (id INTEGER PRIMARY KEY, region VARCHAR)",
        "CREATE TABLE orders (id INTEGER, cust INTEGER, amount DECIMAL(10,2))",
        "INSERT INTO customers VALUES (1, 'north'), (2, 'south')",
        "INSERT INTO orders VALUES (1, 1, 10), (2, 2, 20), (3, 1, 5)",
        "CREATE MATERIALIZED VIEW rev AS " + QUERY);

    // one table changed, with and without deletes: compiled by CREATE
    assertThat(inNewProcess("INSERT INTO orders VALUES (4, 2, 7)", EXPLAIN))
        .anyMatch(line -> line.contains(READS))
        .noneMatch(line -> line.contains(COMPILES));
    assertThat(inNewProcess("UPDATE orders SET amount = 1 WHERE id = 1", EXPLAIN))
        .noneMatch(line -> line.contains(COMPILES));

    // both tables changed: compiled by the first refresh that needs it, then stored
    String[] both = {
      "INSERT INTO customers VALUES (3, 'east')", "INSERT INTO orders VALUES (5, 3, 2)", EXPLAIN
    };
    assertThat(inNewProcess(both)).anyMatch(line -> line.contains(COMPILES));
    both[0] = "INSERT INTO customers VALUES (4, 'west')";
    both[1] = "INSERT INTO orders VALUES (6, 4, 3)";
    assertThat(inNewProcess(both)).noneMatch(line -> line.contains(COMPILES));
  }

  @Test
  void programsAreCompiledAgainAfterTheirBaseTableChanged() throws SQLException {
    inNewProcess(
        "CREATE TABLE customers (id INTEGER, region VARCHAR)",
        "CREATE TABLE orders (id INTEGER, cust INTEGER, amount DECIMAL(10,2))",
        "INSERT INTO customers VALUES (1, 'north')",
        "INSERT INTO orders VALUES (1, 1, 10)",
        "CREATE MATERIALIZED VIEW rev AS " + QUERY);
    inNewProcess("ALTER TABLE orders ADD COLUMN note VARCHAR");
    assertThat(inNewProcess("INSERT INTO orders VALUES (2, 1, 4, 'x')", EXPLAIN))
        .anyMatch(line -> line.contains(COMPILES));
    assertThat(inNewProcess("INSERT INTO orders VALUES (3, 1, 5, 'y')", EXPLAIN))
        .noneMatch(line -> line.contains(COMPILES));
  }

  @Test
  void programsOfAnotherBuildAreNotUsed() throws SQLException {
    inNewProcess(
        "CREATE TABLE customers (id INTEGER, region VARCHAR)",
        "CREATE TABLE orders (id INTEGER, cust INTEGER, amount DECIMAL(10,2))",
        "INSERT INTO customers VALUES (1, 'north')",
        "CREATE MATERIALIZED VIEW rev AS " + QUERY);
    // what an older build of calcite-ivm would have left (plain DuckDB, not the driver)
    try (Connection plain = DriverManager.getConnection("jdbc:duckdb:" + dir.resolve("db.duckdb"));
        Statement s = plain.createStatement()) {
      s.execute("UPDATE _ivm.programs SET build = '0.0.1 built long ago'");
    }
    assertThat(inNewProcess("INSERT INTO orders VALUES (1, 1, 3)", EXPLAIN))
        .anyMatch(line -> line.contains(COMPILES));
    assertThat(inNewProcess("SELECT count(*) FROM _ivm.programs WHERE build LIKE '0.0.1%'"))
        .containsExactly("0");
  }
}
