package org.calciteivm.tests;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;

/**
 * Random SQL over one table: its definition, rows, view queries (filters and projections) and
 * writes (inserts with duplicates, deletes and updates by predicate).
 *
 * <p>Everything generated is accepted by both DuckDB and Calcite's standard parser: standard
 * functions only, typed so that Calcite's validator accepts it, no integer division, no division by
 * zero and no arithmetic that can overflow (values stay in small domains and updates change them by
 * small steps).
 */
final class RandomSql {
  /** A column type with its DuckDB name. */
  enum Type {
    INT("INTEGER"),
    TEXT("VARCHAR"),
    DOUBLE("DOUBLE"),
    DECIMAL("DECIMAL(6,2)"),
    DATE("DATE"),
    TIMESTAMP("TIMESTAMP"),
    BOOL("BOOLEAN");

    final String sql;

    Type(String sql) {
      this.sql = sql;
    }
  }

  /** A column of the generated table. */
  record Column(String name, Type type) {}

  private static final String[] TEXTS = {
    "'a'",
    "'b'",
    "'ab'",
    "'Ab'",
    "' b '",
    "''",
    "'a%b'",
    "'it''s'",
    "'xyz'",
    // outside Latin-1: Calcite must carry them as DuckDB does (UTF-8), in literals and data
    "'€'",
    "'東京'",
    "'😀'",
    "'Straße'",
    "'É€'"
  };
  private static final String[] DOUBLES = {"0.5", "-1.25", "2.0", "3.75", "0.0", "10.0"};
  private static final String[] DECIMALS = {"1.50", "-2.25", "0.00", "10.10", "99.99"};
  private static final String[] DATES = {
    "DATE '2024-01-01'", "DATE '2024-02-29'", "DATE '1999-12-31'", "DATE '2024-03-01'"
  };
  private static final String[] TIMESTAMPS = {
    "TIMESTAMP '2024-01-01 10:00:00'",
    "TIMESTAMP '2024-01-01 10:00:00.5'",
    "TIMESTAMP '2023-12-31 23:59:59.999'",
    "TIMESTAMP '2024-02-29 00:00:00'"
  };
  private static final String[] PATTERNS = {
    "'a%'", "'%b'", "'_'", "'%'", "'A_'", "'%''%'", "'% %'", "'%€%'", "'東_'"
  };

  private final Random random;
  private final String table;
  private final List<Column> columns = new ArrayList<>();
  private int aliases;

  RandomSql(Random random, String table) {
    this.random = random;
    this.table = table;
    List<Column> optional =
        new ArrayList<>(
            List.of(
                new Column("i1", Type.INT),
                new Column("s1", Type.TEXT),
                new Column("d0", Type.DOUBLE),
                new Column("m0", Type.DECIMAL),
                new Column("t0", Type.DATE),
                new Column("ts0", Type.TIMESTAMP),
                new Column("b0", Type.BOOL)));
    Collections.shuffle(optional, random);
    columns.add(new Column("i0", Type.INT));
    columns.add(new Column("s0", Type.TEXT));
    columns.addAll(optional.subList(0, 2 + random.nextInt(4)));
    Collections.shuffle(columns, random);
  }

  String createTable() {
    return "CREATE TABLE "
        + table
        + " ("
        + String.join(", ", columns.stream().map(c -> c.name() + " " + c.type().sql).toList())
        + ")";
  }

  /** A multi-row INSERT of up to {@code distinctRows} rows, each repeated one to three times. */
  String insert(int distinctRows) {
    List<Column> target = columns;
    if (random.nextInt(5) == 0) {
      target = new ArrayList<>(columns);
      Collections.shuffle(target, random);
      target = target.subList(0, 1 + random.nextInt(columns.size()));
    }
    List<String> rows = new ArrayList<>();
    for (int i = 0; i < distinctRows; i++) {
      List<String> values = target.stream().map(c -> value(c.type())).toList();
      String row = "(" + String.join(", ", values) + ")";
      for (int copies = 1 + random.nextInt(3); copies > 0; copies--) {
        rows.add(row);
      }
    }
    Collections.shuffle(rows, random);
    String names = target == columns ? "" : " (" + String.join(", ", names(target)) + ")";
    return "INSERT INTO " + table + names + " VALUES " + String.join(", ", rows);
  }

  /** Copies the rows that match a predicate, so every one of them gets a duplicate. */
  String insertSelect() {
    return "INSERT INTO " + table + " SELECT * FROM " + table + " WHERE " + predicate(2);
  }

  String delete() {
    return "DELETE FROM " + table + (random.nextInt(40) == 0 ? "" : " WHERE " + predicate(2));
  }

  String update() {
    List<Column> targets = new ArrayList<>(columns);
    Collections.shuffle(targets, random);
    List<String> assignments = new ArrayList<>();
    for (Column column : targets.subList(0, 1 + random.nextInt(2))) {
      assignments.add(column.name() + " = " + newValue(column));
    }
    String where = random.nextInt(7) == 0 ? "" : " WHERE " + predicate(2);
    return String.format("UPDATE %s SET %s%s", table, String.join(", ", assignments), where);
  }

  /**
   * A view query: {@code SELECT *} or a list of columns and expressions, usually filtered;
   * sometimes a {@code UNION [ALL]}, {@code INTERSECT [ALL]} or {@code EXCEPT [ALL]} of two such
   * selects of the same columns, the second sometimes {@code DISTINCT} or {@code GROUP BY ALL}.
   */
  String viewQuery() {
    List<String> items = new ArrayList<>();
    if (random.nextInt(10) == 0) {
      items.add("*");
    } else {
      List<String> plain = new ArrayList<>();
      boolean unaliasedExpression = false;
      for (int n = 1 + random.nextInt(5); n > 0; n--) {
        int kind = random.nextInt(20);
        if (kind < 7) {
          String name = pick(columns).name();
          items.add(plain.contains(name) ? name + " AS " + alias() : name);
          plain.add(name);
        } else if (kind < 17) {
          String expression = expression(pick(Type.values()), 1 + random.nextInt(3));
          if (!unaliasedExpression && random.nextInt(6) == 0) {
            unaliasedExpression = true;
            items.add(expression);
          } else {
            items.add(expression + " AS " + alias());
          }
        } else {
          items.add(literal(pick(Type.values())) + " AS " + alias());
        }
      }
    }
    // sometimes window functions, whose partitions a change touches are recomputed
    boolean windows = random.nextInt(6) == 0;
    if (windows) {
      for (int n = 1 + random.nextInt(2); n > 0; n--) {
        items.add(window() + " AS " + alias());
      }
    }
    String where = random.nextInt(5) == 0 ? "" : " WHERE " + predicate(1 + random.nextInt(3));
    String query = "SELECT " + String.join(", ", items) + " FROM " + table + where;
    if (windows) {
      return query;
    }
    // sometimes the same columns of other rows: UNION, INTERSECT or EXCEPT, bag or set; the other
    // rows sometimes distinct or grouped (an aggregating branch, kept as a hidden view)
    int union = random.nextInt(14);
    if (union < 6) {
      int branch = random.nextInt(3);
      boolean grouped = branch == 2 && !items.contains("*");
      query +=
          List.of(
                      " UNION ALL ",
                      " UNION ",
                      " INTERSECT ",
                      " EXCEPT ",
                      " INTERSECT ALL ",
                      " EXCEPT ALL ")
                  .get(union)
              + (branch == 1 || (branch == 2 && !grouped) ? "SELECT DISTINCT " : "SELECT ")
              + String.join(", ", items)
              + " FROM "
              + table
              + " WHERE "
              + predicate(1 + random.nextInt(2))
              + (grouped ? " GROUP BY ALL" : "");
    }
    return query;
  }

  /**
   * A window function whose value depends only on the rows of its partition (ties ordered or not),
   * partitioned by a column the view may or may not select.
   */
  private String window() {
    String partition = random.nextInt(5) == 0 ? "" : "PARTITION BY " + pick(columns).name();
    String order = pick(columns).name();
    return switch (random.nextInt(7)) {
      case 0 -> "RANK() OVER (" + partition + " ORDER BY " + order + ")";
      case 1 -> "DENSE_RANK() OVER (" + partition + " ORDER BY " + order + " DESC)";
      case 2 -> "COUNT(*) OVER (" + partition + ")";
      case 3 -> "MIN(" + order + ") OVER (" + partition + ")";
      case 4 -> "MAX(" + order + ") OVER (" + partition + ")";
      case 5 -> "SUM(i0) OVER (" + partition + " ORDER BY " + order + ")";
      default -> "CUME_DIST() OVER (" + partition + " ORDER BY " + order + ")";
    };
  }

  /** A boolean expression over the table's columns. */
  String predicate(int depth) {
    int choice = depth <= 0 ? random.nextInt(6) : random.nextInt(10);
    return switch (choice) {
      case 0, 1 -> {
        Type type = comparableType();
        String op = pick(new String[] {"=", "<>", "<", "<=", ">", ">="});
        String right =
            random.nextBoolean() ? literal(type) : expression(type, Math.max(0, depth - 1));
        yield expression(type, Math.max(0, depth - 1)) + " " + op + " " + right;
      }
      case 2 -> anyExpression(depth) + (random.nextBoolean() ? " IS NULL" : " IS NOT NULL");
      case 3 -> {
        Type type = pick(new Type[] {Type.INT, Type.TEXT, Type.DOUBLE, Type.DECIMAL, Type.DATE});
        yield String.format(
            "%s %sBETWEEN %s AND %s",
            expression(type, Math.max(0, depth - 1)), not(), literal(type), literal(type));
      }
      case 4 -> {
        Type type = pick(new Type[] {Type.INT, Type.TEXT, Type.DATE});
        List<String> list = new ArrayList<>();
        for (int n = 1 + random.nextInt(3); n > 0; n--) {
          list.add(literal(type));
        }
        yield String.format(
            "%s %sIN (%s)",
            expression(type, Math.max(0, depth - 1)), not(), String.join(", ", list));
      }
      case 5 ->
          String.format(
              "%s %sLIKE %s", expression(Type.TEXT, Math.max(0, depth - 1)), not(), pick(PATTERNS));
      case 6 -> "(" + predicate(depth - 1) + " AND " + predicate(depth - 1) + ")";
      case 7 -> "(" + predicate(depth - 1) + " OR " + predicate(depth - 1) + ")";
      case 8 -> "NOT (" + predicate(depth - 1) + ")";
      default -> {
        String b = column(Type.BOOL);
        yield b == null
            ? "TRUE"
            : b + pick(new String[] {"", " IS TRUE", " IS NOT FALSE", " = FALSE"});
      }
    };
  }

  /** An expression of {@code type}; depth 0 gives a column or a literal. */
  String expression(Type type, int depth) {
    String column = column(type);
    if (depth <= 0 || random.nextInt(4) == 0) {
      return column != null && random.nextInt(4) != 0 ? column : literal(type);
    }
    int d = depth - 1;
    Supplier<String> same = () -> expression(type, d);
    if (random.nextInt(6) == 0) {
      return "COALESCE(" + same.get() + ", " + literal(type) + ")";
    }
    if (random.nextInt(6) == 0) {
      return String.format(
          "CASE WHEN %s THEN %s%s END",
          predicate(d), same.get(), random.nextInt(4) == 0 ? "" : " ELSE " + same.get());
    }
    return switch (type) {
      case INT ->
          switch (random.nextInt(10)) {
            case 0 -> "(" + same.get() + " + " + same.get() + ")";
            case 1 -> "(" + same.get() + " - " + same.get() + ")";
            case 2 -> "(" + same.get() + " * " + (random.nextInt(7) - 3) + ")";
            case 3 -> "ABS(" + same.get() + ")";
            case 4 -> "MOD(" + same.get() + ", " + (2 + random.nextInt(4)) + ")";
            case 5 -> "CHAR_LENGTH(" + expression(Type.TEXT, d) + ")";
            case 6 -> "NULLIF(" + same.get() + ", " + literal(type) + ")";
            case 7 ->
                String.format(
                    "CAST(%s AS INTEGER)",
                    expression(pick(new Type[] {Type.DOUBLE, Type.DECIMAL}), d));
            case 8 ->
                String.format(
                    "EXTRACT(%s FROM %s)",
                    pick(new String[] {"YEAR", "MONTH", "DAY"}), expression(Type.DATE, d));
            default ->
                String.format(
                    "CASE %s WHEN %s THEN %s ELSE %s END",
                    same.get(), literal(type), same.get(), same.get());
          };
      case TEXT ->
          switch (random.nextInt(9)) {
            case 0 -> "UPPER(" + same.get() + ")";
            case 1 -> "LOWER(" + same.get() + ")";
            case 2 -> "TRIM(" + same.get() + ")";
            case 3 ->
                String.format(
                    "SUBSTRING(%s FROM %d FOR %d)",
                    same.get(), 1 + random.nextInt(3), random.nextInt(4));
            case 4, 5 -> "(" + same.get() + " || " + same.get() + ")";
            case 6 -> "NULLIF(" + same.get() + ", " + literal(type) + ")";
            default -> "CAST(" + anyExpression(d) + " AS VARCHAR)";
          };
      case DOUBLE ->
          switch (random.nextInt(6)) {
            case 0 -> "(" + same.get() + " + " + same.get() + ")";
            case 1 -> "(" + same.get() + " - " + same.get() + ")";
            case 2 -> "(" + same.get() + " * " + pick(DOUBLES) + ")";
            case 3 ->
                "(" + same.get() + " / " + pick(new String[] {"2.0", "4.0", "0.5", "-8.0"}) + ")";
            case 4 -> "ABS(" + same.get() + ")";
            default ->
                "CAST(" + expression(pick(new Type[] {Type.INT, Type.DECIMAL}), d) + " AS DOUBLE)";
          };
      case DECIMAL ->
          switch (random.nextInt(4)) {
            case 0 -> "(" + same.get() + " + " + same.get() + ")";
            case 1 -> "(" + same.get() + " - " + literal(type) + ")";
            case 2 -> "ABS(" + same.get() + ")";
            default -> "CAST(" + expression(Type.INT, d) + " AS DECIMAL(10,2))";
          };
      case DATE ->
          random.nextBoolean() ? "CAST(" + expression(Type.TIMESTAMP, d) + " AS DATE)" : same.get();
      case TIMESTAMP ->
          random.nextBoolean() ? "CAST(" + expression(Type.DATE, d) + " AS TIMESTAMP)" : same.get();
      // Parenthesized so that no reading depends on how a parser ranks IS, LIKE and BETWEEN.
      case BOOL -> "(" + predicate(d) + ")";
    };
  }

  private String not() {
    return random.nextInt(3) == 0 ? "NOT " : "";
  }

  private String anyExpression(int depth) {
    return expression(pick(Type.values()), Math.max(0, depth - 1));
  }

  /** The value an UPDATE assigns: changes are small steps so that no expression overflows. */
  private String newValue(Column column) {
    String c = column.name();
    if (random.nextInt(4) == 0) {
      return value(column.type());
    }
    return switch (column.type()) {
      case INT ->
          pick(
              new String[] {
                c + " + 1",
                c + " - 1",
                "- " + c,
                "COALESCE(" + c + ", 0)",
                "CASE WHEN " + predicate(1) + " THEN " + literal(Type.INT) + " ELSE " + c + " END",
                "CHAR_LENGTH(" + columnOr(Type.TEXT, "'abc'") + ")",
                columnOr(Type.INT, "7")
              });
      case TEXT ->
          pick(
              new String[] {
                "UPPER(" + c + ")",
                "LOWER(" + c + ")",
                "TRIM(" + c + ")",
                c + " || 'x'",
                "CAST(" + columnOr(Type.INT, "3") + " AS VARCHAR)",
                columnOr(Type.TEXT, "'q'")
              });
      case DOUBLE -> pick(new String[] {c + " + 1.0", c + " / 2.0", "- " + c});
      case DECIMAL -> pick(new String[] {c + " + 1.25", "- " + c, "COALESCE(" + c + ", 0)"});
      case DATE ->
          pick(
              new String[] {
                "COALESCE(" + c + ", DATE '2020-05-05')",
                "CAST(" + columnOr(Type.TIMESTAMP, "TIMESTAMP '2021-01-01 01:01:01'") + " AS DATE)"
              });
      case TIMESTAMP -> "CAST(" + columnOr(Type.DATE, "DATE '2022-02-02'") + " AS TIMESTAMP)";
      case BOOL -> random.nextBoolean() ? "NOT " + c : predicate(1);
    };
  }

  /** A value for a row: a literal, or NULL one time in four. */
  private String value(Type type) {
    return random.nextInt(4) == 0 ? "NULL" : literal(type);
  }

  private String literal(Type type) {
    return switch (type) {
      case INT -> {
        int value = random.nextInt(7) - 2;
        yield value < 0 ? "(" + value + ")" : String.valueOf(value);
      }
      case TEXT -> pick(TEXTS);
      case DOUBLE -> pick(DOUBLES);
      case DECIMAL -> pick(DECIMALS);
      case DATE -> pick(DATES);
      case TIMESTAMP -> pick(TIMESTAMPS);
      case BOOL -> random.nextBoolean() ? "TRUE" : "FALSE";
    };
  }

  /** A type to compare: usually one the table has a column of. */
  private Type comparableType() {
    Type type = pick(columns).type();
    return type == Type.BOOL ? Type.INT : type;
  }

  private String column(Type type) {
    List<Column> matching = columns.stream().filter(c -> c.type() == type).toList();
    return matching.isEmpty() ? null : pick(matching).name();
  }

  private String columnOr(Type type, String otherwise) {
    String column = column(type);
    return column == null ? otherwise : column;
  }

  private String alias() {
    aliases++;
    return switch (random.nextInt(20)) {
      case 0, 1 -> "\"Col " + aliases + "\"";
      case 2 -> "\"Größe€ " + aliases + "\"";
      case 3 -> "東" + aliases;
      default -> "e" + aliases;
    };
  }

  private static List<String> names(List<Column> columns) {
    return columns.stream().map(Column::name).toList();
  }

  private <T> T pick(List<T> list) {
    return list.get(random.nextInt(list.size()));
  }

  private <T> T pick(T[] array) {
    return array[random.nextInt(array.length)];
  }
}
