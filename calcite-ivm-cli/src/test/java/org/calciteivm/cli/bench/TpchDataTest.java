package org.calciteivm.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tests {@link TpchData} on one database of scale factor 0.01, generated once for the class. */
class TpchDataTest {
  private static final double SCALE_FACTOR = 0.01;
  private static final double HOLDOUT_FRACTION = 0.1;

  @TempDir static Path dataDir;

  private static Path database;
  private static final List<String> phases = new ArrayList<>();

  @BeforeAll
  static void generate() throws IOException, SQLException {
    database =
        TpchData.ensureDatabase(
            dataDir,
            SCALE_FACTOR,
            HOLDOUT_FRACTION,
            (phase, done, total) -> {
              if (phases.isEmpty() || !phases.get(phases.size() - 1).equals(phase)) {
                phases.add(phase);
              }
            });
  }

  @Test
  void namesTheFileAfterScaleFactorAndFraction() {
    assertThat(database)
        .isEqualTo(dataDir.resolve("tpch-sf0.01-holdout0.1-v2.duckdb"))
        .isRegularFile();
    assertThat(dataDir.resolve("tpch-sf0.01-holdout0.1-v2.duckdb.partial")).doesNotExist();
    assertThat(TpchData.fileName(1, 0.01)).isEqualTo("tpch-sf1-holdout0.01-v2.duckdb");
    assertThat(TpchData.fileName(10.0, 0)).isEqualTo("tpch-sf10-holdout0-v2.duckdb");
  }

  @Test
  void reportsEachTableThenAnalyzeAndCheckpoint() {
    assertThat(phases)
        .containsExactly(
            "generate region",
            "load region",
            "generate nation",
            "load nation",
            "generate part",
            "load part",
            "generate supplier",
            "load supplier",
            "generate partsupp",
            "load partsupp",
            "generate customer",
            "load customer",
            "generate orders",
            "load orders",
            "generate lineitem",
            "load lineitem",
            "analyze",
            "checkpoint");
  }

  @Test
  void loadsEveryGeneratedRowExactlyOnce() throws SQLException {
    try (Connection connection = open(database)) {
      assertThat(count(connection, "region")).isEqualTo(generatedRows(TpchTable.REGION));
      assertThat(count(connection, "nation")).isEqualTo(generatedRows(TpchTable.NATION));
      assertThat(count(connection, "part")).isEqualTo(generatedRows(TpchTable.PART));
      assertThat(count(connection, "supplier")).isEqualTo(generatedRows(TpchTable.SUPPLIER));
      assertThat(count(connection, "partsupp")).isEqualTo(generatedRows(TpchTable.PART_SUPPLIER));
      assertThat(count(connection, "customer")).isEqualTo(generatedRows(TpchTable.CUSTOMER));
      long orders = generatedRows(TpchTable.ORDERS);
      long heldOut = count(connection, "holdout_orders");
      assertThat(count(connection, "orders") + heldOut).isEqualTo(orders);
      assertThat(count(connection, "lineitem") + count(connection, "holdout_lineitem"))
          .isEqualTo(generatedRows(TpchTable.LINE_ITEM));
      // Each order is held out independently: close to the fraction, not exactly it.
      assertThat((double) heldOut / orders).isBetween(0.08, 0.12);
    }
  }

  @Test
  void holdsOutWholeOrdersSpreadOverTheKeyRange() throws SQLException {
    try (Connection connection = open(database)) {
      assertThat(
              query(
                  connection, "SELECT count(*) FROM orders JOIN holdout_orders USING (o_orderkey)"))
          .isEqualTo("0");
      assertThat(
              query(
                  connection,
                  "SELECT count(*) FROM lineitem"
                      + " WHERE l_orderkey IN (SELECT o_orderkey FROM holdout_orders)"))
          .isEqualTo("0");
      assertThat(
              query(
                  connection,
                  "SELECT count(*) FROM holdout_lineitem"
                      + " WHERE l_orderkey NOT IN (SELECT o_orderkey FROM holdout_orders)"))
          .isEqualTo("0");
      // The ranks are 1..n, and the first tenth by rank already spans most of the key range.
      assertThat(
              query(
                  connection,
                  "SELECT count(*) = max(holdout_rank) AND count(DISTINCT holdout_rank) = count(*)"
                      + " AND min(holdout_rank) = 1 FROM holdout_orders"))
          .isEqualTo("true");
      assertThat(
              query(
                  connection,
                  "SELECT (max(o_orderkey) - min(o_orderkey))"
                      + " / (SELECT max(o_orderkey) FROM orders) > 0.8 FROM holdout_orders"
                      + " WHERE holdout_rank <= (SELECT count(*) / 10 FROM holdout_orders)"))
          .isEqualTo("true");
    }
  }

  @Test
  void declaresPrimaryAndForeignKeys() throws SQLException {
    try (Connection connection = open(database);
        Statement statement = connection.createStatement();
        ResultSet rs =
            statement.executeQuery(
                "SELECT table_name, constraint_type, constraint_column_names::VARCHAR,"
                    + " referenced_table, referenced_column_names::VARCHAR"
                    + " FROM duckdb_constraints()"
                    + " WHERE constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')")) {
      List<String> constraints = new ArrayList<>();
      while (rs.next()) {
        constraints.add(
            rs.getString(1)
                + " "
                + rs.getString(2)
                + " "
                + rs.getString(3)
                + (rs.getString(4) == null
                    ? ""
                    : " -> " + rs.getString(4) + " " + rs.getString(5)));
      }
      assertThat(constraints)
          .containsExactlyInAnyOrder(
              "region PRIMARY KEY [r_regionkey]",
              "nation PRIMARY KEY [n_nationkey]",
              "nation FOREIGN KEY [n_regionkey] -> region [r_regionkey]",
              "part PRIMARY KEY [p_partkey]",
              "supplier PRIMARY KEY [s_suppkey]",
              "supplier FOREIGN KEY [s_nationkey] -> nation [n_nationkey]",
              "partsupp PRIMARY KEY [ps_partkey, ps_suppkey]",
              "partsupp FOREIGN KEY [ps_partkey] -> part [p_partkey]",
              "partsupp FOREIGN KEY [ps_suppkey] -> supplier [s_suppkey]",
              "customer PRIMARY KEY [c_custkey]",
              "customer FOREIGN KEY [c_nationkey] -> nation [n_nationkey]",
              "orders PRIMARY KEY [o_orderkey]",
              "orders FOREIGN KEY [o_custkey] -> customer [c_custkey]",
              "lineitem PRIMARY KEY [l_orderkey, l_linenumber]",
              "lineitem FOREIGN KEY [l_orderkey] -> orders [o_orderkey]",
              "lineitem FOREIGN KEY [l_partkey, l_suppkey] -> partsupp [ps_partkey, ps_suppkey]");
    }
  }

  @Test
  void usesTheStandardColumnsAndTypes() throws SQLException {
    try (Connection connection = open(database)) {
      assertThat(describe(connection, "lineitem"))
          .containsExactly(
              "l_orderkey BIGINT",
              "l_partkey BIGINT",
              "l_suppkey BIGINT",
              "l_linenumber INTEGER",
              "l_quantity DECIMAL(15,2)",
              "l_extendedprice DECIMAL(15,2)",
              "l_discount DECIMAL(15,2)",
              "l_tax DECIMAL(15,2)",
              "l_returnflag VARCHAR",
              "l_linestatus VARCHAR",
              "l_shipdate DATE",
              "l_commitdate DATE",
              "l_receiptdate DATE",
              "l_shipinstruct VARCHAR",
              "l_shipmode VARCHAR",
              "l_comment VARCHAR");
      assertThat(describe(connection, "holdout_lineitem"))
          .isEqualTo(describe(connection, "lineitem"));
      List<String> orders = describe(connection, "orders");
      assertThat(orders)
          .containsExactly(
              "o_orderkey BIGINT",
              "o_custkey BIGINT",
              "o_orderstatus VARCHAR",
              "o_totalprice DECIMAL(15,2)",
              "o_orderdate DATE",
              "o_orderpriority VARCHAR",
              "o_clerk VARCHAR",
              "o_shippriority INTEGER",
              "o_comment VARCHAR");
      List<String> holdoutOrders = new ArrayList<>(orders);
      holdoutOrders.add("holdout_rank BIGINT");
      assertThat(describe(connection, "holdout_orders")).isEqualTo(holdoutOrders);
      assertThat(describe(connection, "partsupp"))
          .containsExactly(
              "ps_partkey BIGINT",
              "ps_suppkey BIGINT",
              "ps_availqty INTEGER",
              "ps_supplycost DECIMAL(15,2)",
              "ps_comment VARCHAR");
      assertThat(
              query(
                  connection,
                  "SELECT count(*) FROM duckdb_columns() WHERE NOT internal AND is_nullable"))
          .isEqualTo("0");
    }
  }

  @Test
  void storesExactlyTheGeneratorsValues() throws SQLException {
    try (Connection connection = open(database)) {
      for (TpchTable<?> table : TpchTable.getTables()) {
        String name = table.getTableName();
        String rows =
            switch (name) {
              case "orders" ->
                  "FROM orders UNION ALL SELECT * EXCLUDE (holdout_rank) FROM holdout_orders";
              // dbgen writes quantities as integers.
              case "lineitem" ->
                  "SELECT * REPLACE (CAST(l_quantity AS BIGINT) AS l_quantity)"
                      + " FROM (FROM lineitem UNION ALL FROM holdout_lineitem)";
              default -> "FROM " + name;
            };
        // dbgen's own text format: values separated and ended by '|', two decimals, ISO dates.
        List<String> stored = new ArrayList<>();
        try (Statement statement = connection.createStatement();
            ResultSet rs =
                statement.executeQuery(
                    "SELECT concat_ws('|', *COLUMNS(*)) || '|' FROM (" + rows + ")")) {
          while (rs.next()) {
            stored.add(rs.getString(1));
          }
        }
        List<String> generated = generatedLines(table);
        // Sorted rather than compared as bags, which AssertJ does in quadratic time.
        Collections.sort(stored);
        Collections.sort(generated);
        assertThat(stored).as(name).isEqualTo(generated);
      }
    }
  }

  @Test
  void reusesAnExistingDatabase() throws IOException, SQLException {
    FileTime modified = Files.getLastModifiedTime(database);

    Path again =
        TpchData.ensureDatabase(
            dataDir,
            SCALE_FACTOR,
            HOLDOUT_FRACTION,
            (phase, done, total) -> fail("regenerates: " + phase));

    assertThat(again).isEqualTo(database);
    assertThat(Files.getLastModifiedTime(again)).isEqualTo(modified);
  }

  @Test
  void generatesTheSameDataAgainOverAnInterruptedGeneration(@TempDir Path otherDir)
      throws IOException, SQLException {
    // What an interrupted generation leaves behind.
    Files.writeString(otherDir.resolve("tpch-sf0.01-holdout0.1-v2.duckdb.partial"), "garbage");

    Path other = TpchData.ensureDatabase(otherDir, SCALE_FACTOR, HOLDOUT_FRACTION, (p, d, t) -> {});

    try (Connection connection = open(database);
        Statement statement = connection.createStatement()) {
      statement.execute("ATTACH '" + other + "' AS other (READ_ONLY)");
      for (String table :
          List.of(
              "region",
              "nation",
              "part",
              "supplier",
              "partsupp",
              "customer",
              "orders",
              "lineitem",
              "holdout_orders",
              "holdout_lineitem")) {
        assertThat(
                query(
                    connection,
                    "SELECT (SELECT count(*) FROM (FROM "
                        + table
                        + " EXCEPT ALL FROM other."
                        + table
                        + ")) + (SELECT count(*) FROM (FROM other."
                        + table
                        + " EXCEPT ALL FROM "
                        + table
                        + "))"))
            .as(table)
            .isEqualTo("0");
      }
      statement.execute("DETACH other");
    }
  }

  private static Connection open(Path file) throws SQLException {
    return DriverManager.getConnection("jdbc:duckdb:" + file);
  }

  private static long count(Connection connection, String table) throws SQLException {
    return Long.parseLong(query(connection, "SELECT count(*) FROM " + table));
  }

  private static String query(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      assertThat(rs.next()).as(sql).isTrue();
      return rs.getString(1);
    }
  }

  /** The columns of a table as {@code "name TYPE"}, in order. */
  private static List<String> describe(Connection connection, String table) throws SQLException {
    List<String> columns = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery("DESCRIBE " + table)) {
      while (rs.next()) {
        columns.add(rs.getString("column_name") + " " + rs.getString("column_type"));
      }
    }
    return columns;
  }

  private static long generatedRows(TpchTable<?> table) {
    return generatedLines(table).size();
  }

  /** The rows of a table in dbgen's text format, as the generator produces them. */
  private static <E extends TpchEntity> List<String> generatedLines(TpchTable<E> table) {
    List<String> lines = new ArrayList<>();
    for (E row : table.createGenerator(SCALE_FACTOR, 1, 1)) {
      lines.add(row.toLine());
    }
    return lines;
  }
}
