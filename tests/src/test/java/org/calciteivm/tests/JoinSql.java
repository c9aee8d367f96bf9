package org.calciteivm.tests;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

/**
 * Random SQL for join views: two to four tables of one shape with small domains (so that join keys
 * match many rows), NULL keys and duplicate rows; view queries over inner joins of two to four
 * inputs (self-joins included) with projections, aggregates or DISTINCT on top; and writes that
 * insert, delete and update rows, join keys included.
 *
 * <p>Every table {@code t<i>} has the columns {@code id INTEGER, k INTEGER, j VARCHAR, v INTEGER, d
 * DOUBLE} and one column of its own, {@code m<i> DECIMAL(6,2)}: the shared names make the inputs of
 * a join clash on names, the last column does not. {@code k} (0 to 3) and {@code j} ('a' to 'c')
 * are the usual join keys, both often NULL.
 *
 * <p>In a <em>keyed</em> set of tables {@code t0.id} and {@code t1.id} are PRIMARY KEYs and every
 * other table's {@code k} REFERENCES {@code t0}, so that the driver may leave out join terms by the
 * declared keys, and a view that selects the keys (or columns equal to them) deletes by key. Writes
 * that violate a constraint are expected then: DuckDB refuses them, and the test goes on.
 *
 * <p>Views join with {@code JOIN ... ON} (equi, composite, expression, {@code IS NOT DISTINCT FROM}
 * and theta conditions, {@code CROSS JOIN}), with {@code LEFT}, {@code RIGHT} and {@code FULL}
 * joins on equalities, or with commas and WHERE; inputs are sometimes a filtered or projected
 * subquery. Filters go to WHERE or to an ON clause. Everything is accepted by both DuckDB and
 * Calcite; as in {@link AggSql}, SUM and AVG over DOUBLE values (and AVG over DECIMAL values) are
 * marked approximate for {@link AggCheck}, and kept out of HAVING.
 */
final class JoinSql {
  /** Rows of a table are kept below this so that joins of four inputs stay small. */
  static final int MAX_ROWS = 24;

  private static final String[] TEXTS = {"'a'", "'b'", "'c'"};
  private static final String[] DOUBLES = {"0.5", "-1.25", "2.0", "0.1", "0.7"};
  private static final String[] DECIMALS = {"1.50", "-2.25", "0.00", "10.10", "0.01"};
  private static final String[] SHARED = {"id", "k", "j", "v", "d"};

  /** The number of values of the primary key of a keyed set: 0 to 3 exist from the start. */
  private static final int KEYS = 10;

  /** An input of a join: a table (or a subquery over it) under an alias. */
  private record Input(int table, String alias) {
    String column(String name) {
      return alias + "." + (name.equals("m") ? "m" + table : name);
    }
  }

  private final Random random;
  private final int tables;
  private final boolean keyed;
  private int aliases;

  JoinSql(Random random, int tables, boolean keyed) {
    this.random = random;
    this.tables = tables;
    this.keyed = keyed;
  }

  int tables() {
    return tables;
  }

  boolean keyed() {
    return keyed;
  }

  /** Whether {@code table} has a primary key: the first two of a keyed set. */
  private boolean primary(int table) {
    return keyed && table <= 1;
  }

  static String table(int table) {
    return "t" + table;
  }

  String createTable(int table) {
    return "CREATE TABLE "
        + table(table)
        + (primary(table) ? " (id INTEGER PRIMARY KEY" : " (id INTEGER")
        + (keyed && table > 0 ? ", k INTEGER REFERENCES t0 (id)" : ", k INTEGER")
        + ", j VARCHAR, v INTEGER, d DOUBLE, m"
        + table
        + " DECIMAL(6,2))";
  }

  // ---------------------------------------------------------------- writes

  /**
   * An INSERT of up to {@code distinctRows} rows, each repeated one to three times, sometimes into
   * a subset of the columns (the others are NULL).
   */
  String insert(int table, int distinctRows) {
    List<String> columns = new ArrayList<>(List.of("id", "k", "j", "v", "d", "m" + table));
    boolean subset = random.nextInt(6) == 0;
    if (subset) {
      Collections.shuffle(columns, random);
      columns = columns.subList(0, 1 + random.nextInt(columns.size()));
    }
    if (primary(table) && !columns.contains("id")) {
      columns.add(0, "id");
    }
    List<String> rows = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < (primary(table) ? Math.min(distinctRows, KEYS) : distinctRows); i++) {
      List<String> values = new ArrayList<>();
      for (String column : columns) {
        values.add(primary(table) && column.equals("id") ? newKey(keys) : value(column));
      }
      String row = "(" + String.join(", ", values) + ")";
      int copies = primary(table) ? 1 : random.nextInt(3) == 0 ? 2 + random.nextInt(2) : 1;
      for (; copies > 0; copies--) {
        rows.add(row);
      }
    }
    Collections.shuffle(rows, random);
    return "INSERT INTO "
        + table(table)
        + (subset ? " (" + String.join(", ", columns) + ")" : "")
        + " VALUES "
        + String.join(", ", rows);
  }

  /** A primary key value not among {@code used}; it may exist in the table already. */
  private String newKey(List<String> used) {
    String key;
    do {
      key = String.valueOf(random.nextInt(KEYS));
    } while (used.contains(key));
    used.add(key);
    return key;
  }

  /**
   * The first rows of a table: for the primary key table of a keyed set the keys 0 to 3 (the values
   * of {@code k} elsewhere) and a few others, otherwise as {@link #insert}.
   */
  String initialInsert(int table, int distinctRows) {
    if (!primary(table)) {
      return insert(table, distinctRows);
    }
    List<String> rows = new ArrayList<>();
    for (int key = 0; key < KEYS; key++) {
      if (key < 4 || random.nextInt(3) == 0) {
        rows.add(
            String.format(
                "(%d, %s, %s, %s, %s, %s)",
                key, value("k"), value("j"), value("v"), value("d"), value("m")));
      }
    }
    return "INSERT INTO " + table(table) + " VALUES " + String.join(", ", rows);
  }

  /**
   * Copies rows of a table (this one, or another: all tables have the same column types). In a
   * keyed set: into the primary key table a plain insert instead; into another table, half of the
   * time rows that reference keys of t0 (new ones too).
   */
  String insertSelect(int table) {
    if (primary(table)) {
      return insert(table, 1 + random.nextInt(2));
    }
    if (keyed && random.nextBoolean()) {
      return "INSERT INTO "
          + table(table)
          + " SELECT COALESCE(v, 1), id, j, v, d, m0 FROM t0 WHERE "
          + rowPredicate();
    }
    int source = random.nextInt(3) == 0 ? random.nextInt(tables) : table;
    return "INSERT INTO "
        + table(table)
        + " SELECT * FROM "
        + table(source)
        + " WHERE "
        + rowPredicate();
  }

  /** A DELETE by predicate, sometimes of exactly one copy of a row. */
  String delete(int table) {
    String name = table(table);
    if (random.nextInt(4) == 0) {
      return String.format(
          "DELETE FROM %s WHERE rowid = (SELECT %s(rowid) FROM %s WHERE %s)",
          name, random.nextBoolean() ? "min" : "max", name, rowPredicate());
    }
    return "DELETE FROM " + name + " WHERE " + rowPredicate();
  }

  /** Every row goes. */
  String deleteAll(int table) {
    return random.nextBoolean() ? "DELETE FROM " + table(table) : "TRUNCATE " + table(table);
  }

  /** An UPDATE of one or two columns, usually a join key, of the rows matching a predicate. */
  String update(int table) {
    List<String> assignments = new ArrayList<>();
    List<String> done = new ArrayList<>();
    for (int n = random.nextInt(4) == 0 ? 2 : 1; n > 0; n--) {
      String assignment = assignment(table);
      String column = assignment.substring(0, assignment.indexOf(' '));
      if (!done.contains(column)) {
        done.add(column);
        assignments.add(assignment);
      }
    }
    // NULLs are set on a few rows only: NULL keys would otherwise take over the tables.
    String where =
        String.join(" ", assignments).contains("NULL")
            ? " WHERE id = " + (1 + random.nextInt(8))
            : random.nextInt(8) == 0 ? "" : " WHERE " + rowPredicate();
    return "UPDATE " + table(table) + " SET " + String.join(", ", assignments) + where;
  }

  private String assignment(int table) {
    return switch (random.nextInt(16)) {
      case 0, 1 -> "k = (k + 1) % 4";
      case 2 -> random.nextBoolean() ? "k = NULL" : "k = COALESCE(k, " + random.nextInt(4) + ")";
      case 3, 4 -> "k = " + random.nextInt(4);
      case 5 -> "k = CASE WHEN k = 1 THEN 2 WHEN k = 2 THEN 1 ELSE k END";
      case 6 -> "k = COALESCE(v, 0) % 4";
      case 7 -> "j = " + pick(TEXTS);
      case 8 -> random.nextBoolean() ? "j = NULL" : "j = COALESCE(j, " + pick(TEXTS) + ")";
      case 9 -> "j = CASE WHEN j = 'a' THEN 'b' ELSE 'a' END";
      case 10 -> "v = v + 1";
      case 11 -> "v = v - 1";
      case 12 -> "v = " + (random.nextInt(8) - 2);
      case 13 -> "d = d * 2.0";
      case 14 -> "id = id % 8 + 1";
      default -> "m" + table + " = m" + table + " + 1.25";
    };
  }

  /** A predicate over the shared columns of one table, unqualified. */
  String rowPredicate() {
    String predicate =
        switch (random.nextInt(12)) {
          case 0 -> "k = " + random.nextInt(4);
          case 1 -> "k IS NULL";
          case 2 -> "k IN (" + random.nextInt(4) + ", " + random.nextInt(4) + ")";
          case 3 -> "j = " + pick(TEXTS);
          case 4 -> "j IS NULL";
          case 5 -> "v > " + random.nextInt(5);
          case 6 -> "v <= " + random.nextInt(3);
          case 7 -> "id % 3 = " + random.nextInt(3);
          case 8 -> "id = " + (1 + random.nextInt(8));
          case 9 -> "d IS NULL";
          case 10 -> "d < 1.0";
          default -> "(k = " + random.nextInt(4) + " OR j = " + pick(TEXTS) + ")";
        };
    if (random.nextInt(5) == 0) {
      return predicate + (random.nextBoolean() ? " AND " : " OR ") + rowPredicate();
    }
    return predicate;
  }

  private String value(String column) {
    if (random.nextInt(6) == 0) {
      return "NULL";
    }
    return switch (column) {
      case "id" -> String.valueOf(1 + random.nextInt(8));
      case "k" -> String.valueOf(random.nextInt(4));
      case "j" -> pick(TEXTS);
      case "v" -> {
        int v = random.nextInt(8) - 2;
        yield v < 0 ? "(" + v + ")" : String.valueOf(v);
      }
      case "d" -> pick(DOUBLES);
      default -> pick(DECIMALS);
    };
  }

  // ---------------------------------------------------------------- views

  /** A join view: a projection (about half), an aggregate or a SELECT DISTINCT over the join. */
  AggSql.ViewQuery viewQuery() {
    aliases = 0;
    int n =
        switch (random.nextInt(20)) {
          case 0, 1, 2, 3, 4, 5, 6, 7, 8, 9 -> 2;
          case 10, 11, 12, 13, 14, 15 -> 3;
          default -> 4;
        };
    List<Input> inputs = new ArrayList<>();
    // sometimes only tables with a primary key: a projection that selects their ids has a key
    boolean keyedOnly = keyed && random.nextInt(3) == 0;
    for (int i = 0; i < n; i++) {
      int table = keyedOnly ? random.nextInt(2) : random.nextInt(tables);
      if (i > 0 && random.nextInt(5) == 0) {
        table = inputs.get(random.nextInt(i)).table(); // a self-join
      }
      inputs.add(new Input(table, "a" + i));
    }
    String from = from(inputs);
    if (random.nextInt(5) == 0) {
      from = withSubquery(from, pick(inputs));
    }
    int kind = random.nextInt(20);
    if (kind < 9) {
      return projection(inputs, from);
    }
    if (kind < 17) {
      return aggregate(inputs, from);
    }
    return distinct(inputs, from);
  }

  /**
   * The FROM clause and WHERE, as {@code FROM ... [WHERE ...]}. At most one condition that is not
   * an equality of keys (a theta condition, a disjunction or a cross join) per view, and none in
   * joins of four inputs, so that joins stay small.
   */
  private String from(List<Input> inputs) {
    boolean commas = random.nextInt(5) < 2;
    boolean wideAllowed = inputs.size() < 4;
    List<String> where = new ArrayList<>();
    StringBuilder from = new StringBuilder(" FROM ").append(source(inputs.get(0)));
    for (int i = 1; i < inputs.size(); i++) {
      Input input = inputs.get(i);
      Input partner = inputs.get(random.nextInt(i));
      String condition = condition(input, partner, wideAllowed);
      if (condition.equals("TRUE") || isWide(condition)) {
        wideAllowed = false;
      }
      List<String> on = new ArrayList<>();
      if (!condition.equals("TRUE")) {
        on.add(condition);
      }
      // An outer join takes any condition with an equality (a wide one would be slow to check).
      String outer =
          !commas && random.nextInt(3) == 0 && outerJoinable(condition)
              ? pick(List.of(" LEFT JOIN ", " LEFT OUTER JOIN ", " RIGHT JOIN ", " FULL JOIN "))
              : null;
      if (random.nextInt(5) == 0) {
        // A filter in the ON clause, over this input and possibly an earlier one.
        Input other = inputs.get(random.nextInt(i + 1));
        on.add(outer == null ? filter(input, other) : filter(other, other));
      }
      if (outer != null) {
        from.append(outer).append(source(input)).append(" ON ").append(String.join(" AND ", on));
      } else if (commas) {
        from.append(", ").append(source(input));
        where.addAll(on);
      } else if (on.isEmpty()) {
        from.append(" CROSS JOIN ").append(source(input));
      } else {
        from.append(random.nextInt(4) == 0 ? " INNER JOIN " : " JOIN ")
            .append(source(input))
            .append(" ON ")
            .append(String.join(" AND ", on));
      }
    }
    for (int n = random.nextInt(20) < 9 ? 0 : random.nextInt(4) == 0 ? 2 : 1; n > 0; n--) {
      where.add(filter(pick(inputs), pick(inputs)));
    }
    Collections.shuffle(where, random);
    return where.isEmpty() ? from.toString() : from + " WHERE " + String.join(" AND ", where);
  }

  /**
   * {@code from} with an {@code EXISTS}, {@code NOT EXISTS} or {@code IN} subquery over a table
   * added to its WHERE clause, correlated with {@code outer} on one or two keys, or not at all; or
   * with the same table joined by DuckDB's {@code SEMI JOIN} or {@code ANTI JOIN}; or compared with
   * a scalar subquery over it, uncorrelated or correlated by equalities. The EXISTS, NOT EXISTS or
   * IN condition sometimes stands under an OR.
   */
  private String withSubquery(String from, Input outer) {
    Input inner = new Input(random.nextInt(tables), "s" + aliases++);
    String table = table(inner.table()) + " " + inner.alias();
    String filter = random.nextBoolean() ? "" : " AND " + filter(inner, inner);
    int kind = random.nextInt(9);
    if (kind == 8) {
      // a scalar subquery (one row: an aggregate without GROUP BY), uncorrelated or correlated by
      // equalities (decorrelated into a left join with it grouped by its keys)
      String correlation =
          random.nextBoolean()
              ? "TRUE"
              : equal(inner, outer, "j", "j")
                  + (random.nextInt(3) == 0 ? " AND " + equal(inner, outer, "v", "v") : "");
      return appendFilter(
          from,
          outer.column("k")
              + (random.nextBoolean() ? " > " : " <= ")
              + "(SELECT "
              + pick(List.of("AVG(", "MAX(", "COUNT(", "SUM("))
              + inner.column("k")
              + ") FROM "
              + table
              + " WHERE "
              + correlation
              + filter
              + ")");
    }
    if (kind >= 6) {
      // DuckDB's SEMI JOIN / ANTI JOIN keywords, before the query's own WHERE clause
      String join =
          (kind == 6 ? " SEMI JOIN " : " ANTI JOIN ")
              + table
              + " ON "
              + equal(inner, outer, "k", "k")
              + filter;
      int where = ownWhere(from);
      return where < 0 ? from + join : from.substring(0, where) + join + from.substring(where);
    }
    // in a keyed set, a subquery over a referencing table correlated by its foreign key (k
    // REFERENCES t0 (id)): the key may leave out a join term through the subquery's DISTINCT
    boolean byForeignKey = keyed && outer.table() == 0 && inner.table() > 0 && random.nextBoolean();
    String outerKey = byForeignKey ? "id" : "k";
    String predicate =
        switch (kind) {
          case 0, 1 ->
              "EXISTS (SELECT * FROM "
                  + table
                  + " WHERE "
                  + equal(inner, outer, "k", outerKey)
                  + (random.nextBoolean() ? "" : " AND " + equal(inner, outer, "j", "j"))
                  + filter
                  + ")";
          case 2, 3 ->
              "NOT EXISTS (SELECT 1 FROM "
                  + table
                  + " WHERE "
                  + (random.nextBoolean()
                      ? equal(inner, outer, "k", "k")
                      : equal(inner, outer, "j", "j"))
                  + filter
                  + ")";
          case 4 ->
              outer.column(outerKey)
                  + " IN (SELECT "
                  + inner.column("k")
                  + " FROM "
                  + table
                  + " WHERE TRUE"
                  + filter
                  + ")";
          default -> "EXISTS (SELECT * FROM " + table + " WHERE " + filter(inner, inner) + ")";
        };
    if (random.nextInt(4) == 0) {
      // under OR: written as a count of the subquery's rows at CREATE (CountedSubqueries)
      predicate = "(" + predicate + " OR " + filter(outer, outer) + ")";
    }
    return appendFilter(from, predicate);
  }

  /** {@code from} with {@code predicate} added to its own WHERE clause. */
  private static String appendFilter(String from, String predicate) {
    return from + (ownWhere(from) >= 0 ? " AND " : " WHERE ") + predicate;
  }

  /**
   * Where the query's own {@code WHERE} (outside parentheses) starts in {@code from}; -1 if none.
   */
  private static int ownWhere(String from) {
    int depth = 0;
    for (int i = 0; i < from.length(); i++) {
      char c = from.charAt(i);
      if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (depth == 0 && from.startsWith(" WHERE ", i)) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Whether {@code condition} suits an outer join here: one with an equality between the inputs,
   * and perhaps inequalities beside it ({@code ChangeOuterJoinRule} maintains any condition).
   */
  private static boolean outerJoinable(String condition) {
    return !condition.equals("TRUE") && !isWide(condition);
  }

  private static boolean isWide(String condition) {
    return !condition.contains(" = ") && !condition.contains("IS NOT DISTINCT FROM")
        || condition.startsWith("(");
  }

  /** A table, or one time in seven a subquery over it that filters or recomputes columns. */
  private String source(Input input) {
    String table = table(input.table());
    if (random.nextInt(7) != 0) {
      return table + " " + input.alias();
    }
    String m = "m" + input.table();
    List<String> columns = new ArrayList<>(List.of("id", "k", "j", "v", "d", m));
    switch (random.nextInt(5)) {
      case 0 -> columns.set(1, "COALESCE(k, 0) AS k");
      case 1 -> columns.set(1, "k + 1 AS k");
      case 2 -> columns.set(2, "CASE WHEN j = 'c' THEN 'a' ELSE j END AS j");
      case 3 -> columns.set(3, "v * 2 AS v");
      default -> {}
    }
    String where = random.nextBoolean() ? "" : " WHERE " + rowPredicate();
    return "(SELECT "
        + String.join(", ", columns)
        + " FROM "
        + table
        + where
        + ") "
        + (random.nextBoolean() ? "AS " : "")
        + input.alias();
  }

  /** The condition that joins {@code input} with an earlier {@code partner}; TRUE: none. */
  private String condition(Input input, Input partner, boolean wideAllowed) {
    if (random.nextInt(keyed ? 2 : 8) == 0) {
      // k = id: in a keyed set, where the input or the partner is t0, the declared key.
      return primary(partner.table()) || !primary(input.table())
          ? equal(input, partner, "k", "id")
          : equal(partner, input, "k", "id");
    }
    int choice = random.nextInt(wideAllowed ? 22 : 17);
    return switch (choice) {
      case 0, 1, 2, 3, 4, 5 -> equal(input, partner, "k", "k");
      case 6, 7 -> equal(input, partner, "j", "j");
      case 8 -> equal(input, partner, "k", "k") + " AND " + equal(input, partner, "j", "j");
      case 9 ->
          equal(input, partner, "k", "k")
              + " AND "
              + input.column("v")
              + (random.nextBoolean() ? " < " : " >= ")
              + partner.column("v");
      case 10 -> input.column("k") + " = " + partner.column("k") + " + 1";
      case 11 -> input.column("k") + " IS NOT DISTINCT FROM " + partner.column("k");
      case 12 ->
          // Keys of other types: INTEGER, DOUBLE, DECIMAL, and INTEGER against DECIMAL.
          switch (random.nextInt(5)) {
            case 0 -> equal(input, partner, "d", "d");
            case 1 -> equal(input, partner, "m", "m");
            case 2 -> equal(input, partner, "k", "m");
            default -> equal(input, partner, "id", "id");
          };
      case 13 -> equal(input, partner, "k", "v");
      case 14 ->
          input.column("k")
              + " <> "
              + partner.column("k")
              + " AND "
              + equal(input, partner, "j", "j");
      case 15 -> "COALESCE(" + input.column("j") + ", 'a') = " + partner.column("j");
      case 16 -> equal(input, partner, "j", "j") + " AND " + input.column("d") + " IS NOT NULL";
      case 17, 18 -> theta(input, partner);
      case 19 ->
          "(" + equal(input, partner, "k", "k") + " OR " + equal(input, partner, "j", "j") + ")";
      default -> "TRUE";
    };
  }

  /** {@code a.left = b.right}, the sides in either order. */
  private String equal(Input a, Input b, String left, String right) {
    return random.nextBoolean()
        ? a.column(left) + " = " + b.column(right)
        : b.column(right) + " = " + a.column(left);
  }

  private String theta(Input input, Input partner) {
    return switch (random.nextInt(5)) {
      case 0 -> input.column("v") + " < " + partner.column("v");
      case 1 -> input.column("v") + " <= " + partner.column("k");
      case 2 -> input.column("k") + " > " + partner.column("k");
      case 3 -> input.column("d") + " >= " + partner.column("d");
      default ->
          input.column("v")
              + " BETWEEN "
              + partner.column("k")
              + " AND "
              + partner.column("k")
              + " + 2";
    };
  }

  /** A filter over {@code a}, sometimes comparing with {@code b}. */
  private String filter(Input a, Input b) {
    return switch (random.nextInt(13)) {
      case 0 -> a.column("v") + " > " + (random.nextInt(4) - 1);
      case 1 -> a.column("v") + " IS NOT NULL";
      case 2 -> a.column("j") + " <> " + pick(TEXTS);
      case 3 -> a.column("k") + " IN (" + random.nextInt(4) + ", " + random.nextInt(4) + ")";
      case 4 -> a.column("d") + " < 1.0";
      case 5 -> a.column("j") + " LIKE 'a%'";
      case 6 -> a.column("m") + " > 0";
      case 7 -> "NOT (" + a.column("k") + " = " + random.nextInt(4) + ")";
      case 8 -> "(" + a.column("v") + " > 0 OR " + b.column("v") + " > 2)";
      case 9 ->
          "COALESCE("
              + a.column("v")
              + ", 0) + COALESCE("
              + b.column("v")
              + ", 0) > "
              + random.nextInt(5);
      case 10 -> "(" + a.column("k") + " IS NULL OR " + a.column("v") + " > 1)";
      case 11 -> a == b ? a.column("id") + " > 2" : a.column("id") + " <> " + b.column("id");
      default -> a.column("j") + " IS NOT NULL";
    };
  }

  private AggSql.ViewQuery projection(List<Input> inputs, String from) {
    if (random.nextInt(12) == 0) {
      return exact("SELECT *" + from, -1);
    }
    List<String> items = new ArrayList<>();
    if (inputs.stream().allMatch(input -> primary(input.table())) && random.nextBoolean()) {
      // every input's key: the view deletes by key
      for (Input input : inputs) {
        items.add(input.column("id") + " AS " + alias());
      }
    }
    for (int n = 1 + random.nextInt(5); n > 0; n--) {
      Input a = pick(inputs);
      Input b = pick(inputs);
      String item =
          switch (random.nextInt(14)) {
            case 0, 1, 2, 3, 4, 5 -> a.column(pick(SHARED));
            case 6 -> a.column("m");
            case 7 -> a.column("v") + " + " + b.column("v");
            case 8 -> "COALESCE(" + a.column("j") + ", " + b.column("j") + ")";
            case 9 -> a.column("j") + " || '-' || " + b.column("j");
            case 10 ->
                "CASE WHEN "
                    + a.column("v")
                    + " > "
                    + b.column("v")
                    + " THEN "
                    + a.column("id")
                    + " ELSE "
                    + b.column("id")
                    + " END";
            case 11 -> a.column("d") + " * 2.0";
            case 12 -> a.column("k") + " = " + b.column("k");
            default -> a.column("m") + " + " + b.column("m");
          };
      // Unaliased items keep DuckDB's names: a0.k and a1.k both give k (the view has k and k_1).
      items.add(random.nextInt(3) == 0 ? item : item + " AS " + alias());
    }
    return exact("SELECT " + String.join(", ", items) + from, items.size());
  }

  private AggSql.ViewQuery distinct(List<Input> inputs, String from) {
    List<String> items = new ArrayList<>();
    for (int n = 1 + random.nextInt(3); n > 0; n--) {
      Input a = pick(inputs);
      String item =
          switch (random.nextInt(6)) {
            case 0, 1 -> a.column("k");
            case 2, 3 -> a.column("j");
            case 4 -> a.column("v") + " % 3";
            default -> "COALESCE(" + a.column("k") + ", " + pick(inputs).column("k") + ")";
          };
      items.add(item + " AS " + alias());
    }
    return exact("SELECT DISTINCT " + String.join(", ", items) + from, items.size());
  }

  private static AggSql.ViewQuery exact(String sql, int columns) {
    return new AggSql.ViewQuery(sql, columns < 0 ? List.of() : Collections.nCopies(columns, false));
  }

  /** Zero to two group keys, one to four aggregates, sometimes HAVING. */
  private AggSql.ViewQuery aggregate(List<Input> inputs, String from) {
    List<String> keys = new ArrayList<>();
    List<String> items = new ArrayList<>();
    List<Boolean> approximate = new ArrayList<>();
    int keyCount = random.nextInt(10) < 2 ? 0 : random.nextInt(10) < 6 ? 1 : 2;
    for (int i = 0; i < keyCount; i++) {
      Input a = pick(inputs);
      String key =
          switch (random.nextInt(8)) {
            case 0, 1, 2 -> a.column("k");
            case 3, 4 -> a.column("j");
            case 5 -> a.column("id");
            case 6 -> a.column("k") + " + " + pick(inputs).column("k");
            default -> "COALESCE(" + a.column("j") + ", " + pick(inputs).column("j") + ")";
          };
      if (keys.contains(key)) {
        continue;
      }
      keys.add(key);
      if (random.nextInt(10) > 0) {
        items.add(key + " AS " + alias());
        approximate.add(false);
      }
    }
    // one DISTINCT value per view: calcite-ivm keeps a count per group and value
    String distinct =
        random.nextInt(4) == 0 ? pick(inputs).column(pick(new String[] {"k", "j", "v"})) : null;
    for (int n = 1 + random.nextInt(4); n > 0; n--) {
      Input a = pick(inputs);
      Input b = pick(inputs);
      boolean approx = false;
      String call =
          switch (distinct != null && random.nextBoolean() ? 16 : random.nextInt(16)) {
            case 16 ->
                // j is a VARCHAR: no SUM of it
                pick(
                        distinct.endsWith(".j")
                            ? new String[] {"COUNT", "MIN"}
                            : new String[] {"COUNT", "COUNT", "SUM", "MIN"})
                    + "(DISTINCT "
                    + distinct
                    + ")";
            case 0, 1 -> "COUNT(*)";
            case 2 -> "COUNT(" + a.column(pick(SHARED)) + ")";
            case 3, 4 -> "SUM(" + a.column("v") + ")";
            case 5 -> "SUM(" + a.column("v") + " * " + b.column("v") + ")";
            case 6 -> "SUM(" + a.column("m") + ")";
            case 7 -> "AVG(" + a.column("v") + ")";
            case 8, 9 -> "MIN(" + a.column(pick(new String[] {"v", "j", "d", "m", "k"})) + ")";
            case 10, 11 -> "MAX(" + a.column(pick(new String[] {"v", "j", "d", "m", "id"})) + ")";
            case 12 -> {
              approx = true;
              yield (random.nextBoolean() ? "SUM(" : "AVG(") + a.column("d") + ")";
            }
            case 13 -> {
              approx = true;
              yield "AVG(" + a.column("m") + ")";
            }
            case 14 -> "MAX(" + a.column("v") + ") - MIN(" + b.column("v") + ")";
            default -> "SUM(" + a.column("v") + ") + COUNT(*)";
          };
      items.add(call + " AS " + alias());
      approximate.add(approx);
    }
    StringBuilder sql = new StringBuilder("SELECT ").append(String.join(", ", items)).append(from);
    if (!keys.isEmpty()) {
      sql.append(" GROUP BY ").append(String.join(", ", keys));
    }
    if (random.nextInt(keys.isEmpty() ? 8 : 4) == 0) {
      Input a = pick(inputs);
      sql.append(" HAVING ")
          .append(
              switch (random.nextInt(5)) {
                case 0 -> "COUNT(*) > " + random.nextInt(4);
                case 1 -> "SUM(" + a.column("v") + ") > " + random.nextInt(6);
                case 2 -> "MIN(" + a.column("v") + ") < " + random.nextInt(3);
                case 3 -> "MAX(" + a.column("k") + ") = " + random.nextInt(4);
                default -> "COUNT(" + a.column("j") + ") < COUNT(*)";
              });
    }
    return new AggSql.ViewQuery(sql.toString(), approximate);
  }

  private String alias() {
    aliases++;
    return random.nextInt(12) == 0 ? "\"Col " + aliases + "\"" : "c" + aliases;
  }

  private <T> T pick(List<T> list) {
    return list.get(random.nextInt(list.size()));
  }

  private <T> T pick(T[] array) {
    return array[random.nextInt(array.length)];
  }
}
