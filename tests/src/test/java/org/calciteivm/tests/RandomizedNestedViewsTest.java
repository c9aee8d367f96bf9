package org.calciteivm.tests;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Differential test of materialized views over materialized views: random views in layers (level 1
 * over the base tables, level 2 over a level-1 view, level 3 over a level-2 view, several views
 * sometimes reading one view), random write batches on the base tables, refreshes of random views
 * in random order, and DROPs of random views.
 *
 * <p>A view over a view is defined over the stored content of the view it reads: a REFRESH of a
 * view first refreshes every materialized view it reads (recursively), then applies their change.
 * So after every REFRESH of view {@code v}: {@code v} equals its query run directly (which reads
 * the stored content of the views below it through their names), every view {@code v} reads,
 * transitively, equals its own query, and {@code v} equals its query with every view it reads
 * replaced by that view's query as a subquery, down to the base tables (the whole chain against the
 * base data). Rows are compared as bags ({@link ViewCheck}: EXCEPT ALL both ways, column names and
 * types too); every aggregate is over integers (COUNT(*), COUNT(x), SUM, MIN, MAX), so every
 * comparison is exact. A view is also checked right after its CREATE against its query (over the
 * stored content of the views it reads, whatever their freshness).
 *
 * <p>Each round uses a fresh in-memory database with one or two small tables ({@code t(k, g, x, y)}
 * and {@code u(k, h, w)}: INTEGER and VARCHAR columns of few values, a third of them NULL,
 * duplicate rows) and up to {@value #MAX_VIEWS} views. View shapes, at every level: projections and
 * filters (bag views, sometimes {@code SELECT *}), GROUP BY aggregates (group keys that are columns
 * or expressions, sometimes HAVING, sometimes a key left out of the select list), scalar aggregates
 * (no GROUP BY), SELECT DISTINCT, inner joins with a base table (the level-1 join reads both base
 * tables, or one twice) and aggregates over such joins. Every output column has an explicit alias
 * (sometimes a quoted, mixed-case one) so that upper views can name it.
 *
 * <p>Writes mix INSERT (with duplicates and NULLs, INSERT ... SELECT), UPDATE (of the grouping and
 * join columns too, to and from NULL) and DELETE (sometimes of every row); a batch sometimes runs
 * in an explicit transaction (SQL {@code BEGIN}, or JDBC autocommit off) that commits or rolls
 * back, sometimes with a refresh inside. {@code ivm_refresh_mode} and the fast-path settings are
 * switched now and then. A DROP of a view that other views read must fail with an SQLException
 * naming one of them and leave the database as it was (catalog and every table's content, the
 * driver's hidden ones included; the view still answers); a DROP of a view nobody reads succeeds.
 * At the end of a round every view is refreshed (top-down or in a random order), every view is
 * checked against its query and its fully inlined query, and then every view is dropped in random
 * attempts (refused while read), after which the base tables can be dropped.
 *
 * <p>System properties: {@code ivm.seed} (replays a run), {@code ivm.rounds}, {@code ivm.steps}
 * (write batches per round), {@code ivm.round} (run only that round of the seed), {@code
 * ivm.levels} (the deepest level of views, 3 by default; 1 gives views over base tables only),
 * {@code ivm.inline} ({@code mixed} by default: a view over views is created, at random, naming the
 * views it reads or with their queries inlined as FROM subqueries, which the driver keeps as hidden
 * views; {@code always} or {@code never} for one kind only). A failing round's statements are
 * written to {@code target/randomized/} as a script.
 */
class RandomizedNestedViewsTest {
  /** The most views a round keeps at once. */
  private static final int MAX_VIEWS = 7;

  /** Rows of a base table are kept about this low, so that joins over joins stay small. */
  private static final int MAX_ROWS = 30;

  /** A join is not added over an input whose query already joins this many times. */
  private static final int MAX_JOINS = 2;

  private static final List<String> MODES = List.of("auto", "incremental", "full");
  private static final List<String> FAST_PATHS =
      List.of("ivm_skip_projection_delete", "ivm_skip_aggregate_delete", "ivm_minmax_incremental");

  /** A reference to a view in a view's query template: {@code {{v03}}}. */
  private static final Pattern REFERENCE = Pattern.compile("\\{\\{(v[0-9]+)\\}\\}");

  @Test
  void nestedViewsMatchTheirQueriesAfterEveryRefresh() throws Exception {
    long seed = Long.getLong("ivm.seed", new Random().nextLong());
    int rounds = Integer.getInteger("ivm.rounds", 4);
    int steps = Integer.getInteger("ivm.steps", 20);
    int only = Integer.getInteger("ivm.round", -1);
    int levels = Integer.getInteger("ivm.levels", 3);
    String inline = System.getProperty("ivm.inline", "mixed");
    System.out.println("RandomizedNestedViewsTest: -Divm.seed=" + seed + " -Divm.inline=" + inline);
    Stats stats = new Stats();
    // ivm.round replays one round of the seed, whatever ivm.rounds is.
    for (int round = Math.max(0, only); round < (only < 0 ? rounds : only + 1); round++) {
      new Round(seed, round, steps, levels, inline, stats).run();
    }
    System.out.println("RandomizedNestedViewsTest: " + stats);
  }

  /** What the rounds did, to tell whether a run exercised much. */
  private static final class Stats {
    final Map<Integer, Integer> viewsPerLevel = new TreeMap<>();
    final Map<String, Integer> shapes = new TreeMap<>();
    int refreshes;
    final Map<Integer, Integer> checksPerLevel = new TreeMap<>();
    final Map<Integer, Integer> emptyPerLevel = new TreeMap<>();
    int checks;
    int inlinedChecks;
    long viewRows;
    int drops;
    int refusedDrops;
    int skipped;
    int inlineViews;

    @Override
    public String toString() {
      return String.format(
          "%d refreshes; %d checks of a view against its query (%d rows per view on average;"
              + " per level: %s, of them of an empty view: %s) and %d against its fully inlined"
              + " query; views created per level: %s; per shape: %s; drops: %d, refused because"
              + " read: %d; views skipped because DuckDB fails on their query: %d; views created"
              + " with the views they read inlined as subqueries (hidden views): %d",
          refreshes,
          checks,
          viewRows / Math.max(1, checks),
          checksPerLevel,
          emptyPerLevel,
          inlinedChecks,
          viewsPerLevel,
          shapes,
          drops,
          refusedDrops,
          skipped,
          inlineViews);
    }
  }

  /** The kind of a column, as far as generating SQL over it goes. */
  private enum Kind {
    INT,
    TEXT
  }

  /** A column of a base table or a view. */
  private record Col(String name, Kind kind) {
    /** The name as SQL: quoted unless it is a plain lower-case identifier. */
    String sql() {
      return name.matches("[a-z_][a-z0-9_]*") ? name : "\"" + name.replace("\"", "\"\"") + "\"";
    }

    /** The column qualified by {@code alias}, or unqualified for a null alias. */
    String in(String alias) {
      return alias == null ? sql() : alias + "." + sql();
    }
  }

  /**
   * What a view reads (besides a base table it joins): a base table (level 0) or a view. {@code
   * joins} counts the joins of its query, fully inlined.
   */
  private record Input(String name, boolean view, List<Col> columns, int level, int joins) {
    /** The input in a query template: a view is a reference to substitute. */
    String from() {
      return view ? "{{" + name + "}}" : name;
    }
  }

  /**
   * A view query: the template ({@code {{v03}}} where it reads view v03), its output columns, its
   * joins (fully inlined) and its shape (for the statistics).
   */
  private record Query(String template, List<Col> columns, int joins, String shape) {}

  /**
   * A materialized view of the round. {@code sql} is the query it was created with: the template
   * with each view it reads named, or, for a view {@code inline}, with each view it reads replaced
   * by that view's query as a FROM subquery (recursively): such a view reads no materialized view,
   * and the driver keeps its aggregate subqueries as hidden views of its own.
   */
  private record View(
      String name,
      Query query,
      int level,
      Set<String> reads,
      List<Col> columns,
      int joins,
      String sql,
      boolean inline) {}

  /** A base table: its name and columns. */
  private record Table(String name, List<Col> columns) {
    String create() {
      return "CREATE TABLE "
          + name
          + " ("
          + String.join(
              ", ",
              columns.stream()
                  .map(c -> c.sql() + (c.kind() == Kind.INT ? " INTEGER" : " VARCHAR"))
                  .toList())
          + ")";
    }

    Input input() {
      return new Input(name, false, columns, 0, 0);
    }
  }

  private static final Table T =
      new Table(
          "t",
          List.of(
              new Col("k", Kind.INT),
              new Col("g", Kind.TEXT),
              new Col("x", Kind.INT),
              new Col("y", Kind.INT)));
  private static final Table U =
      new Table(
          "u", List.of(new Col("k", Kind.INT), new Col("h", Kind.TEXT), new Col("w", Kind.INT)));

  /**
   * Random view queries over an {@link Input} and random writes of the base tables. Everything is
   * valid for DuckDB and Calcite's parser: standard functions, integer arithmetic on small values
   * only (no division), every output column aliased.
   */
  private static final class NestedSql {
    private static final String[] TEXTS = {"'a'", "'b'", "'c'"};

    private final Random random;
    private final List<Table> tables;
    private int aliases;

    NestedSql(Random random, List<Table> tables) {
      this.random = random;
      this.tables = tables;
    }

    /** A view query over {@code input}, of a random shape. */
    Query query(Input input) {
      boolean joinable = input.joins() < MAX_JOINS;
      while (true) {
        switch (random.nextInt(12)) {
          case 0, 1, 2:
            return bag(input);
          case 3, 4, 5:
            return aggregate(input, true);
          case 6:
            return aggregate(input, false);
          case 7:
            return distinct(input);
          case 8, 9, 10:
            if (joinable) {
              return join(input, false);
            }
            break;
          default:
            if (joinable) {
              return join(input, true);
            }
            break;
        }
      }
    }

    /** Projection and filter: columns and expressions, sometimes {@code SELECT *}. */
    private Query bag(Input input) {
      if (random.nextInt(8) == 0) {
        return new Query(
            "SELECT * FROM " + input.from() + " AS s" + filter(input, 3),
            input.columns(),
            input.joins(),
            "bag *");
      }
      return selection(input, "SELECT ", 4, 3, 4, "bag");
    }

    /**
     * {@code select} of one to {@code most} columns or expressions of {@code input} (an expression
     * one time in {@code expressionOdds}), filtered one time in {@code filterOdds} (as {@link
     * #filter}).
     */
    private Query selection(
        Input input, String select, int most, int expressionOdds, int filterOdds, String shape) {
      List<String> items = new ArrayList<>();
      List<Col> columns = new ArrayList<>();
      for (int n = 1 + random.nextInt(most); n > 0; n--) {
        Col column = pick(input.columns());
        String sql = random.nextInt(expressionOdds) == 0 ? expression(column, "s") : column.in("s");
        Col out = new Col(alias(), column.kind());
        items.add(sql + " AS " + out.sql());
        columns.add(out);
      }
      return new Query(
          select
              + String.join(", ", items)
              + " FROM "
              + input.from()
              + " AS s"
              + filter(input, filterOdds),
          columns,
          input.joins(),
          shape);
    }

    /** GROUP BY one or two keys (or none: a scalar aggregate) with one to three aggregates. */
    private Query aggregate(Input input, boolean grouped) {
      List<String> keys = new ArrayList<>();
      List<String> items = new ArrayList<>();
      List<Col> columns = new ArrayList<>();
      if (grouped) {
        for (int n = 1 + random.nextInt(2); n > 0; n--) {
          Col column = pick(input.columns());
          String key = random.nextInt(6) == 0 ? expression(column, "s") : column.in("s");
          if (keys.contains(key)) {
            continue;
          }
          keys.add(key);
          if (random.nextInt(10) == 0) {
            continue; // a key left out of the select list: groups may give duplicate rows
          }
          Col out = new Col(alias(), column.kind());
          items.add(key + " AS " + out.sql());
          columns.add(out);
        }
      }
      for (int n = 1 + random.nextInt(3); n > 0; n--) {
        aggregateCall(input.columns(), "s", items, columns);
      }
      String having = "";
      if (grouped && random.nextInt(6) == 0) {
        having =
            random.nextBoolean()
                ? " HAVING COUNT(*) > 1"
                : " HAVING MAX(" + pick(input.columns()).in("s") + ") IS NOT NULL";
      }
      return new Query(
          "SELECT "
              + String.join(", ", items)
              + " FROM "
              + input.from()
              + " AS s"
              + (random.nextInt(5) < 2 ? where(input.columns(), "s", 2) : "")
              + (grouped ? " GROUP BY " + String.join(", ", keys) : "")
              + having,
          columns,
          input.joins(),
          grouped ? "aggregate" : "scalar aggregate");
    }

    /** {@code SELECT DISTINCT} of one or two columns or expressions. */
    private Query distinct(Input input) {
      return selection(input, "SELECT DISTINCT ", 2, 4, 3, "distinct");
    }

    /**
     * An inner join of {@code input} (as {@code s}) with a base table (as {@code r}) on an equality
     * of columns of one kind, sometimes with a second condition; under a projection, or under an
     * aggregate when {@code aggregated}. A base table input joins the other base table, or itself.
     */
    private Query join(Input input, boolean aggregated) {
      Table other = pick(tables);
      if (!input.view() && tables.size() > 1 && random.nextInt(4) != 0) {
        other = tables.stream().filter(t -> !t.name().equals(input.name())).findFirst().get();
      }
      Col left = pick(input.columns());
      List<Col> matching = other.columns().stream().filter(c -> c.kind() == left.kind()).toList();
      Col right = pick(matching);
      String on = left.in("s") + " = " + right.in("r");
      if (random.nextInt(5) == 0) {
        Col theta = pick(other.columns());
        on += " AND " + comparison(theta, "r");
      }
      List<Col> both = new ArrayList<>();
      List<String> qualified = new ArrayList<>();
      for (Col c : input.columns()) {
        both.add(c);
        qualified.add(c.in("s"));
      }
      for (Col c : other.columns()) {
        both.add(c);
        qualified.add(c.in("r"));
      }
      List<String> items = new ArrayList<>();
      List<Col> columns = new ArrayList<>();
      List<String> keys = new ArrayList<>();
      int count = aggregated ? random.nextInt(3) : 1 + random.nextInt(4);
      for (int n = 0; n < count; n++) {
        int i = random.nextInt(both.size());
        if (aggregated && keys.contains(qualified.get(i))) {
          continue;
        }
        Col out = new Col(alias(), both.get(i).kind());
        items.add(qualified.get(i) + " AS " + out.sql());
        columns.add(out);
        keys.add(qualified.get(i));
      }
      String where = "";
      if (random.nextInt(5) < 2) {
        boolean leftSide = random.nextBoolean();
        where = where(leftSide ? input.columns() : other.columns(), leftSide ? "s" : "r", 2);
      }
      String from = " FROM " + input.from() + " AS s JOIN " + other.name() + " AS r ON " + on;
      if (!aggregated) {
        return new Query(
            "SELECT " + String.join(", ", items) + from + where,
            columns,
            input.joins() + 1,
            "join");
      }
      for (int n = 1 + random.nextInt(3); n > 0; n--) {
        boolean leftSide = random.nextBoolean();
        aggregateCall(
            leftSide ? input.columns() : other.columns(), leftSide ? "s" : "r", items, columns);
      }
      return new Query(
          "SELECT "
              + String.join(", ", items)
              + from
              + where
              + (keys.isEmpty() ? "" : " GROUP BY " + String.join(", ", keys)),
          columns,
          input.joins() + 1,
          keys.isEmpty() ? "scalar aggregate over join" : "aggregate over join");
    }

    /** Adds one of COUNT(*), COUNT(x), SUM(x), MIN(x), MAX(x) (integers, or MIN/MAX of text). */
    private void aggregateCall(
        List<Col> input, String alias, List<String> items, List<Col> columns) {
      List<Col> ints = input.stream().filter(c -> c.kind() == Kind.INT).toList();
      Col column = pick(input);
      String call;
      Kind kind = Kind.INT;
      switch (random.nextInt(7)) {
        case 0 -> call = "COUNT(*)";
        case 1 -> call = "COUNT(" + column.in(alias) + ")";
        case 2, 3 -> call = ints.isEmpty() ? "COUNT(*)" : "SUM(" + pick(ints).in(alias) + ")";
        case 4 -> {
          Col c = ints.isEmpty() || random.nextInt(4) == 0 ? column : pick(ints);
          call = "MIN(" + c.in(alias) + ")";
          kind = c.kind();
        }
        default -> {
          Col c = ints.isEmpty() || random.nextInt(4) == 0 ? column : pick(ints);
          call = "MAX(" + c.in(alias) + ")";
          kind = c.kind();
        }
      }
      Col out = new Col(alias(), kind);
      items.add(call + " AS " + out.sql());
      columns.add(out);
    }

    /**
     * A WHERE clause over the input, except one time in {@code outOf}; over a view (whose rows are
     * already few), half the time and a single condition, so that upper views are not mostly empty.
     */
    private String filter(Input input, int outOf) {
      if (input.view()) {
        return random.nextBoolean() ? "" : " WHERE " + predicate(input.columns(), "s", 0);
      }
      return where(input.columns(), "s", outOf);
    }

    /** A WHERE clause over {@code columns}, except one time in {@code outOf}. */
    private String where(List<Col> columns, String alias, int outOf) {
      return random.nextInt(outOf) == 0 ? "" : " WHERE " + predicate(columns, alias, 1);
    }

    /** A condition over {@code columns} (qualified by {@code alias}, unless null). */
    String predicate(List<Col> columns, String alias, int depth) {
      int choice = depth <= 0 ? random.nextInt(6) : random.nextInt(9);
      Col column = pick(columns);
      String c = column.in(alias);
      return switch (choice) {
        case 0, 1, 2 -> comparison(column, alias);
        case 3 -> c + (random.nextBoolean() ? " IS NULL" : " IS NOT NULL");
        case 4 -> {
          List<String> list = new ArrayList<>();
          for (int n = 1 + random.nextInt(3); n > 0; n--) {
            list.add(literal(column.kind()));
          }
          yield c
              + (random.nextInt(3) == 0 ? " NOT IN (" : " IN (")
              + String.join(", ", list)
              + ")";
        }
        case 5 ->
            column.kind() == Kind.INT
                ? c + " BETWEEN " + literal(Kind.INT) + " AND " + (2 + random.nextInt(3))
                : "COALESCE(" + c + ", 'n') <> " + pick(TEXTS);
        case 6 ->
            "("
                + predicate(columns, alias, depth - 1)
                + " AND "
                + predicate(columns, alias, depth - 1)
                + ")";
        case 7 ->
            "("
                + predicate(columns, alias, depth - 1)
                + " OR "
                + predicate(columns, alias, depth - 1)
                + ")";
        default -> "NOT (" + predicate(columns, alias, depth - 1) + ")";
      };
    }

    private String comparison(Col column, String alias) {
      String op = pick(new String[] {"=", "<>", "<", "<=", ">", ">="});
      return column.in(alias) + " " + op + " " + literal(column.kind());
    }

    /** An expression of the column's kind over it. */
    private String expression(Col column, String alias) {
      String c = column.in(alias);
      if (column.kind() == Kind.INT) {
        return switch (random.nextInt(6)) {
          case 0 -> "(" + c + " + 1)";
          case 1 -> "(" + c + " * 2)";
          case 2 -> "COALESCE(" + c + ", 0)";
          case 3 -> "ABS(" + c + ")";
          case 4 -> "(" + c + " - 1)";
          default -> "CASE WHEN " + c + " > 1 THEN " + c + " ELSE -1 END";
        };
      }
      return switch (random.nextInt(4)) {
        case 0 -> "COALESCE(" + c + ", 'z')";
        case 1 -> "UPPER(" + c + ")";
        case 2 -> "(" + c + " || 'x')";
        default -> "CASE WHEN " + c + " = 'a' THEN 'b' ELSE " + c + " END";
      };
    }

    private String literal(Kind kind) {
      if (kind == Kind.TEXT) {
        return pick(TEXTS);
      }
      int value = random.nextInt(5) - 1;
      return value < 0 ? "(" + value + ")" : String.valueOf(value);
    }

    /** A value for a row of a base table: small domains, NULL one time in three. */
    private String value(Col column) {
      if (random.nextInt(3) == 0) {
        return "NULL";
      }
      if (column.kind() == Kind.TEXT) {
        return pick(TEXTS);
      }
      return String.valueOf(
          switch (column.name()) {
            case "k" -> random.nextInt(4);
            case "x" -> random.nextInt(5) - 1;
            default -> random.nextInt(5);
          });
    }

    /** A multi-row INSERT of up to {@code distinctRows} rows, each one to three times. */
    String insert(Table table, int distinctRows) {
      List<String> rows = new ArrayList<>();
      for (int i = 0; i < distinctRows; i++) {
        String row =
            "(" + String.join(", ", table.columns().stream().map(this::value).toList()) + ")";
        for (int copies = 1 + random.nextInt(3); copies > 0; copies--) {
          rows.add(row);
        }
      }
      Collections.shuffle(rows, random);
      return "INSERT INTO " + table.name() + " VALUES " + String.join(", ", rows);
    }

    /** Copies the rows that match a predicate: every one of them gets a duplicate. */
    String insertSelect(Table table) {
      return "INSERT INTO "
          + table.name()
          + " SELECT * FROM "
          + table.name()
          + " WHERE "
          + predicate(table.columns(), null, 1);
    }

    String delete(Table table) {
      return "DELETE FROM " + table.name() + " WHERE " + predicate(table.columns(), null, 2);
    }

    String deleteAll(Table table) {
      return "DELETE FROM " + table.name();
    }

    /** Updates one or two columns (keys too, to and from NULL) of the rows of a predicate. */
    String update(Table table) {
      List<Col> targets = new ArrayList<>(table.columns());
      Collections.shuffle(targets, random);
      List<String> assignments = new ArrayList<>();
      for (Col column : targets.subList(0, 1 + random.nextInt(2))) {
        assignments.add(column.sql() + " = " + newValue(column));
      }
      return "UPDATE "
          + table.name()
          + " SET "
          + String.join(", ", assignments)
          + (random.nextInt(8) == 0 ? "" : " WHERE " + predicate(table.columns(), null, 1));
    }

    /** The value an UPDATE assigns: NULL, a literal, or a small step within the domain. */
    private String newValue(Col column) {
      String c = column.sql();
      if (column.kind() == Kind.TEXT) {
        return pick(
            new String[] {
              "NULL",
              pick(TEXTS),
              "CASE " + c + " WHEN 'a' THEN 'b' WHEN 'b' THEN 'c' ELSE 'a' END",
              "COALESCE(" + c + ", 'a')"
            });
      }
      if (column.name().equals("k")) {
        return pick(
            new String[] {
              "NULL",
              String.valueOf(random.nextInt(4)),
              "CASE WHEN k IS NULL THEN 0 WHEN k >= 3 THEN NULL ELSE k + 1 END",
              "COALESCE(k, 2)"
            });
      }
      return pick(
          new String[] {
            "NULL",
            literal(Kind.INT),
            "- " + c,
            "CASE WHEN " + c + " IS NULL THEN 1 WHEN " + c + " > 2 THEN NULL ELSE " + c + " + 1 END"
          });
    }

    /** A fresh output column name, now and then a quoted mixed-case one. */
    private String alias() {
      aliases++;
      return random.nextInt(12) == 0 ? "Col " + aliases : "c" + aliases;
    }

    private <T> T pick(List<T> list) {
      return list.get(random.nextInt(list.size()));
    }

    private <T> T pick(T[] array) {
      return array[random.nextInt(array.length)];
    }
  }

  /** One database, its base tables and views, and a sequence of writes, refreshes and drops. */
  private static final class Round extends RandomRound<View> {
    private final long seed;
    private final int round;
    private final int steps;
    private final int levels;
    private final String inline;
    private final Stats stats;
    private final List<Table> tables;
    private final NestedSql sql;
    private int viewCount;

    Round(long seed, int round, int steps, int levels, String inline, Stats stats) {
      // Rounds are independent so that one can be replayed alone with ivm.round.
      super(new Random(seed * 31 + round));
      this.seed = seed;
      this.round = round;
      this.steps = steps;
      this.levels = Math.max(1, levels);
      this.inline = inline;
      this.stats = stats;
      this.tables = random.nextInt(3) == 0 ? List.of(T) : List.of(T, U);
      this.sql = new NestedSql(random, tables);
    }

    void run() throws IOException {
      try (Connection c = DriverManager.getConnection("jdbc:ivm:duckdb:")) {
        connection = c;
        // As in RandomizedJoinTest: a DuckDB bug with GROUP BY of expressions over joins.
        execute("SET disabled_optimizers = 'compressed_materialization'");
        for (Table table : tables) {
          execute(table.create());
          execute(sql.insert(table, 4 + random.nextInt(8)));
        }
        // A chain as deep as allowed to begin with, then one view of any level.
        Input input = pick(tables).input();
        for (int level = 1; level <= levels; level++) {
          View view = createView(input);
          if (view == null) {
            break;
          }
          input = inputOf(view);
        }
        createView();
        for (int step = 1; step <= steps; step++) {
          this.step = step;
          if (views.size() < MAX_VIEWS && random.nextInt(4) == 0) {
            createView();
          }
          if (views.size() > 1 && random.nextInt(6) == 0) {
            dropView(pick(List.copyOf(views.keySet())));
          }
          writeBatch();
          if (random.nextInt(6) == 0) {
            // full and incremental refreshes alternate: each must leave state the other continues
            execute("SET ivm_refresh_mode = " + pick(MODES));
          }
          List<String> names = new ArrayList<>(views.keySet());
          Collections.shuffle(names, random);
          for (String name : names) {
            if (views.containsKey(name) && random.nextInt(10) < 3) {
              refresh(name);
            }
          }
        }
        step = steps + 1;
        finish();
      } catch (SQLException | AssertionError e) {
        throw failure("nested", seed, round, e);
      }
    }

    /**
     * Refreshes every view (top-down, or in a random order), checks every view against its query
     * and its fully inlined query, then drops every view in random attempts and the base tables.
     */
    private void finish() throws SQLException {
      List<String> names = new ArrayList<>(views.keySet());
      Collections.shuffle(names, random);
      if (random.nextBoolean()) {
        names.sort(Comparator.comparingInt((String name) -> -views.get(name).level()));
        log.add("-- final refreshes, top-down");
      } else {
        log.add("-- final refreshes, in a random order");
      }
      for (String name : names) {
        refresh(name);
      }
      for (String name : views.keySet()) {
        check(name, "final check");
        checkInlined(name, "final check");
      }
      log.add("-- drop everything");
      for (int attempt = 0; !views.isEmpty(); attempt++) {
        if (attempt > 100) {
          throw new AssertionError("views left after 100 DROP attempts: " + views.keySet());
        }
        dropView(pick(List.copyOf(views.keySet())));
      }
      List<String> left = ViewCheck.rows(connection, "SELECT name FROM ivm_views");
      if (!left.isEmpty()) {
        throw new AssertionError("ivm_views still lists " + left + " after every DROP");
      }
      List<String> hidden =
          ViewCheck.rows(
              connection,
              "SELECT view_name FROM duckdb_views() WHERE schema_name = '_ivm'"
                  + " AND view_name LIKE 'node%' UNION ALL SELECT view_name FROM _ivm.views");
      if (!hidden.isEmpty()) {
        throw new AssertionError("hidden views left after every DROP: " + hidden);
      }
      for (Table table : tables) {
        execute("DROP TABLE " + table.name());
      }
    }

    @Override
    void createView() throws SQLException {
      createView(chooseInput());
    }

    /**
     * What a new view reads: a base table one time in three (or if no view can be read), otherwise
     * a view below the deepest level, deeper ones more likely, one already read by another view
     * more likely still.
     */
    private Input chooseInput() {
      List<View> readable = views.values().stream().filter(v -> v.level() < levels).toList();
      if (readable.isEmpty() || random.nextInt(3) == 0) {
        return pick(tables).input();
      }
      List<View> read = readable.stream().filter(v -> !readersOf(v.name()).isEmpty()).toList();
      if (!read.isEmpty() && random.nextInt(4) == 0) {
        return inputOf(pick(read));
      }
      List<View> weighted = new ArrayList<>();
      for (View view : readable) {
        for (int i = 0; i < view.level(); i++) {
          weighted.add(view);
        }
      }
      return inputOf(pick(weighted));
    }

    private static Input inputOf(View view) {
      return new Input(view.name(), true, view.columns(), view.level(), view.joins());
    }

    /** Creates a view over {@code input} and checks it; null if DuckDB itself fails on it. */
    private View createView(Input input) throws SQLException {
      String name = String.format(Locale.ROOT, "v%02d", viewCount++);
      Query query = sql.query(input);
      Set<String> reads = new LinkedHashSet<>();
      Matcher references = REFERENCE.matcher(query.template());
      while (references.find()) {
        reads.add(references.group(1));
      }
      // ivm.inline: "never", "always" or "mixed" (every other view reading views, at random)
      boolean inlined =
          reads.stream().anyMatch(r -> aggregates(views.get(r)))
              && (inline.equals("always") || (inline.equals("mixed") && random.nextBoolean()));
      Set<String> named = new LinkedHashSet<>();
      String direct =
          inlined ? withAggregatesInlined(query.template(), named) : direct(query.template());
      View view =
          new View(
              name,
              query,
              input.level() + 1,
              inlined ? named : reads,
              query.columns(),
              query.joins(),
              direct,
              inlined);
      try {
        execute("CREATE MATERIALIZED VIEW " + name + " AS " + direct);
      } catch (SQLException e) {
        String itself = queryItself(direct);
        if (itself.contains("INTERNAL Error")) {
          // DuckDB fails on the query by itself with an internal error: no oracle to compare with.
          log.add("-- skipped: " + itself.lines().findFirst().orElse(""));
          stats.skipped++;
          return null;
        }
        throw new SQLException(
            e.getMessage()
                + "\n  "
                + itself
                + "\n  (a level-"
                + view.level()
                + " view"
                + (reads.isEmpty() ? "" : " reading " + reads)
                + ")",
            e);
      }
      views.put(name, view);
      if (inlined) {
        stats.inlineViews++;
      }
      stats.viewsPerLevel.merge(view.level(), 1, Integer::sum);
      stats.shapes.merge(query.shape(), 1, Integer::sum);
      // Right after CREATE the view equals its query over what the views it reads hold now.
      check(name, "after CREATE");
      return view;
    }

    /**
     * Writes to one base table or both; sometimes deletes every row of one; sometimes in a
     * transaction (SQL or JDBC autocommit off) that commits or rolls back, sometimes with a refresh
     * inside.
     */
    @Override
    void writeBatch() throws SQLException {
      List<Table> targets = new ArrayList<>(tables);
      Collections.shuffle(targets, random);
      if (random.nextInt(3) != 0) {
        targets = targets.subList(0, 1);
      }
      int transaction = random.nextInt(12);
      boolean jdbc = transaction >= 2 && transaction < 4;
      if (transaction < 2) {
        execute(random.nextBoolean() ? "BEGIN TRANSACTION" : "BEGIN");
      } else if (jdbc) {
        log.add("BEGIN TRANSACTION; -- JDBC setAutoCommit(false)");
        connection.setAutoCommit(false);
      }
      for (Table table : targets) {
        if (random.nextInt(25) == 0) {
          execute(sql.deleteAll(table));
          if (random.nextBoolean()) {
            execute(sql.insert(table, 1 + random.nextInt(4)));
          }
          continue;
        }
        for (int n = 1 + random.nextInt(3); n > 0; n--) {
          int rows = rows(table);
          boolean full = rows >= MAX_ROWS;
          int kind = full ? 4 + random.nextInt(6) : random.nextInt(rows < MAX_ROWS / 3 ? 6 : 10);
          execute(
              switch (kind) {
                case 0, 1, 2 -> sql.insert(table, 1 + random.nextInt(3));
                case 3 -> rows < MAX_ROWS / 2 ? sql.insertSelect(table) : sql.insert(table, 1);
                case 4, 5 -> sql.delete(table);
                default -> sql.update(table);
              });
        }
      }
      if (transaction < 4) {
        if (!views.isEmpty() && random.nextInt(3) == 0) {
          // A refresh inside the transaction, committed or rolled back with it.
          refresh(pick(List.copyOf(views.keySet())));
        }
        boolean commit = transaction % 2 == 0;
        if (jdbc) {
          log.add(
              (commit ? "COMMIT" : "ROLLBACK")
                  + "; -- JDBC "
                  + (commit ? "commit()" : "rollback()"));
          if (commit) {
            connection.commit();
          } else {
            connection.rollback();
          }
          connection.setAutoCommit(true);
        } else {
          execute(commit ? "COMMIT" : "ROLLBACK");
        }
      }
    }

    private int rows(Table table) throws SQLException {
      return Integer.parseInt(
          ViewCheck.rows(connection, "SELECT count(*) FROM " + table.name()).get(0));
    }

    /**
     * Refreshes {@code name} (now and then with a fast path switched), then checks it and every
     * view it reads, transitively, against their queries, and it against its fully inlined query.
     */
    @Override
    void refresh(String name) throws SQLException {
      if (random.nextInt(12) == 0) {
        String setting = pick(FAST_PATHS);
        execute(
            random.nextBoolean()
                ? "RESET " + setting
                : "SET " + setting + " = " + random.nextBoolean());
      }
      execute("REFRESH MATERIALIZED VIEW " + name);
      stats.refreshes++;
      String where = "after REFRESH of " + name;
      for (String fresh : closure(name)) {
        check(fresh, where);
      }
      checkInlined(name, where);
    }

    /**
     * Drops {@code name} if no view reads it; otherwise the DROP must fail naming a view that reads
     * it, and change nothing.
     */
    @Override
    void dropView(String name) throws SQLException {
      List<String> readers = readersOf(name);
      if (readers.isEmpty()) {
        super.dropView(name);
        stats.drops++;
        return;
      }
      String drop = "DROP MATERIALIZED VIEW " + name;
      log.add(drop + "; -- must fail: read by " + readers);
      List<String> before = fingerprint();
      try (Statement s = connection.createStatement()) {
        s.execute(drop);
      } catch (SQLException e) {
        String message = String.valueOf(e.getMessage());
        log.add("-- refused: " + message.lines().findFirst().orElse(""));
        if (readers.stream()
            .noneMatch(r -> Pattern.compile("\\b" + r + "\\b").matcher(message).find())) {
          throw new AssertionError(
              String.format(
                  "step %d: DROP of %s, read by %s, failed without naming any of them: %s",
                  step, name, readers, message),
              e);
        }
        List<String> after = fingerprint();
        if (!before.equals(after)) {
          throw new AssertionError(
              String.format(
                  "step %d: the refused DROP of %s changed the database%n  before: %s%n  after:  %s",
                  step, name, before, after));
        }
        // The view still exists and answers.
        ViewCheck.rows(connection, "SELECT count(*) FROM " + name);
        if (ViewCheck.rows(connection, "SELECT name FROM ivm_views WHERE name = '" + name + "'")
            .isEmpty()) {
          throw new AssertionError(
              "step " + step + ": after the refused DROP, ivm_views does not list " + name);
        }
        stats.refusedDrops++;
        return;
      }
      throw new AssertionError(
          String.format(
              "step %d: DROP MATERIALIZED VIEW %s succeeded although %s read it",
              step, name, readers));
    }

    /** The views that read {@code name} directly. */
    private List<String> readersOf(String name) {
      return views.values().stream().filter(v -> v.reads().contains(name)).map(View::name).toList();
    }

    /** {@code name} and every view it reads, transitively. */
    private Set<String> closure(String name) {
      Set<String> result = new LinkedHashSet<>();
      List<String> pending = new ArrayList<>(List.of(name));
      while (!pending.isEmpty()) {
        String next = pending.remove(pending.size() - 1);
        if (result.add(next)) {
          pending.addAll(views.get(next).reads());
        }
      }
      return result;
    }

    /** The query as the view was created with: each view it reads named. */
    private static String direct(String template) {
      return REFERENCE.matcher(template).replaceAll("$1");
    }

    /** Whether {@code view} aggregates: as a FROM subquery it is kept as a hidden view. */
    private static boolean aggregates(View view) {
      String shape = view.query().shape();
      return shape.contains("aggregate") || shape.equals("distinct");
    }

    /**
     * The query with each aggregating view it reads replaced by the query that view was created
     * with, as a FROM subquery (which the driver keeps as a hidden view), and the other views it
     * reads named; the views still named in it are added to {@code named}. (Views without aggregate
     * stay named: a FROM subquery without aggregate below a MIN/MAX meets a known unparser bug in
     * GROUP_RECOMPUTE, "AS t0 AS t2", independent of hidden views.)
     */
    private String withAggregatesInlined(String template, Set<String> named) {
      Matcher references = REFERENCE.matcher(template);
      StringBuilder result = new StringBuilder();
      while (references.find()) {
        View read = views.get(references.group(1));
        String replacement;
        if (aggregates(read)) {
          replacement = "(" + read.sql() + ")";
          named.addAll(read.reads());
        } else {
          replacement = read.name();
          named.add(read.name());
        }
        references.appendReplacement(result, Matcher.quoteReplacement(replacement));
      }
      references.appendTail(result);
      return result.toString();
    }

    /** The query with each view it reads replaced, recursively, by that view's query. */
    private String inlined(String template) {
      Matcher references = REFERENCE.matcher(template);
      StringBuilder result = new StringBuilder();
      while (references.find()) {
        View read = views.get(references.group(1));
        String query = read.inline() ? read.sql() : inlined(read.query().template());
        references.appendReplacement(result, Matcher.quoteReplacement("(" + query + ")"));
      }
      references.appendTail(result);
      return result.toString();
    }

    /** The view equals its query, run directly (reading the stored content of views below). */
    private void check(String name, String where) throws SQLException {
      log.add("-- check " + name);
      View view = views.get(name);
      ViewCheck.assertMatches(
          connection,
          name,
          view.sql(),
          "step " + step + ", " + where + " (level-" + view.level() + " view " + name + ")");
      ViewCheck.assertHiddenViewsMatch(connection, name, "step " + step + ", " + where);
      long rows = Long.parseLong(ViewCheck.rows(connection, "SELECT count(*) FROM " + name).get(0));
      stats.checks++;
      stats.viewRows += rows;
      stats.checksPerLevel.merge(view.level(), 1, Integer::sum);
      if (rows == 0) {
        stats.emptyPerLevel.merge(view.level(), 1, Integer::sum);
      }
    }

    /** The view equals its query fully inlined down to the base tables. */
    private void checkInlined(String name, String where) throws SQLException {
      View view = views.get(name);
      if (view.reads().isEmpty() || view.inline()) {
        return; // the same as its query (an inline view's query holds the views it inlined)
      }
      log.add("-- check " + name + " against its query inlined down to the base tables");
      ViewCheck.assertMatches(
          connection,
          name,
          inlined(view.query().template()),
          "step "
              + step
              + ", "
              + where
              + " (level-"
              + view.level()
              + " view "
              + name
              + ", against its query inlined down to the base tables)");
      stats.inlinedChecks++;
    }

    /**
     * Every object in the catalog with its definition, and the row count and a content hash of
     * every table (the driver's hidden ones included), as {@link ScenarioRunner} takes it.
     */
    private List<String> fingerprint() throws SQLException {
      List<String> state = new ArrayList<>();
      for (String table :
          ViewCheck.rows(
              connection,
              "SELECT database_name, schema_name, table_name, sql FROM duckdb_tables()"
                  + " ORDER BY ALL")) {
        String[] parts = table.split("\t");
        String name = quote(parts[0]) + "." + quote(parts[1]) + "." + quote(parts[2]);
        state.add(table);
        state.addAll(
            ViewCheck.rows(connection, "SELECT count(*), sum(hash(x)) FROM " + name + " x"));
      }
      state.addAll(
          ViewCheck.rows(
              connection,
              "SELECT database_name, schema_name, view_name, sql FROM duckdb_views()"
                  + " WHERE NOT internal ORDER BY ALL"));
      return state;
    }

    private static String quote(String identifier) {
      return "\"" + identifier.replace("\"", "\"\"") + "\"";
    }

    private <T> T pick(List<T> list) {
      return list.get(random.nextInt(list.size()));
    }
  }
}
