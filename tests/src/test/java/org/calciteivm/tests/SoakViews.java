package org.calciteivm.tests;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.calciteivm.tests.RandomSql.Column;
import org.calciteivm.tests.RandomSql.Type;

/**
 * The base tables, views and writes of {@link SoakTest}, all over one set of shared tables: table
 * {@code r} of a {@link RandomSql} (filter/projection views from it, aggregate, HAVING, FILTER,
 * scalar aggregate and DISTINCT views from an {@link AggSql} over it) and the tables {@code t0} to
 * {@code t3} of a {@link JoinSql} (joins of two to four inputs, self-joins, aggregates and DISTINCT
 * over joins). Views that join {@code r} with the join tables (and {@code r} with itself) are
 * generated here, so that a write to one table reaches views of every kind at once.
 *
 * <p>Everything comes from the generators of the randomized tests, so it is accepted by both DuckDB
 * and Calcite and maintained by the driver. Not generated: {@code COUNT(DISTINCT x)} and other
 * DISTINCT aggregates, which the driver refuses ("not supported yet"); the soak only checks that
 * such a CREATE is refused cleanly ({@link #refusedQuery}).
 */
final class SoakViews {
  /** Rows of {@code r} are kept below this, so that its self-joins stay small. */
  static final int R_MAX_ROWS = 120;

  static final String R = "r";

  /** A view query, which output columns are approximate (see {@link AggCheck}), its tables. */
  record View(String sql, List<Boolean> approximate, Set<String> tables, String kind) {}

  private static final Pattern JOIN_TABLE = Pattern.compile("\\bt[0-3]\\b");
  private static final String[] TEXTS = {"'a'", "'b'", "'ab'", "'c'"};

  private final Random random;
  private final RandomSql sql;
  private final JoinSql joins;
  private AggSql agg;
  private int aliases;

  SoakViews(Random random) {
    this.random = random;
    this.sql = new RandomSql(random, R);
    // Three or four join tables, so that 3-way joins over distinct tables happen.
    this.joins = new JoinSql(random, 3 + random.nextInt(2), random.nextInt(3) == 0);
  }

  /** Whether the join tables declare keys: writes that violate them are refused by DuckDB. */
  boolean keyed() {
    return joins.keyed();
  }

  /** Every base table, {@code r} first. */
  List<String> tables() {
    List<String> tables = new ArrayList<>(List.of(R));
    for (int t = 0; t < joins.tables(); t++) {
      tables.add(JoinSql.table(t));
    }
    return tables;
  }

  String createR() {
    return sql.createTable();
  }

  String createJoinTable(int table) {
    return joins.createTable(table);
  }

  int joinTables() {
    return joins.tables();
  }

  /** Learns the columns of {@code r} (as DuckDB reports them), which aggregate views need. */
  void columnsOfR(List<String> describeRows) {
    List<Column> columns = new ArrayList<>();
    for (String row : describeRows) {
      String[] parts = row.split("\t");
      Type type =
          Arrays.stream(Type.values())
              .filter(t -> t.sql.equalsIgnoreCase(parts[1]))
              .findFirst()
              .orElseThrow(() -> new IllegalStateException("unexpected type " + parts[1]));
      columns.add(new Column(parts[0], type));
    }
    agg = new AggSql(random, sql, R, columns);
  }

  // ---------------------------------------------------------------- views

  /** A random view of any kind. */
  View next() {
    int kind = random.nextInt(20);
    if (kind < 4) {
      return overR(sql.viewQuery(), List.of());
    }
    if (kind < 10) {
      AggSql.ViewQuery query = agg.viewQuery();
      return overR(query.sql(), query.approximate());
    }
    if (kind < 16) {
      AggSql.ViewQuery query = joins.viewQuery();
      // Only JoinSql's queries name the join tables (r has a DATE column named t0).
      Set<String> tables = new LinkedHashSet<>();
      Matcher m = JOIN_TABLE.matcher(query.sql());
      int scans = 0;
      while (m.find()) {
        tables.add(m.group());
        scans++;
      }
      return view(query.sql(), query.approximate(), tables, scans);
    }
    return mixed();
  }

  /** A random view that reads {@code table} (some tries; any view if none reads it). */
  View over(String table) {
    View view = next();
    for (int i = 0; i < 30 && !view.tables().contains(table); i++) {
      view = next();
    }
    return view;
  }

  private static View overR(String query, List<Boolean> approximate) {
    return view(query, approximate, Set.of(R), 1);
  }

  private static View view(String query, List<Boolean> approximate, Set<String> tables, int scans) {
    return new View(query, approximate, tables, kind(query, tables, scans));
  }

  /** A label for the statistics: shape, and how many scans of how many tables. */
  private static String kind(String query, Set<String> tables, int scans) {
    String shape;
    if (query.startsWith("SELECT DISTINCT")) {
      shape = "distinct";
    } else if (query.matches("(?s).*\\b(COUNT|SUM|AVG|MIN|MAX)\\(.*")) {
      shape = query.contains(" GROUP BY ") ? "aggregate" : "scalar aggregate";
    } else {
      shape = "projection";
    }
    if (query.contains(" HAVING ")) {
      shape += " with having";
    }
    if (scans <= 1) {
      return shape;
    }
    return shape + " over " + scans + "-way " + (tables.size() < scans ? "self-join" : "join");
  }

  /**
   * A join of {@code r} with one or two join tables, or with itself: projection, aggregate (grouped
   * or scalar, sometimes with HAVING) or DISTINCT. Only exact aggregates (no DOUBLEs).
   */
  private View mixed() {
    aliases = 0;
    StringBuilder from = new StringBuilder(" FROM r r0");
    List<String> xs = new ArrayList<>();
    Set<String> tables = new LinkedHashSet<>(List.of(R));
    boolean self = random.nextInt(5) == 0;
    if (self) {
      from.append(" JOIN r r1 ON ")
          .append(random.nextBoolean() ? "r0.i0 = r1.i0" : "r0.s0 = r1.s0 AND r0.i0 <> r1.i0");
    } else {
      int table = random.nextInt(joins.tables());
      xs.add("x");
      tables.add(JoinSql.table(table));
      from.append(" JOIN ").append(JoinSql.table(table)).append(" x ON ").append(condition("x"));
      if (random.nextInt(3) == 0) {
        int other = random.nextInt(joins.tables());
        xs.add("y");
        tables.add(JoinSql.table(other));
        from.append(random.nextBoolean() ? " JOIN " : " INNER JOIN ")
            .append(JoinSql.table(other))
            .append(" y ON ")
            .append(random.nextBoolean() ? "x.k = y.k" : "x.j = y.j");
      }
    }
    if (random.nextBoolean()) {
      from.append(" WHERE ").append(filter(xs));
    }
    String query;
    int kind = random.nextInt(10);
    if (kind < 3) {
      List<String> items = new ArrayList<>();
      for (int n = 1 + random.nextInt(4); n > 0; n--) {
        items.add(item(xs, self) + " AS " + alias());
      }
      query = "SELECT " + String.join(", ", items) + from;
    } else if (kind < 4) {
      query =
          "SELECT DISTINCT r0.s0 AS " + alias() + ", " + item(xs, self) + " AS " + alias() + from;
    } else {
      List<String> keys = new ArrayList<>();
      for (int n = random.nextInt(3); n > 0; n--) {
        String key = pick(groupKeys(xs, self));
        if (!keys.contains(key)) {
          keys.add(key);
        }
      }
      List<String> items = new ArrayList<>();
      for (String key : keys) {
        items.add(key + " AS " + alias());
      }
      for (int n = 1 + random.nextInt(3); n > 0; n--) {
        items.add(aggregate(xs, self) + " AS " + alias());
      }
      query = "SELECT " + String.join(", ", items) + from;
      if (!keys.isEmpty()) {
        query += " GROUP BY " + String.join(", ", keys);
      }
      if (random.nextInt(4) == 0) {
        query +=
            " HAVING "
                + (random.nextBoolean()
                    ? "COUNT(*) > " + random.nextInt(4)
                    : "SUM(r0.i0) > " + random.nextInt(3));
      }
    }
    return view(query, List.of(), tables, 1 + (self ? 1 : xs.size()));
  }

  /** The condition joining {@code r0} with join table alias {@code x}. */
  private String condition(String x) {
    return switch (random.nextInt(7)) {
      case 0, 1 -> "r0.i0 = " + x + ".k";
      case 2 -> "r0.s0 = " + x + ".j";
      case 3 -> x + ".v = r0.i0";
      case 4 -> "r0.i0 = " + x + ".k AND r0.s0 = " + x + ".j";
      case 5 -> "r0.i0 IS NOT DISTINCT FROM " + x + ".k";
      default -> "r0.i0 = " + x + ".k AND r0.i0 < " + x + ".v";
    };
  }

  private String filter(List<String> xs) {
    String x = xs.isEmpty() ? null : pick(xs);
    return switch (random.nextInt(x == null ? 3 : 6)) {
      case 0 -> "r0.s0 IS NOT NULL";
      case 1 -> "r0.i0 IN (0, 1, 2)";
      case 2 -> "r0.s0 <> " + pick(TEXTS);
      case 3 -> x + ".v > " + random.nextInt(3);
      case 4 -> x + ".j <> 'a'";
      default -> "(" + x + ".k IS NULL OR r0.i0 > 0)";
    };
  }

  private String item(List<String> xs, boolean self) {
    List<String> items = new ArrayList<>(List.of("r0.i0", "r0.s0", "r0.i0 * 2"));
    if (self) {
      items.addAll(List.of("r1.i0", "r1.s0", "r0.i0 + r1.i0"));
    }
    for (String x : xs) {
      items.addAll(
          List.of(
              x + ".id",
              x + ".k",
              x + ".j",
              x + ".v",
              "r0.i0 + " + x + ".v",
              "COALESCE(r0.s0, " + x + ".j)"));
    }
    return pick(items);
  }

  private List<String> groupKeys(List<String> xs, boolean self) {
    List<String> keys = new ArrayList<>(List.of("r0.s0", "r0.i0"));
    if (self) {
      keys.add("r1.s0");
    }
    for (String x : xs) {
      keys.addAll(List.of(x + ".k", x + ".j"));
    }
    return keys;
  }

  private String aggregate(List<String> xs, boolean self) {
    List<String> calls =
        new ArrayList<>(
            List.of("COUNT(*)", "COUNT(r0.s0)", "SUM(r0.i0)", "MIN(r0.s0)", "AVG(r0.i0)"));
    if (self) {
      calls.addAll(List.of("MAX(r1.i0)", "SUM(r0.i0 * r1.i0)"));
    }
    for (String x : xs) {
      calls.addAll(
          List.of(
              "SUM(" + x + ".v)",
              "MAX(" + x + ".v)",
              "MIN(" + x + ".j)",
              "SUM(r0.i0 * " + x + ".v)",
              "COUNT(" + x + ".k)",
              "MAX(" + x + ".v) - MIN(r0.i0)"));
    }
    return pick(calls);
  }

  /**
   * A view query the driver refused once (DISTINCT aggregates are maintained since) or still
   * refuses: an outer join on a theta condition.
   */
  String refusedQuery() {
    return switch (random.nextInt(3)) {
      case 0 -> "SELECT s0, COUNT(DISTINCT i0) AS n FROM r GROUP BY s0";
      case 1 -> "SELECT SUM(DISTINCT a.v) AS s FROM t0 a JOIN t1 b ON a.k = b.k";
      default -> "SELECT r0.i0, x.v FROM r r0 LEFT JOIN t0 x ON r0.i0 < x.k";
    };
  }

  // ---------------------------------------------------------------- writes

  /** Initial rows of {@code r} (plain and NULL-heavy). */
  List<String> initialR() {
    return List.of(sql.insert(10 + random.nextInt(20)), agg.nullHeavyInsert(5 + random.nextInt(8)));
  }

  String initialJoinTable(int table) {
    return joins.initialInsert(table, 6 + random.nextInt(8));
  }

  /**
   * A write to {@code r} given its row count: inserts with duplicates and NULLs, updates that move
   * rows between groups or hit the MIN/MAX, deletes, and now and then every row deleted.
   */
  String writeR(int rows, boolean insertOnly) {
    if (!insertOnly && random.nextInt(40) == 0) {
      return agg.deleteAll();
    }
    int kind =
        insertOnly
            ? random.nextInt(4)
            : rows >= R_MAX_ROWS ? 5 + random.nextInt(5) : random.nextInt(rows < 20 ? 5 : 10);
    return switch (kind) {
      case 0, 1 -> sql.insert(1 + random.nextInt(5));
      case 2 -> agg.nullHeavyInsert(1 + random.nextInt(5));
      case 3 -> rows < R_MAX_ROWS / 2 ? sql.insertSelect() : sql.insert(1);
      case 4, 5 -> sql.delete();
      case 6 -> agg.hitExtremum();
      case 7 -> agg.moveRows();
      default -> sql.update();
    };
  }

  /** A write to join table {@code table} given its row count: key updates among them. */
  String writeJoinTable(int table, int rows, boolean insertOnly) {
    if (!insertOnly && random.nextInt(40) == 0) {
      return joins.deleteAll(table);
    }
    boolean full = rows >= JoinSql.MAX_ROWS;
    int kind =
        insertOnly
            ? random.nextInt(4)
            : full ? 4 + random.nextInt(6) : random.nextInt(rows < JoinSql.MAX_ROWS / 3 ? 5 : 10);
    return switch (kind) {
      case 0, 1, 2 -> joins.insert(table, 1 + random.nextInt(3));
      case 3 -> rows < JoinSql.MAX_ROWS / 2 ? joins.insertSelect(table) : joins.insert(table, 1);
      case 4, 5 -> joins.delete(table);
      default -> joins.update(table);
    };
  }

  /**
   * A write that fails as a whole: its value cannot be converted, either while it is bound (a
   * constant) or while it runs, after some rows were changed (a value of every row; a table without
   * rows gives a write that succeeds and changes nothing). Nothing of it may be captured.
   */
  String failingWrite(String table) {
    // Appending 'x' makes any text unconvertible to INTEGER.
    String bad = "CAST(COALESCE(" + (table.equals(R) ? "s0" : "j") + ", 'a') || 'x' AS INTEGER)";
    if (table.equals(R)) {
      return switch (random.nextInt(3)) {
        case 0 -> "INSERT INTO r (i0, s0) VALUES (1, 'a'), (2, NULL), (CAST('no' AS INTEGER), 'b')";
        case 1 -> "UPDATE r SET i0 = i0 + " + bad;
        default -> "DELETE FROM r WHERE " + bad + " > 0 OR i0 IS NULL";
      };
    }
    return switch (random.nextInt(4)) {
      case 0 ->
          "INSERT INTO "
              + table
              + " (id, k, j) VALUES (1, 1, 'a'), (CAST('no' AS INTEGER), 2, 'b')";
      case 1 -> "INSERT INTO " + table + " (id, v) SELECT id, " + bad + " FROM " + table;
      case 2 -> "UPDATE " + table + " SET v = " + bad;
      default -> "DELETE FROM " + table + " WHERE " + bad + " > 0";
    };
  }

  <T> T pick(List<T> list) {
    return list.get(random.nextInt(list.size()));
  }

  private <T> T pick(T[] array) {
    return array[random.nextInt(array.length)];
  }

  private String alias() {
    aliases++;
    return "x" + aliases;
  }

  /** Shuffles with the soak's random, so that the order depends only on the seed. */
  <T> void shuffle(List<T> list) {
    Collections.shuffle(list, random);
  }
}
