package org.calciteivm.tests;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.calciteivm.tests.RandomSql.Column;
import org.calciteivm.tests.RandomSql.Type;

/**
 * Random aggregate and {@code SELECT DISTINCT} view queries over the table of a {@link RandomSql},
 * and the writes that stress them: NULL-heavy inserts with duplicates, updates that move rows
 * between groups, deletes and updates of the current MIN or MAX, and deletes of every row.
 *
 * <p>Filters, scalar expressions and the plain inserts, deletes and updates come from {@link
 * RandomSql}, so everything stays valid for both DuckDB and Calcite. Values come from small domains
 * with many NULLs so that groups collide, empty out and hold only NULLs.
 *
 * <p>SUM and AVG over DOUBLE values depend on the order of additions, which a maintained view does
 * not share with a recompute, and AVG over DECIMAL values may differ from DuckDB's in the last bit
 * (a deviation the README documents): such output columns are marked approximate (see {@link
 * AggCheck}). DOUBLE sums are kept out of HAVING and CASE conditions, where a difference in the
 * last bit could flip a comparison.
 */
final class AggSql {
  /**
   * A view query and, per output column, whether it may differ from a recompute in the last bits.
   */
  record ViewQuery(String sql, List<Boolean> approximate) {}

  /** A select item or an aggregate call, and whether its value is approximate. */
  private record Item(String sql, boolean approximate) {}

  /** An aggregate's numeric argument and the type it was generated as. */
  private record Measure(String sql, Type type) {}

  private static final String[] INTS = {"0", "1", "2", "3", "(-1)", "(-2)"};
  private static final String[] TEXTS = {"'a'", "'b'", "'ab'", "''", "'xyz'"};
  // 0.1 and 0.7 have no exact binary value: their sums depend on the order of additions.
  private static final String[] DOUBLES = {"0.5", "-1.25", "2.0", "0.1", "0.7"};
  private static final String[] DECIMALS = {"1.50", "-2.25", "0.00", "10.10", "0.01"};
  private static final String[] DATES = {"DATE '2024-01-01'", "DATE '2024-02-29'"};
  private static final String[] TIMESTAMPS = {
    "TIMESTAMP '2024-01-01 10:00:00'", "TIMESTAMP '2023-12-31 23:59:59.999'"
  };

  private static final String BARE_LITERAL =
      "\\(?-?[0-9.]+\\)?|'([^']|'')*'|TRUE|FALSE|(DATE|TIMESTAMP) '[^']*'";

  private final Random random;
  private final RandomSql sql;
  private final String table;
  private final List<Column> columns;
  private int aliases;

  /**
   * The value the DISTINCT aggregates of the view being generated take (one per view: calcite-ivm
   * keeps one count per group and value), with its FILTER; null if it has none.
   */
  private String distinctValue;

  AggSql(Random random, RandomSql sql, String table, List<Column> columns) {
    this.random = random;
    this.sql = sql;
    this.table = table;
    this.columns = List.copyOf(columns);
  }

  /** A DISTINCT view one time in eight, otherwise an aggregate view. */
  ViewQuery viewQuery() {
    return random.nextInt(8) == 0 ? distinctQuery() : aggregateQuery();
  }

  /** {@code SELECT DISTINCT} of one to three columns or expressions, usually filtered. */
  private ViewQuery distinctQuery() {
    List<String> items = new ArrayList<>();
    for (int n = 1 + random.nextInt(3); n > 0; n--) {
      Column column = pick(columns);
      items.add(
          random.nextInt(3) == 0
              ? sql.expression(column.type(), 1) + " AS " + alias()
              : column.name() + " AS " + alias());
    }
    // Values are compared exactly: DISTINCT adds nothing up.
    return new ViewQuery(
        "SELECT DISTINCT " + String.join(", ", items) + " FROM " + table + where(),
        Collections.nCopies(items.size(), false));
  }

  /**
   * Zero to two group keys (columns or expressions, NULL-able, one sometimes left out of the select
   * list, sometimes grouped by ROLLUP, CUBE or GROUPING SETS), one to four aggregates (some with
   * FILTER, sometimes an expression over aggregates), an optional WHERE and an optional HAVING.
   */
  private ViewQuery aggregateQuery() {
    int keyCount =
        switch (random.nextInt(10)) {
          case 0, 1 -> 0;
          case 2, 3, 4, 5 -> 1;
          default -> 2;
        };
    List<String> keys = new ArrayList<>();
    List<String> keyAliases = new ArrayList<>();
    List<Item> items = new ArrayList<>();
    boolean unaliased = false;
    for (int i = 0; i < keyCount; i++) {
      String key = groupKey();
      if (keys.contains(key)) {
        continue;
      }
      keys.add(key);
      if (random.nextInt(10) == 0) {
        continue; // a key left out of the select list: groups may give duplicate rows
      }
      if (!unaliased && random.nextInt(6) == 0) {
        unaliased = true;
        items.add(new Item(key, false));
      } else {
        String alias = alias();
        keyAliases.add(alias);
        items.add(new Item(key + " AS " + alias, false));
      }
    }
    // sometimes grouping sets over the keys, with GROUPING() of a key
    String groupBy = String.join(", ", keys);
    if (!keys.isEmpty() && random.nextInt(5) == 0) {
      groupBy = groupingSets(keys);
      if (random.nextBoolean()) {
        items.add(new Item("GROUPING(" + keys.get(0) + ") AS " + alias(), false));
      }
    }
    distinctValue = random.nextInt(4) == 0 ? exactNumeric() : null;
    String distinctFilter =
        random.nextInt(4) == 0 ? " FILTER (WHERE " + sql.predicate(1) + ")" : "";
    for (int n = 1 + random.nextInt(4); n > 0; n--) {
      Item aggregate =
          distinctValue != null && random.nextInt(2) == 0
              ? distinctAggregate(distinctFilter)
              : random.nextInt(6) == 0 ? overAggregates() : aggregate();
      // An unaliased aggregate gets DuckDB's name, e.g. sum(i0) or count_star().
      if (!unaliased && random.nextInt(8) == 0 && !aggregate.sql().contains("FILTER")) {
        unaliased = true;
        items.add(aggregate);
      } else {
        items.add(new Item(aggregate.sql() + " AS " + alias(), aggregate.approximate()));
      }
    }
    // sometimes a window function over the groups, ordered or partitioned by exact aggregates
    if (groupBy.equals(String.join(", ", keys)) && random.nextInt(6) == 0) {
      items.add(new Item(windowOverGroups(keys) + " AS " + alias(), false));
    }
    if (random.nextInt(4) == 0) {
      Collections.shuffle(items, random);
    }
    StringBuilder query =
        new StringBuilder("SELECT ")
            .append(String.join(", ", items.stream().map(Item::sql).toList()))
            .append(" FROM ")
            .append(table)
            .append(where());
    if (!keys.isEmpty()) {
      query.append(" GROUP BY ").append(groupBy);
    }
    if (random.nextInt(keys.isEmpty() ? 8 : 4) == 0) {
      query.append(" HAVING ").append(having());
    }
    // sometimes the top groups: ordered by all the keys (groups never tie in them), by their names
    if (!keys.isEmpty()
        && keyAliases.size() == keys.size()
        && groupBy.equals(String.join(", ", keys))
        && random.nextInt(6) == 0) {
      List<String> order = new ArrayList<>();
      for (String alias : keyAliases) {
        order.add(alias + (random.nextBoolean() ? " DESC" : "") + " NULLS FIRST");
      }
      Collections.shuffle(order, random);
      query
          .append(" ORDER BY ")
          .append(String.join(", ", order))
          .append(" LIMIT ")
          .append(1 + random.nextInt(4));
      if (random.nextInt(3) == 0) {
        query.append(" OFFSET ").append(1 + random.nextInt(2));
      }
    }
    return new ViewQuery(query.toString(), items.stream().map(Item::approximate).toList());
  }

  /**
   * A window function over the query's groups that reads its aggregates: a rank by an exact
   * aggregate, or a sum of a count over a partition of the groups (by the first key, if any); with
   * keys, also a function of the row's position ordered by all the keys (groups never tie in them).
   */
  private String windowOverGroups(List<String> keys) {
    String partition =
        keys.isEmpty() || random.nextBoolean() ? "" : "PARTITION BY " + keys.get(0) + " ";
    String exact = random.nextBoolean() ? "COUNT(*)" : "SUM(" + exactNumeric() + ")";
    String allKeys = String.join(", ", keys);
    return switch (random.nextInt(keys.isEmpty() ? 3 : 5)) {
      case 0 -> "RANK() OVER (" + partition + "ORDER BY " + exact + " DESC)";
      case 1 -> "DENSE_RANK() OVER (" + partition + "ORDER BY " + exact + ")";
      case 2 -> "SUM(COUNT(*)) OVER (" + partition.trim() + ")";
      case 3 -> "LAG(" + exact + ") OVER (" + partition + "ORDER BY " + allKeys + ")";
      default ->
          "ROW_NUMBER() OVER (" + partition + "ORDER BY " + exact + " DESC, " + allKeys + ")";
    };
  }

  /** {@code ROLLUP}, {@code CUBE} or {@code GROUPING SETS} (with the empty set) of the keys. */
  private String groupingSets(List<String> keys) {
    String all = String.join(", ", keys);
    return switch (random.nextInt(3)) {
      case 0 -> "ROLLUP (" + all + ")";
      case 1 -> "CUBE (" + all + ")";
      default -> "GROUPING SETS ((" + all + "), (" + keys.get(keys.size() - 1) + "), ())";
    };
  }

  private String where() {
    return random.nextBoolean() ? "" : " WHERE " + sql.predicate(1 + random.nextInt(2));
  }

  /**
   * A column or an expression (sometimes a constant one), but never a bare literal: a number in
   * GROUP BY is a position to Calcite (an integer one to DuckDB too).
   */
  private String groupKey() {
    Column column = pick(columns);
    if (random.nextInt(3) > 0) {
      return column.name();
    }
    String expression = sql.expression(column.type(), 1);
    return expression.matches(BARE_LITERAL) ? column.name() : expression;
  }

  /**
   * One of SUM, COUNT(*), COUNT(x), AVG, MIN, MAX and the variances and standard deviations, with a
   * FILTER clause one time in five.
   */
  private Item aggregate() {
    Item call =
        switch (random.nextInt(14)) {
          // variances and recomputed aggregates are not maintained beside DISTINCT aggregates
          case 10, 11 -> distinctValue == null ? variance() : sum(numeric());
          case 12, 13 -> distinctValue == null ? recomputed() : sum(numeric());
          case 0, 1 -> sum(numeric());
          case 2 -> new Item("COUNT(*)", false);
          case 3 -> new Item("COUNT(" + anyArgument() + ")", false);
          case 4, 5 -> avg(numeric());
          case 6, 7 -> new Item("MIN(" + ordered() + ")", false);
          default -> new Item("MAX(" + ordered() + ")", false);
        };
    if (random.nextInt(5) == 0) {
      return new Item(call.sql() + " FILTER (WHERE " + sql.predicate(1) + ")", call.approximate());
    }
    return call;
  }

  /**
   * An aggregate whose touched groups are recomputed: a median or quantile (of exact values, so
   * that a recompute gives the same DOUBLE), a bitwise fold of integers, or a string or list of the
   * values ordered by themselves.
   */
  private Item recomputed() {
    String argument = intArgument();
    // an order-dependent aggregate orders by a column (an expression there is refused)
    List<Column> intColumns = columns.stream().filter(c -> c.type() == Type.INT).toList();
    String column = intColumns.isEmpty() ? null : pick(intColumns).name();
    int kind = random.nextInt(6);
    if (column == null && (kind == 3 || kind == 4)) {
      kind = 5;
    }
    return switch (kind) {
      case 0 -> new Item("median(" + argument + ")", false);
      case 1 -> new Item("quantile_cont(" + argument + ", 0.25)", false);
      case 2 -> new Item("quantile_disc(" + argument + ", 0.5)", false);
      case 3 ->
          new Item(
              "string_agg(CAST("
                  + column
                  + " AS VARCHAR), '|' ORDER BY "
                  + column
                  + (random.nextBoolean() ? " DESC" : "")
                  + " NULLS FIRST)",
              false);
      case 4 -> new Item("array_agg(" + column + " ORDER BY " + column + ")", false);
      default -> new Item("bit_xor(" + argument + ")", false);
    };
  }

  /**
   * COUNT, SUM, AVG, MIN or MAX of the view's DISTINCT value (sometimes another), with its FILTER.
   */
  private Item distinctAggregate(String filter) {
    String function = pick(List.of("COUNT", "COUNT", "SUM", "AVG", "MIN", "MAX"));
    // sometimes another value: one hidden view per value, joined on the group keys
    String value = random.nextInt(4) == 0 ? exactNumeric() : distinctValue;
    return new Item(function + "(DISTINCT " + value + ")" + filter, function.equals("AVG"));
  }

  /** Expressions over aggregates, as users write them in select lists. */
  private Item overAggregates() {
    return switch (random.nextInt(6)) {
      case 0 -> {
        Measure measure = numeric();
        yield new Item("SUM(" + measure.sql() + ") / COUNT(*)", measure.type() == Type.DOUBLE);
      }
      case 1 -> {
        String measure = numeric().sql();
        yield new Item("MAX(" + measure + ") - MIN(" + measure + ")", false);
      }
      case 2 ->
          new Item("CASE WHEN SUM(" + exactNumeric() + ") > 0 THEN 'pos' ELSE 'neg' END", false);
      case 3 -> new Item("COUNT(*) * 2 + COUNT(" + anyArgument() + ")", false);
      case 4 -> {
        Measure measure = numeric();
        yield new Item("COALESCE(SUM(" + measure.sql() + "), 0)", measure.type() == Type.DOUBLE);
      }
      default -> {
        String measure = exactNumeric();
        yield new Item("SUM(" + measure + ") + MIN(" + measure + ")", false);
      }
    };
  }

  /** A HAVING condition over exact aggregates, sometimes two of them combined. */
  private String having() {
    String condition =
        switch (random.nextInt(5)) {
          case 0 -> "COUNT(*) > " + random.nextInt(4);
          case 1 -> "SUM(" + exactNumeric() + ") > " + pick(INTS);
          case 2 -> "MIN(" + intArgument() + ") < " + pick(INTS);
          case 3 -> "COUNT(" + anyArgument() + ") = COUNT(*)";
          default -> "AVG(" + intArgument() + ") >= " + pick(INTS);
        };
    if (random.nextInt(4) == 0) {
      return "(" + condition + (random.nextBoolean() ? " AND " : " OR ") + having() + ")";
    }
    return condition;
  }

  /**
   * A variance or standard deviation of INTEGER values (the types it is maintained for): DOUBLE
   * values, computed from exact sums where DuckDB uses Welford's method, so compared within the
   * tolerance.
   */
  private Item variance() {
    String function =
        pick(
            new String[] {
              "var_pop", "var_samp", "stddev_pop", "stddev_samp", "variance", "stddev"
            });
    return new Item(function + "(CAST(" + intArgument() + " AS INTEGER))", true);
  }

  private Item sum(Measure measure) {
    return new Item("SUM(" + measure.sql() + ")", measure.type() == Type.DOUBLE);
  }

  /**
   * AVG of DOUBLE values is approximate like SUM; so is AVG of DECIMAL values, by the README's
   * documented deviation: the view divides the DOUBLE sum by the count, where DuckDB may divide the
   * unscaled sum by count * 10^scale, which can differ in the last bit (see agg_avg.test).
   */
  private Item avg(Measure measure) {
    return new Item(
        "AVG(" + measure.sql() + ")",
        measure.type() == Type.DOUBLE || measure.type() == Type.DECIMAL);
  }

  /** A numeric column or expression of an INTEGER, DECIMAL or DOUBLE type. */
  private Measure numeric() {
    Type type = pick(new Type[] {Type.INT, Type.INT, Type.DECIMAL, Type.DOUBLE});
    return new Measure(valueOf(type), type);
  }

  private String exactNumeric() {
    return valueOf(random.nextInt(3) == 0 ? Type.DECIMAL : Type.INT);
  }

  private String intArgument() {
    return valueOf(Type.INT);
  }

  /** A column of {@code type} if the table has one (usually), otherwise an expression. */
  private String valueOf(Type type) {
    List<Column> matching = columns.stream().filter(c -> c.type() == type).toList();
    if (!matching.isEmpty() && random.nextInt(5) < 3) {
      return pick(matching).name();
    }
    return sql.expression(type, 1 + random.nextInt(2));
  }

  /** An argument for MIN or MAX: any ordered type, BOOLEAN rarely. */
  private String ordered() {
    List<Column> candidates =
        columns.stream().filter(c -> c.type() != Type.BOOL || random.nextInt(4) == 0).toList();
    Column column = pick(candidates);
    return random.nextInt(4) == 0 ? sql.expression(column.type(), 1) : column.name();
  }

  private String anyArgument() {
    Column column = pick(columns);
    return random.nextInt(4) == 0 ? sql.expression(column.type(), 1) : column.name();
  }

  /**
   * An INSERT of up to {@code distinctRows} rows, each repeated one to three times, into a subset
   * of the columns (the others are NULL) with NULL for almost half of the given values.
   */
  String nullHeavyInsert(int distinctRows) {
    List<Column> target = new ArrayList<>(columns);
    Collections.shuffle(target, random);
    target = target.subList(0, 1 + random.nextInt(target.size()));
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < distinctRows; i++) {
      List<String> values = new ArrayList<>();
      for (Column column : target) {
        values.add(random.nextInt(9) < 4 ? "NULL" : literal(column.type()));
      }
      String row = "(" + String.join(", ", values) + ")";
      for (int copies = 1 + random.nextInt(3); copies > 0; copies--) {
        rows.add(row);
      }
    }
    Collections.shuffle(rows, random);
    return "INSERT INTO "
        + table
        + " ("
        + String.join(", ", target.stream().map(Column::name).toList())
        + ") VALUES "
        + String.join(", ", rows);
  }

  /**
   * An UPDATE that sets one column, a likely group key or measure, to a literal, to NULL or to
   * another column of its type: rows move between groups and in and out of filters.
   */
  String moveRows() {
    Column column = pick(columns);
    List<Column> sameType =
        columns.stream().filter(c -> c.type() == column.type() && c != column).toList();
    String value =
        switch (random.nextInt(4)) {
          case 0 -> "NULL";
          case 1 -> sameType.isEmpty() ? literal(column.type()) : pick(sameType).name();
          default -> literal(column.type());
        };
    return "UPDATE "
        + table
        + " SET "
        + column.name()
        + " = "
        + value
        + (random.nextInt(6) == 0 ? "" : " WHERE " + sql.predicate(1));
  }

  /**
   * A delete or update of every row that holds the current MIN or MAX of a column (ties included):
   * what forces MIN/MAX views to recompute the groups affected.
   */
  String hitExtremum() {
    List<Column> ordered = columns.stream().filter(c -> c.type() != Type.BOOL).toList();
    Column column = pick(ordered);
    String extremum =
        "(SELECT "
            + (random.nextBoolean() ? "MAX" : "MIN")
            + "("
            + column.name()
            + ") FROM "
            + table;
    // Sometimes only within the rows of one value of another column, i.e. one likely group.
    Column other = pick(columns);
    boolean inGroup = other != column && random.nextBoolean();
    String otherValue = literal(other.type());
    extremum += inGroup ? " WHERE " + other.name() + " = " + otherValue + ")" : ")";
    String where =
        " WHERE "
            + column.name()
            + " = "
            + extremum
            + (inGroup ? " AND " + other.name() + " = " + otherValue : "");
    if (random.nextBoolean()) {
      return "DELETE FROM " + table + where;
    }
    String value = random.nextBoolean() ? "NULL" : literal(column.type());
    return "UPDATE " + table + " SET " + column.name() + " = " + value + where;
  }

  /** Deletes every row: DELETE without WHERE or TRUNCATE. */
  String deleteAll() {
    return random.nextBoolean() ? "DELETE FROM " + table : "TRUNCATE " + table;
  }

  private String literal(Type type) {
    return switch (type) {
      case INT -> pick(INTS);
      case TEXT -> pick(TEXTS);
      case DOUBLE -> pick(DOUBLES);
      case DECIMAL -> pick(DECIMALS);
      case DATE -> pick(DATES);
      case TIMESTAMP -> pick(TIMESTAMPS);
      case BOOL -> random.nextBoolean() ? "TRUE" : "FALSE";
    };
  }

  private String alias() {
    aliases++;
    return random.nextInt(12) == 0 ? "\"Agg " + aliases + "\"" : "a" + aliases;
  }

  private <T> T pick(List<T> list) {
    return list.get(random.nextInt(list.size()));
  }

  private <T> T pick(T[] array) {
    return array[random.nextInt(array.length)];
  }
}
