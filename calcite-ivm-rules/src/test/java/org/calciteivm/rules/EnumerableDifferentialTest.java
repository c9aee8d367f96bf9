package org.calciteivm.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.apache.calcite.rel.RelReferentialConstraintImpl;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.mapping.IntPair;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.rules.InMemoryTables.Column;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The delta rules are engine-independent: delta plans run on Calcite's enumerable engine over
 * in-memory tables ({@link InMemoryTables}) satisfy {@code V(old) + ΔV = V(new)} ({@link
 * IvmEquation}) for projection, aggregate and join views, under both join expansions and whichever
 * inputs changed. No DuckDB is involved: {@link InMemoryTables} says how a plan runs on the
 * enumerable engine.
 *
 * <p>Each join case is checked once per non-empty subset of its changed tables (one, two, all),
 * each aggregate case on the per-group state, and a randomized test draws tables, changes, views
 * and expansions ({@code -Divm.seed} replays it).
 *
 * <p>Tables: {@code r(a INTEGER, b VARCHAR, c DECIMAL(10,2))}, {@code s(a INTEGER, d VARCHAR)},
 * {@code u(d VARCHAR, e INTEGER)}, and {@code orders(id INTEGER NOT NULL, status VARCHAR)} with
 * {@code items(order_id INTEGER, qty INTEGER)} whose {@code order_id} references {@code orders.id}.
 */
class EnumerableDifferentialTest {
  private static final List<JoinStrategy> STRATEGIES =
      List.of(JoinStrategy.INCLUSION_EXCLUSION, JoinStrategy.TELESCOPING);

  private static InMemoryTables tables;
  private static IvmEquation equation;

  @BeforeAll
  static void createTables() throws SQLException {
    tables = new InMemoryTables();
    tables.create(
        "r",
        List.of(
            Column.of("a", SqlTypeName.INTEGER),
            Column.of("b", SqlTypeName.VARCHAR),
            Column.decimal("c", 10, 2)));
    tables.create(
        "s", List.of(Column.of("a", SqlTypeName.INTEGER), Column.of("d", SqlTypeName.VARCHAR)));
    tables.create(
        "u", List.of(Column.of("d", SqlTypeName.VARCHAR), Column.of("e", SqlTypeName.INTEGER)));
    tables.create(
        "orders",
        List.of(
            Column.of("id", SqlTypeName.INTEGER).withNotNull(),
            Column.of("status", SqlTypeName.VARCHAR)));
    tables.create(
        "items",
        List.of(Column.of("order_id", SqlTypeName.INTEGER), Column.of("qty", SqlTypeName.INTEGER)),
        RelReferentialConstraintImpl.of(
            List.of("main", "items"), List.of("main", "orders"), List.of(IntPair.of(0, 0))));
    equation = new IvmEquation(tables);
  }

  @AfterAll
  static void closeTables() throws SQLException {
    tables.close();
  }

  static List<Object> row(Object... values) {
    return Arrays.asList(values);
  }

  static BigDecimal dec(String value) {
    return new BigDecimal(value);
  }

  // ---- projections and filters: bags, so duplicates count

  @Test
  void filteredProjectionKeepsDuplicates() throws Exception {
    given()
        .rows(
            "r",
            row(1, "x", dec("1.50")),
            row(2, "x", dec("1.50")),
            row(2, "x", dec("1.50")),
            row(null, null, null),
            row(3, "y", dec("2.00")))
        // one of two equal rows goes, a third copy of another arrives
        .delete("r", row(2, "x", dec("1.50")))
        .insert("r", row(3, "y", dec("2.00")), row(3, "y", dec("2.00")))
        // updates into and out of the filter, and of NULLs
        .update("r", row(1, "x", dec("1.50")), row(2, "x", dec("1.50")))
        .update("r", row(null, null, null), row(null, "y", null))
        .comesAndGoes("r", row(4, "z", dec("9.99")))
        .check("SELECT b, c FROM r WHERE a >= 2 OR a IS NULL");
  }

  @Test
  void projectionOfExpressions() throws Exception {
    given()
        .rows("r", row(1, "x", dec("1.50")), row(1, "x", dec("1.50")), row(null, null, null))
        .delete("r", row(1, "x", dec("1.50")), row(null, null, null))
        .insert("r", row(null, "y", dec("-2.25")), row(5, null, dec("0.00")))
        .check("SELECT a + 1 AS a1, UPPER(b) AS ub, c * 2 AS c2, b IS NULL AS nb FROM r");
  }

  @Test
  void consolidatedChangeWithWeightsAboveOne() throws Exception {
    // a change need not have weights ±1: two copies deleted or inserted as one row
    given()
        .rows("r", row(1, "x", dec("1.00")), row(1, "x", dec("1.00")), row(2, "y", null))
        .weighted("r", row(1, "x", dec("1.00")), -2)
        .weighted("r", row(2, "y", null), 3)
        .check("SELECT * FROM r");
    given()
        .rows("r", row(1, "x", dec("1.00")), row(1, "x", dec("1.00")), row(2, "y", null))
        .weighted("r", row(1, "x", dec("1.00")), -2)
        .weighted("r", row(2, "y", dec("0.50")), 3)
        .check("SELECT b, SUM(c), COUNT(*), COUNT(c) FROM r GROUP BY b");
  }

  @Test
  void emptyChangeAndEmptyTables() throws Exception {
    given().check("SELECT b FROM r");
    given().rows("r", row(1, "x", dec("1.00"))).check("SELECT b FROM r");
    given().insert("r", row(1, "x", dec("1.00"))).check("SELECT SUM(c), COUNT(*) FROM r");
  }

  // ---- aggregates: the change of each group's state

  @Test
  void groupedAggregatesWithNullKeysAndAGroupThatEmpties() throws Exception {
    given()
        .rows(
            "r",
            row(1, "x", dec("1.50")),
            row(2, "x", null),
            row(3, null, dec("2.00")),
            row(null, null, dec("-1.00")),
            row(4, "y", dec("5.00")),
            row(4, "y", dec("5.00")),
            row(5, "w", null))
        // group y empties (both copies), group z appears, NULL group changes
        .delete("r", row(4, "y", dec("5.00")), row(4, "y", dec("5.00")))
        .insert("r", row(6, "z", dec("0.25")), row(null, null, null))
        .update("r", row(1, "x", dec("1.50")), row(1, "x", null))
        // w keeps its row but its SUM stays over NULLs only
        .insert("r", row(null, "w", null))
        .comesAndGoes("r", row(7, "v", dec("1.00")))
        .check("SELECT b, SUM(c), COUNT(*), COUNT(a), AVG(a), AVG(c), COUNT(c) FROM r GROUP BY b");
  }

  @Test
  void aggregateOverTwoKeysWithAFilter() throws Exception {
    given()
        .rows(
            "r",
            row(1, "x", dec("1.50")),
            row(1, "x", dec("2.50")),
            row(1, null, dec("3.00")),
            row(2, null, null))
        .delete("r", row(1, "x", dec("1.50")), row(2, null, null))
        .insert("r", row(1, null, dec("4.00")), row(null, "x", dec("1.00")))
        .update("r", row(1, "x", dec("2.50")), row(1, "x", dec("-2.50")))
        .check("SELECT a, b, SUM(c), COUNT(*) FROM r WHERE c > 0 OR c IS NULL GROUP BY a, b");
  }

  @Test
  void scalarAggregate() throws Exception {
    String sql = "SELECT SUM(c), COUNT(*), COUNT(c), AVG(a) FROM r";
    given()
        .rows("r", row(1, "x", dec("1.50")), row(2, "y", null), row(null, null, dec("2.00")))
        .delete("r", row(2, "y", null))
        .insert("r", row(3, "z", dec("-0.50")), row(null, null, null))
        .check(sql);
    // every row deleted: the one group disappears
    given()
        .rows("r", row(1, "x", dec("1.50")), row(2, "y", null))
        .delete("r", row(1, "x", dec("1.50")), row(2, "y", null))
        .check(sql);
    // a table that was empty
    given().insert("r", row(null, null, null), row(1, "x", dec("3.00"))).check(sql);
    // no change at all
    given().rows("r", row(1, "x", dec("1.50"))).check(sql);
  }

  @Test
  void groupingSetsKeyedByTheSet() throws Exception {
    String rollup =
        "SELECT a, b, SUM(c), COUNT(*), COUNT(c), GROUPING(a, b) FROM r GROUP BY ROLLUP (a, b)";
    String cube = "SELECT b, AVG(c), COUNT(a) FROM r WHERE a > 0 GROUP BY CUBE (a, b)";
    for (String sql : List.of(rollup, cube)) {
      given()
          .rows(
              "r",
              row(1, "x", dec("1.50")),
              row(1, null, dec("2.00")),
              row(null, "x", null),
              row(2, "y", dec("5.00")))
          .delete("r", row(2, "y", dec("5.00")))
          .insert("r", row(2, null, dec("0.25")), row(null, null, null))
          .update("r", row(1, "x", dec("1.50")), row(1, "y", dec("1.50")))
          .comesAndGoes("r", row(3, "v", dec("1.00")))
          .check(sql);
      // not over an empty table: Calcite's Enumerable gives the empty set no row over no input,
      // where SQL and DuckDB give one (grouping_sets.test checks that case in DuckDB)
    }
  }

  // ---- joins: every subset of the changed inputs, both expansions

  @Test
  void twoWayJoin() throws Exception {
    joinData().checkEachSubset("SELECT r.b, s.d, r.c FROM r JOIN s ON r.a = s.a");
  }

  @Test
  void threeWayJoin() throws Exception {
    joinData()
        .checkEachSubset("SELECT r.b, s.d, u.e FROM r JOIN s ON r.a = s.a JOIN u ON s.d = u.d");
  }

  @Test
  void threeWayJoinOnOneColumn() throws Exception {
    // r and s joined on a, u joined to r's column: a different tree of the same tables
    joinData()
        .checkEachSubset(
            "SELECT r.a, u.e FROM s JOIN r ON r.a = s.a JOIN u ON r.b = u.d WHERE u.e > 0");
  }

  @Test
  void selfJoin() throws Exception {
    joinData().checkEachSubset("SELECT x.b, y.c FROM r x JOIN r y ON x.a = y.a");
    joinData()
        .checkEachSubset(
            "SELECT x.a, y.b FROM r x JOIN r y ON x.a = y.a JOIN r z ON y.b = z.b"
                + " WHERE x.c < z.c");
  }

  @Test
  void joinWithFilters() throws Exception {
    joinData()
        .checkEachSubset("SELECT r.a, s.d FROM r JOIN s ON r.a = s.a WHERE r.c > 1 AND s.d <> 'y'");
    joinData()
        .checkEachSubset(
            "SELECT r.b, s.d FROM r, s WHERE r.a = s.a AND (r.b = s.d OR r.b IS NULL)");
  }

  @Test
  void aggregateOverAJoin() throws Exception {
    joinData()
        .checkEachSubset(
            "SELECT s.d, SUM(r.c), COUNT(*), COUNT(r.b), AVG(r.a) FROM r JOIN s ON r.a = s.a"
                + " GROUP BY s.d");
    joinData()
        .checkEachSubset(
            "SELECT COUNT(*), SUM(u.e) FROM r JOIN s ON r.a = s.a JOIN u ON s.d = u.d");
  }

  @Test
  void outerJoins() throws Exception {
    joinData().checkEachSubset("SELECT r.b, s.d, r.c FROM r LEFT JOIN s ON r.a = s.a");
    joinData().checkEachSubset("SELECT r.b, s.d FROM r RIGHT JOIN s ON r.a = s.a AND r.c > 1");
    joinData().checkEachSubset("SELECT r.a, s.a AS sa FROM r FULL JOIN s ON r.a = s.a");
    joinData()
        .checkEachSubset(
            "SELECT r.b, u.e FROM r LEFT JOIN s ON r.a = s.a AND s.d <> 'y'"
                + " LEFT JOIN u ON s.d = u.d");
    joinData().checkEachSubset("SELECT r.b FROM r LEFT JOIN s ON r.a = s.a WHERE s.a IS NULL");
    joinData()
        .checkEachSubset(
            "SELECT s.d, COUNT(*), COUNT(r.b), SUM(r.c) FROM r RIGHT JOIN s"
                + " ON r.b IS NOT DISTINCT FROM s.d GROUP BY s.d");
  }

  @Test
  void foreignKeyPruningKeepsTheEquation() throws Exception {
    // orders only gains rows, and every item references an order: items⁻ ⋈ Δorders is empty
    Scenario scenario =
        given()
            .rows("orders", row(1, "open"), row(2, "done"))
            .rows("items", row(1, 10), row(1, 11), row(null, 12))
            .insert("orders", row(3, "open"), row(4, null))
            .insert("items", row(3, 30), row(2, 20), row(null, 13))
            .delete("items", row(1, 10));
    String sql = "SELECT o.status, i.qty FROM orders o JOIN items i ON o.id = i.order_id";
    for (JoinStrategy strategy : STRATEGIES) {
      List<String> pruned =
          equation.check(sql, strategy, Set.of("orders", "items"), scenario.old, scenario.changes);
      assertThat(pruned)
          .as("the term is left out")
          .containsExactly(
              "left out items⁻ ⋈ Δ(orders): FOREIGN KEY items(order_id) REFERENCES orders(id)"
                  + " and orders was only inserted into");
    }
    scenario.checkEachSubset(sql);
  }

  // ---- randomized: small random tables, changes and views

  /** The shapes of the tests above, drawn at random. */
  private static final List<String> RANDOM_VIEWS =
      List.of(
          "SELECT b, c FROM r WHERE a >= 2 OR a IS NULL",
          "SELECT a + 1 AS a1, b FROM r",
          "SELECT b, SUM(c), COUNT(*), COUNT(a), AVG(a) FROM r GROUP BY b",
          "SELECT a, b, SUM(c), COUNT(c) FROM r WHERE c <> 0 GROUP BY a, b",
          "SELECT SUM(c), COUNT(*), AVG(c) FROM r",
          "SELECT r.b, s.d FROM r JOIN s ON r.a = s.a",
          "SELECT r.b, s.d, u.e FROM r JOIN s ON r.a = s.a JOIN u ON s.d = u.d",
          "SELECT x.b, y.c FROM r x JOIN r y ON x.a = y.a",
          "SELECT x.a, z.c FROM r x JOIN r y ON x.a = y.a JOIN r z ON y.b = z.b",
          "SELECT r.a, s.d FROM r JOIN s ON r.a = s.a WHERE r.c > 1 AND s.d <> 'y'",
          "SELECT r.a, s.a AS sa FROM r JOIN s ON r.a < s.a AND r.b = s.d",
          "SELECT s.d, SUM(r.c), COUNT(*), COUNT(r.b), AVG(r.a) FROM r JOIN s ON r.a = s.a"
              + " GROUP BY s.d",
          "SELECT u.e, COUNT(*), SUM(r.a) FROM r JOIN s ON r.a = s.a JOIN u ON s.d = u.d"
              + " GROUP BY u.e",
          "SELECT r.b, s.d, r.c FROM r LEFT JOIN s ON r.a = s.a",
          "SELECT r.a, s.d, u.e FROM r FULL JOIN s ON r.a = s.a RIGHT JOIN u ON s.d = u.d",
          "SELECT s.d, COUNT(*), COUNT(r.c) FROM s LEFT JOIN r ON r.a = s.a GROUP BY s.d");

  /** Values of each column: few, so that rows repeat and join; NULL among them. */
  private static final Map<String, List<List<Object>>> DOMAINS =
      Map.of(
          "r",
          List.of(
              oneOf(1, 2, 3, null),
              oneOf("x", "y", null),
              oneOf(dec("1.50"), dec("2.00"), dec("-0.75"), dec("0.00"), null)),
          "s",
          List.of(oneOf(1, 2, 3, null), oneOf("x", "y", null)),
          "u",
          List.of(oneOf("x", "y", null), oneOf(1, 2, null)));

  /**
   * Random tables of 0 to 8 rows, random changes (inserts, deletes, updates, rows that come and go,
   * sometimes consolidated into weights other than ±1, sometimes none), a random view and join
   * expansion; the context names the changed tables, or every table. {@code -Divm.seed} replays a
   * run, {@code -Divm.iterations} sets its length.
   */
  @Test
  void randomTablesChangesAndViews() throws Exception {
    long seed = Long.getLong("ivm.seed", new Random().nextLong());
    int iterations = Integer.getInteger("ivm.iterations", 400);
    System.out.println("EnumerableDifferentialTest: -Divm.seed=" + seed);
    Random random = new Random(seed);
    for (int i = 0; i < iterations; i++) {
      Scenario scenario = given();
      for (String table : List.of("r", "s", "u")) {
        List<List<Object>> rows = new ArrayList<>();
        for (int n = random.nextInt(9); n > 0; n--) {
          rows.add(randomRow(random, table));
        }
        scenario.old.put(table, rows);
        if (random.nextInt(3) > 0) {
          List<List<Object>> change = randomChange(random, table, rows);
          if (!change.isEmpty()) {
            scenario.changes.put(table, change);
          }
        }
      }
      String sql = RANDOM_VIEWS.get(random.nextInt(RANDOM_VIEWS.size()));
      JoinStrategy strategy = STRATEGIES.get(random.nextInt(STRATEGIES.size()));
      Set<String> changed =
          random.nextInt(4) == 0
              ? Set.copyOf(tables.tableNames())
              : new LinkedHashSet<>(scenario.changes.keySet());
      try {
        equation.check(sql, strategy, changed, scenario.old, scenario.changes);
      } catch (AssertionError | RuntimeException e) {
        throw new AssertionError(
            "-Divm.seed=" + seed + ", iteration " + i + ": " + e.getMessage(), e);
      }
    }
  }

  private static List<Object> oneOf(Object... values) {
    return Arrays.asList(values);
  }

  private static List<Object> randomRow(Random random, String table) {
    List<Object> row = new ArrayList<>();
    for (List<Object> domain : DOMAINS.get(table)) {
      row.add(domain.get(random.nextInt(domain.size())));
    }
    return row;
  }

  /** A change of {@code rows}: its columns and a weight, in random order. */
  private static List<List<Object>> randomChange(
      Random random, String table, List<List<Object>> rows) {
    Scenario change = given();
    for (List<Object> row : rows) {
      switch (random.nextInt(6)) {
        case 0 -> change.delete(table, row);
        case 1 -> {
          // an update: one column takes another value
          List<Object> updated = new ArrayList<>(row);
          int column = random.nextInt(row.size());
          updated.set(column, randomRow(random, table).get(column));
          change.update(table, row, updated);
        }
        default -> {}
      }
    }
    for (int n = random.nextInt(4); n > 0; n--) {
      change.insert(table, randomRow(random, table));
    }
    if (random.nextInt(5) == 0) {
      change.comesAndGoes(table, randomRow(random, table));
    }
    List<List<Object>> weighted = change.changes.getOrDefault(table, new ArrayList<>());
    Collections.shuffle(weighted, random);
    return random.nextInt(4) == 0 ? consolidated(weighted) : weighted;
  }

  /** One row per tuple with the sum of its weights; tuples whose weights cancel left out. */
  private static List<List<Object>> consolidated(List<List<Object>> weighted) {
    Map<List<Object>, Long> sums = new LinkedHashMap<>();
    for (List<Object> row : weighted) {
      sums.merge(row.subList(0, row.size() - 1), (Long) row.get(row.size() - 1), Long::sum);
    }
    List<List<Object>> result = new ArrayList<>();
    sums.forEach(
        (tuple, weight) -> {
          if (weight != 0) {
            List<Object> row = new ArrayList<>(tuple);
            row.add(weight);
            result.add(row);
          }
        });
    return result;
  }

  /**
   * Both sides of the joins change at once: inserts, deletes and updates of join keys, duplicate
   * rows and NULL keys, on {@code r}, {@code s} and {@code u}.
   */
  private static Scenario joinData() {
    return given()
        .rows(
            "r",
            row(1, "x", dec("1.50")),
            row(1, "x", dec("1.50")),
            row(2, "y", dec("2.00")),
            row(null, "x", dec("3.00")),
            row(3, null, null))
        .rows("s", row(1, "x"), row(2, "y"), row(2, "y"), row(null, "x"), row(3, null))
        .rows("u", row("x", 1), row("y", 2), row("y", -1), row(null, 3))
        .delete("r", row(1, "x", dec("1.50")))
        .update("r", row(2, "y", dec("2.00")), row(1, "y", dec("2.00")))
        .insert("r", row(2, "x", dec("4.00")), row(null, null, null))
        .delete("s", row(2, "y"))
        .update("s", row(3, null), row(1, "y"))
        .insert("s", row(1, "x"))
        .comesAndGoes("s", row(2, "x"))
        .delete("u", row("y", -1))
        .insert("u", row("x", 5), row(null, 4))
        .update("u", row("y", 2), row("x", 2));
  }

  private static Scenario given() {
    return new Scenario();
  }

  /** Previous contents of some tables and a change of some of them. */
  static final class Scenario {
    final Map<String, List<List<Object>>> old = new LinkedHashMap<>();
    final Map<String, List<List<Object>>> changes = new LinkedHashMap<>();

    @SafeVarargs
    final Scenario rows(String table, List<Object>... rows) {
      List<List<Object>> contents = old.computeIfAbsent(table, t -> new ArrayList<>());
      for (List<Object> row : rows) {
        contents.add(row);
      }
      return this;
    }

    @SafeVarargs
    final Scenario insert(String table, List<Object>... rows) {
      for (List<Object> row : rows) {
        weighted(table, row, 1);
      }
      return this;
    }

    @SafeVarargs
    final Scenario delete(String table, List<Object>... rows) {
      for (List<Object> row : rows) {
        weighted(table, row, -1);
      }
      return this;
    }

    Scenario update(String table, List<Object> from, List<Object> to) {
      return weighted(table, from, -1).weighted(table, to, 1);
    }

    /** A row inserted and deleted again: both are in the change, which is not consolidated. */
    Scenario comesAndGoes(String table, List<Object> row) {
      return weighted(table, row, 1).weighted(table, row, -1);
    }

    Scenario weighted(String table, List<Object> row, long weight) {
      List<Object> weighted = new ArrayList<>(row);
      weighted.add(weight);
      changes.computeIfAbsent(table, t -> new ArrayList<>()).add(weighted);
      return this;
    }

    /**
     * Checks the view under both expansions, with the context naming exactly the changed tables,
     * and naming every table.
     */
    void check(String sql) throws SQLException {
      Set<String> changed = changes.keySet();
      for (JoinStrategy strategy : STRATEGIES) {
        equation.check(sql, strategy, changed, old, changes);
        equation.check(sql, strategy, Set.copyOf(tables.tableNames()), old, changes);
      }
    }

    /**
     * Checks the view once for each non-empty subset of the changed tables, only their changes
     * applied, under both expansions; the context names exactly the tables of the subset.
     */
    void checkEachSubset(String sql) throws SQLException {
      List<String> changed = new ArrayList<>(changes.keySet());
      for (int mask = 1; mask < 1 << changed.size(); mask++) {
        Map<String, List<List<Object>>> subset = new LinkedHashMap<>();
        for (int i = 0; i < changed.size(); i++) {
          if ((mask & 1 << i) != 0) {
            subset.put(changed.get(i), changes.get(changed.get(i)));
          }
        }
        for (JoinStrategy strategy : STRATEGIES) {
          equation.check(sql, strategy, new LinkedHashSet<>(subset.keySet()), old, subset);
        }
      }
    }
  }
}
