package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * DuckDB's {@code ASOF JOIN}, written at CREATE as an ordinary join with the right input's rows
 * extended by the bound up to which each one is the nearest: {@code l ASOF JOIN r ON l.k = r.k AND
 * l.t >= r.t} becomes {@code l JOIN (SELECT *, lead(r.t) OVER (PARTITION BY r.k ORDER BY r.t) AS
 * ivm_asof_bound1 FROM r) AS r ON l.k = r.k AND r.t <= l.t AND (r.ivm_asof_bound1 IS NULL OR l.t <
 * r.ivm_asof_bound1)}.
 *
 * <p>Identity: among the rows of {@code r} with the same keys, ordered by {@code r.t}, row {@code
 * b} is the greatest {@code r.t <= l.t} exactly when {@code b.t <= l.t} and the next row's {@code
 * t} is greater than {@code l.t} (or there is none). So the join keeps, for each row of {@code l},
 * the one row DuckDB's ASOF join pairs it with. The other directions mirror it: {@code l.t > r.t}
 * bounds by {@code l.t <= next}, {@code l.t <= r.t} and {@code l.t < r.t} take the previous row
 * ({@code lag}) and bound by {@code l.t > previous} and {@code l.t >= previous}. NULL keys or times
 * never match (the conditions are unknown), NULL times sort last and so bound no row. The subquery
 * with the window becomes a hidden view maintained by recomputing the key partitions a change
 * touches, and the join is maintained like any inner join. Where rows of {@code r} can tie on
 * (keys, time) DuckDB pairs an arbitrary one: a table without a primary key within them is refused
 * by name here, and another input by the window's own check for ties.
 *
 * <p>The condition must be {@code AND}ed comparisons, each between an expression of the left input
 * and one of the right input's columns qualified by its name or alias: equalities, and one of
 * {@code >=, >, <=, <}. A {@code *} or {@code r.*} in the same select list gets {@code EXCLUDE
 * (ivm_asof_bound1)}. {@code ASOF LEFT JOIN} is the left join with the same condition, which pads a
 * row of {@code l} that no row of {@code r} precedes; {@code RIGHT}/{@code FULL} and {@code USING}
 * are refused by name.
 */
final class AsofJoins {
  private AsofJoins() {}

  private static final String BOUND = "ivm_asof_bound";

  /** The declared primary keys of tables, for the check that a right input's rows cannot tie. */
  @FunctionalInterface
  interface Keys {
    /**
     * The columns of the primary key of table {@code name} (its parts as written: {@code [t]} or
     * {@code [schema, t]}), empty if it has none; nothing if {@code name} is not a table.
     */
    Optional<List<String>> primaryKey(List<String> name) throws SQLException;
  }

  /**
   * {@code query} with its ASOF joins written as ordinary joins; {@code query} if it has none.
   *
   * @throws SQLException naming the construct, for a form this does not maintain, or a right input
   *     that is a table whose primary key does not lie within the join's keys and time (its rows
   *     could tie as the nearest)
   */
  static String rewrite(String query, String viewName, Keys primaryKeys) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    List<QueryEdits.Edit> edits = new ArrayList<>();
    // per SELECT token of a query that has ASOF joins: their right inputs' names and bound columns
    Map<Integer, Map<String, String>> bounds = new LinkedHashMap<>();
    int replacedUpTo = -1;
    int count = 0;
    for (int i = 0; i + 1 < tokens.size(); i++) {
      if (!tokens.get(i).isKeyword("ASOF")) {
        continue;
      }
      if (tokens.get(i).start() < replacedUpTo) {
        throw UnsupportedViewException.notYet(viewName, "ASOF JOIN inside an ASOF JOIN's input");
      }
      int join = i + 1;
      boolean leftJoin = tokens.get(join).isKeyword("LEFT");
      if (tokens.get(join).isKeyword("RIGHT") || tokens.get(join).isKeyword("FULL")) {
        throw UnsupportedViewException.notYet(
            viewName, "ASOF " + tokens.get(join).upper() + " JOIN", "write it as ASOF LEFT JOIN");
      }
      if (leftJoin || tokens.get(join).isKeyword("INNER")) {
        join++;
      }
      if (leftJoin && join < tokens.size() && tokens.get(join).isKeyword("OUTER")) {
        join++;
      }
      if (join >= tokens.size() || !tokens.get(join).isKeyword("JOIN")) {
        continue; // not a join: a column or alias named asof
      }
      count++;
      String bound = BOUND + count;
      Found found = found(query, tokens, viewName, join, bound, leftJoin, primaryKeys);
      edits.add(new QueryEdits.Edit(tokens.get(i).start(), found.end(), found.text()));
      replacedUpTo = found.end();
      int select = selectOf(tokens, i);
      if (select >= 0) {
        bounds.computeIfAbsent(select, s -> new LinkedHashMap<>()).put(found.alias(), bound);
      }
    }
    for (Map.Entry<Integer, Map<String, String>> entry : bounds.entrySet()) {
      edits.addAll(starExcludes(tokens, viewName, entry.getKey(), entry.getValue()));
    }
    return QueryEdits.apply(query, edits);
  }

  /**
   * An ASOF join's replacement, from its first word to offset {@code end}; its right input's name.
   */
  private record Found(int end, String text, String alias) {}

  /** The ASOF join whose {@code JOIN} word is token {@code join}. */
  private static Found found(
      String query,
      List<SqlToken> tokens,
      String viewName,
      int join,
      String bound,
      boolean leftJoin,
      Keys primaryKeys)
      throws SQLException {
    int depth = 0;
    int on = -1;
    int end = tokens.size();
    for (int i = join + 1; i < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        if (--depth < 0) {
          end = i;
          break;
        }
      } else if (token.kind() == SqlToken.Kind.SEMICOLON) {
        end = i;
        break;
      } else if (depth == 0 && on < 0 && token.isKeyword("USING")) {
        throw UnsupportedViewException.notYet(
            viewName, "ASOF JOIN ... USING", "write the condition with ON");
      } else if (depth == 0 && on < 0 && token.isKeyword("ON")) {
        on = i;
      } else if (depth == 0
          && on >= 0
          && (token.isSymbol(",")
              || SemiAntiJoins.startsJoin(tokens, i)
              || token.kind() == SqlToken.Kind.WORD
                  && FromFirst.AFTER_FROM.contains(token.upper()))) {
        end = i;
        break;
      }
    }
    if (on < 0 || on + 1 >= end) {
      throw UnsupportedViewException.notYet(viewName, "ASOF JOIN without an ON condition");
    }
    SqlToken last = tokens.get(on - 1);
    if (!last.isIdentifier() || on - 1 == join) {
      throw UnsupportedViewException.notYet(
          viewName, "ASOF JOIN of an input without a name", "give it an alias");
    }
    String alias = last.identifier();
    String aliasText = last.text();
    String relation = query.substring(tokens.get(join + 1).start(), last.end());
    List<String> keys = new ArrayList<>();
    List<String> equalities = new ArrayList<>();
    Comparison inequality = null;
    for (int[] conjunct : conjuncts(tokens, on + 1, end)) {
      Comparison comparison = comparison(query, tokens, viewName, conjunct[0], conjunct[1], alias);
      if (comparison.operator().equals("=")) {
        keys.add(comparison.right());
        equalities.add(comparison.left() + " = " + comparison.right());
      } else if (inequality == null) {
        inequality = comparison;
      } else {
        throw UnsupportedViewException.notYet(
            viewName, "ASOF JOIN with more than one inequality in ON");
      }
    }
    if (inequality == null) {
      throw UnsupportedViewException.notYet(viewName, "ASOF JOIN without an inequality in ON");
    }
    String time = inequality.right();
    List<String> ordered = new ArrayList<>(keys);
    ordered.add(time);
    requireKey(tokens.subList(join + 1, on), viewName, alias, ordered, primaryKeys);
    String left = inequality.left();
    String op = inequality.operator();
    boolean before = op.startsWith(">"); // the nearest row at or before the left time
    String window =
        (before ? "lead(" : "lag(")
            + time
            + ") OVER ("
            + (keys.isEmpty() ? "" : "PARTITION BY " + String.join(", ", keys) + " ")
            + "ORDER BY "
            + time
            + ")";
    String boundColumn = aliasText + "." + bound;
    String beyond =
        switch (op) {
          case ">=" -> left + " < " + boundColumn;
          case ">" -> left + " <= " + boundColumn;
          case "<=" -> left + " > " + boundColumn;
          default -> left + " >= " + boundColumn;
        };
    List<String> condition = new ArrayList<>(equalities);
    condition.add(time + " " + mirrored(op) + " " + left);
    condition.add("(" + boundColumn + " IS NULL OR " + beyond + ")");
    String text =
        (leftJoin ? "LEFT JOIN" : "JOIN")
            + " (SELECT *, "
            + window
            + " AS "
            + bound
            + " FROM "
            + relation
            + ") AS "
            + aliasText
            + " ON "
            + String.join(" AND ", condition);
    return new Found(tokens.get(end - 1).end(), text, alias);
  }

  /**
   * Refuses an ASOF join whose right input, a table ({@code relation}'s tokens, with its alias),
   * has no primary key within the columns it is partitioned and ordered by ({@code ordered}): rows
   * that tie as the nearest would make DuckDB pair either. Inputs that are not tables, and keys or
   * times that are expressions, are left to the check of the window they become.
   */
  private static void requireKey(
      List<SqlToken> relation,
      String viewName,
      String alias,
      List<String> ordered,
      Keys primaryKeys)
      throws SQLException {
    List<String> table = new ArrayList<>();
    for (int i = 0; i < relation.size() && relation.get(i).isIdentifier(); i += 2) {
      table.add(relation.get(i).identifier());
      if (i + 1 >= relation.size() || !relation.get(i + 1).isSymbol(".")) {
        break;
      }
    }
    List<String> columns = new ArrayList<>();
    for (String expression : ordered) {
      List<SqlToken> parts = SqlLexer.tokenize(expression);
      if (parts.size() != 3
          || !parts.get(0).isIdentifier()
          || !parts.get(0).identifier().equalsIgnoreCase(alias)
          || !parts.get(1).isSymbol(".")
          || !parts.get(2).isIdentifier()) {
        return;
      }
      columns.add(parts.get(2).identifier().toLowerCase(Locale.ROOT));
    }
    if (table.isEmpty()) {
      return;
    }
    Optional<List<String>> key = primaryKeys.primaryKey(table);
    if (key.isPresent()
        && (key.get().isEmpty()
            || !key.get().stream().allMatch(c -> columns.contains(c.toLowerCase(Locale.ROOT))))) {
      String name = String.join(".", table);
      throw UnsupportedViewException.notYet(
          viewName,
          "ASOF JOIN over "
              + name
              + " without a primary key within ("
              + String.join(", ", columns)
              + ")",
          "declare one on "
              + name
              + ": rows with the same keys and time would tie as the nearest, and DuckDB pairs"
              + " either");
    }
  }

  /** A comparison of a left-input expression with a right-input one, {@code left op right}. */
  private record Comparison(String left, String operator, String right) {}

  /** The comparison in tokens {@code [from, to)}, turned so that the right input's side is last. */
  private static Comparison comparison(
      String query, List<SqlToken> tokens, String viewName, int from, int to, String alias)
      throws SQLException {
    int depth = 0;
    for (int i = from; i < to; i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        depth--;
      } else if (depth == 0
          && (token.isSymbol("=") || token.isSymbol("<") || token.isSymbol(">"))) {
        String op = token.text();
        int rightStart = i + 1;
        if (rightStart < to
            && tokens.get(rightStart).start() == token.end()
            && (tokens.get(rightStart).isSymbol("=") || tokens.get(rightStart).isSymbol(">"))) {
          op += tokens.get(rightStart).text();
          rightStart++;
        }
        if (op.equals("<>") || rightStart >= to || i == from) {
          break;
        }
        String a = query.substring(tokens.get(from).start(), tokens.get(i - 1).end());
        String b = query.substring(tokens.get(rightStart).start(), tokens.get(to - 1).end());
        boolean aRight = mentions(tokens, from, i, alias);
        boolean bRight = mentions(tokens, rightStart, to, alias);
        if (bRight && !aRight) {
          return new Comparison(a, op, b);
        }
        if (aRight && !bRight) {
          return new Comparison(b, mirrored(op), a);
        }
        break;
      }
    }
    throw UnsupportedViewException.notYet(
        viewName,
        "ASOF JOIN condition "
            + query.substring(tokens.get(from).start(), tokens.get(to - 1).end())
            + " (each condition must compare an expression of the left input with one of the"
            + " right input's columns, qualified by its name "
            + alias
            + ", with =, >=, >, <= or <)");
  }

  /** The operator that compares the operands the other way round. */
  private static String mirrored(String op) {
    return switch (op) {
      case ">=" -> "<=";
      case ">" -> "<";
      case "<=" -> ">=";
      case "<" -> ">";
      default -> op;
    };
  }

  /** Whether tokens {@code [from, to)} hold {@code alias.} (a column of the right input). */
  private static boolean mentions(List<SqlToken> tokens, int from, int to, String alias) {
    for (int i = from; i + 1 < to; i++) {
      if (tokens.get(i).isIdentifier()
          && tokens.get(i).identifier().equalsIgnoreCase(alias)
          && tokens.get(i + 1).isSymbol(".")
          && (i == from || !tokens.get(i - 1).isSymbol("."))) {
        return true;
      }
    }
    return false;
  }

  /** The {@code [from, to)} token ranges of the top-level {@code AND}ed conditions. */
  private static List<int[]> conjuncts(List<SqlToken> tokens, int from, int to) {
    List<int[]> parts = new ArrayList<>();
    int depth = 0;
    int start = from;
    for (int i = from; i < to; i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        depth--;
      } else if (depth == 0 && token.isKeyword("AND")) {
        parts.add(new int[] {start, i});
        start = i + 1;
      }
    }
    parts.add(new int[] {start, to});
    return parts;
  }

  /** The {@code SELECT} token of the query whose FROM clause holds token {@code at}, or -1. */
  private static int selectOf(List<SqlToken> tokens, int at) {
    int depth = 0;
    for (int i = at - 1; i >= 0; i--) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol(")")) {
        depth++;
      } else if (token.isSymbol("(")) {
        if (--depth < 0) {
          return -1;
        }
      } else if (depth == 0 && token.isKeyword("SELECT")) {
        return i;
      }
    }
    return -1;
  }

  /**
   * Whether the {@code *} at token {@code star} is a select item ({@code *} or {@code name.*}), not
   * a multiplication: it follows {@code SELECT}, {@code DISTINCT}, {@code ALL} or a comma.
   */
  private static boolean startsItem(List<SqlToken> tokens, int star) {
    int before = star - 1;
    if (before >= 2 && tokens.get(before).isSymbol(".") && tokens.get(before - 1).isIdentifier()) {
      before -= 2;
    }
    SqlToken token = tokens.get(before);
    return token.isSymbol(",")
        || token.isKeyword("SELECT")
        || token.isKeyword("DISTINCT")
        || token.isKeyword("ALL");
  }

  /**
   * Insertions of {@code EXCLUDE (<bound columns>)} after each {@code *} and {@code <name>.*} of an
   * ASOF join's right input in the select list that starts at token {@code select}; {@code bounds}
   * maps the right inputs' names to their bound columns.
   */
  private static List<QueryEdits.Edit> starExcludes(
      List<SqlToken> tokens, String viewName, int select, Map<String, String> bounds)
      throws SQLException {
    List<QueryEdits.Edit> edits = new ArrayList<>();
    int depth = 0;
    for (int i = select + 1; i < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        if (--depth < 0) {
          break;
        }
      } else if (depth == 0 && token.isKeyword("FROM")) {
        break;
      } else if (depth == 0 && token.isSymbol("*") && startsItem(tokens, i)) {
        List<String> excluded = new ArrayList<>();
        if (tokens.get(i - 1).isSymbol(".")) {
          String qualifier = tokens.get(i - 2).identifier();
          bounds.forEach(
              (name, bound) -> {
                if (name.equalsIgnoreCase(qualifier)) {
                  excluded.add(bound);
                }
              });
        } else {
          excluded.addAll(bounds.values());
        }
        if (excluded.isEmpty()) {
          continue; // another input's columns
        }
        if (i + 1 < tokens.size()
            && (tokens.get(i + 1).isKeyword("EXCLUDE") || tokens.get(i + 1).isKeyword("REPLACE"))) {
          throw UnsupportedViewException.notYet(
              viewName,
              "* " + tokens.get(i + 1).upper() + " (...) over an ASOF JOIN",
              "name the columns");
        }
        edits.add(
            new QueryEdits.Edit(
                token.end(), token.end(), " EXCLUDE (" + String.join(", ", excluded) + ")"));
      }
    }
    return edits;
  }
}
