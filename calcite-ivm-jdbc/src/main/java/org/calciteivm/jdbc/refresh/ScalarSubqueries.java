package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Uncorrelated scalar subqueries that aggregate without grouping ({@code WHERE x > (SELECT AVG(y)
 * FROM u)}), moved into the FROM clause as a cross join with their one row: {@code FROM t CROSS
 * JOIN (SELECT AVG(y) FROM u) AS "ivm_scalar_1"("_ivm_value") WHERE x >
 * "ivm_scalar_1"."_ivm_value"}. Identity: an aggregate without GROUP BY or HAVING has exactly one
 * row, so a cross join with it keeps every row once and gives each the subquery's value. The
 * subquery is then an aggregate below a join, kept as a hidden view ({@link IntermediateStates})
 * whose one row is the state: a change to its inputs changes that row, and the view's change is the
 * join's.
 *
 * <p>A subquery correlated by equalities ({@code (SELECT SUM(l.qty) FROM l WHERE l.oid = o.id AND
 * l.flag)}) is decorrelated into a left join with the subquery grouped by its side of those
 * equalities: {@code LEFT JOIN (SELECT SUM(l.qty), l.oid FROM l WHERE TRUE AND l.flag GROUP BY
 * l.oid) AS "ivm_scalar_1"("_ivm_value", "_ivm_key_1") ON "ivm_scalar_1"."_ivm_key_1" = o.id}, the
 * subquery replaced by the value ({@code COALESCE(value, 0)} for a COUNT). Identity: for an outer
 * row, the correlated subquery aggregates the inner rows whose keys equal its values; that is the
 * group of those keys, which the left join finds once (the keys are grouped), or no group when no
 * inner row matches, where the subquery aggregates no rows: NULL for SUM, AVG, MIN and MAX and 0
 * for COUNT. A NULL outer value matches no group, as it matches no row. Only single-aggregate
 * subqueries of those functions, whose other parts do not name the outer query, are decorrelated
 * this way; the grouped subquery is an aggregate below a join, kept as a hidden view.
 *
 * <p>Done for the outermost query's WHERE clause, and its select list when it does not aggregate (a
 * joined value would not be grouped). Other correlated subqueries are left as they are (and refused
 * by the planner). A FROM clause of comma-separated relations is written with {@code CROSS JOIN}
 * when a left join follows it, so that the join's condition sees every relation.
 *
 * <p>A {@code *} in the select list would also select the cross-joined values, so it is written out
 * as the star of each relation of the FROM clause ({@code a.*, b.*}); a FROM clause where that is
 * not the same (a join {@code USING} or {@code NATURAL}, a relation without a name) keeps its
 * subqueries.
 */
public final class ScalarSubqueries {
  private ScalarSubqueries() {}

  /**
   * The name of each moved subquery's column: reserved names (as its keys' {@code _ivm_key_i}), so
   * that they hide no column of the outer query.
   */
  private static final String VALUE = "_ivm_value";

  /**
   * The most correlated subqueries moved into one query: each is a left join, and each join of a
   * chain of left joins adds to the change's statement (eight correlated subqueries and two cross
   * joins, every input changing: compiled in 0.1 s, merged in 0.3 s over a few rows, the whole
   * refresh with the ten hidden views 1.2 s; ten left joins, 0.12 s and 0.4–0.6 s).
   */
  static final int MAX_LEFT_JOINS = 8;

  /**
   * Whether the subqueries of {@code select}'s select list are moved into FROM: when it neither
   * groups nor aggregates, so that each row of FROM is a row of the query.
   */
  static boolean movesSelectList(SqlSelect select, DuckDbFunctions duckDb) {
    return (select.getGroup() == null || select.getGroup().isEmpty())
        && select.getHaving() == null
        && select.getSelectList().stream().noneMatch(i -> GroupByAll.aggregates(i, duckDb));
  }

  /**
   * {@code query}, the query of view {@code viewName}, with its scalar subqueries moved; {@code
   * query} itself if it has none.
   */
  public static String rewrite(String query, String viewName, GroupByAll.Functions functions)
      throws SQLException {
    SqlSelect select = QueryText.outermostSelect(query);
    if (select == null || select.getFrom() == null) {
      return query;
    }
    List<SqlSelect> found = new ArrayList<>();
    if (select.getWhere() != null) {
      collect(select.getWhere(), found);
    }
    List<SqlSelect> inItems = new ArrayList<>();
    select.getSelectList().forEach(item -> collect(item, inItems));
    if (found.isEmpty() && inItems.isEmpty()) {
      return query;
    }
    DuckDbFunctions duckDb = functions.read();
    if (movesSelectList(select, duckDb)) {
      found.addAll(inItems);
    }
    QueryText text = new QueryText(query);
    QueryText.Range from = text.fromClause(select);
    if (from == null) {
      return query;
    }
    Map<QueryText.Range, String> replacements = new HashMap<>();
    if (!starsWrittenOut(select, text, replacements)) {
      return query;
    }
    StringBuilder joins = new StringBuilder();
    int n = 0;
    int leftJoins = 0;
    // an uncorrelated subquery written twice is one value: moved once, read twice
    Map<String, String> moved = new HashMap<>();
    for (SqlSelect subquery : found) {
      QueryText.Range range = text.range(subquery);
      if (range == null || !oneRow(subquery, duckDb)) {
        continue;
      }
      boolean correlated = correlated(subquery);
      Correlation correlation = correlated ? Correlation.of(subquery, text) : null;
      if (correlated && correlation == null) {
        continue; // left as it is, and refused by the planner
      }
      if (correlation != null && ++leftJoins > MAX_LEFT_JOINS) {
        throw UnsupportedViewException.notYet(
            viewName,
            "more than "
                + MAX_LEFT_JOINS
                + " correlated subqueries in one query (counted: each EXISTS, IN and NOT IN that"
                + " is not a condition of WHERE is one or more)",
            "keep some of them in a view of their own and join it: each is a left join, and each"
                + " join of a chain of left joins adds to the statement that applies its change");
      }
      QueryText.Range parenthesized = text.parenthesized(range);
      if (correlation == null && moved.containsKey(text.text(parenthesized))) {
        replacements.put(parenthesized, moved.get(text.text(parenthesized)));
        continue;
      }
      String name = IvmNames.quote("ivm_scalar_" + ++n);
      String value = name + "." + IvmNames.quote(VALUE);
      if (correlation == null) {
        moved.put(text.text(parenthesized), value);
        joins
            .append(" CROSS JOIN ")
            .append(text.text(parenthesized))
            .append(" AS ")
            .append(name)
            .append('(')
            .append(IvmNames.quote(VALUE))
            .append(')');
        replacements.put(parenthesized, value);
      } else {
        joins.append(correlation.leftJoin(subquery, range, name, text));
        replacements.put(
            parenthesized, correlation.countsRows() ? "COALESCE(" + value + ", 0)" : value);
      }
    }
    if (n == 0) {
      return query;
    }
    String fromText =
        joins.indexOf(" LEFT JOIN ") >= 0 ? crossJoined(select.getFrom(), text) : null;
    if (fromText == null) {
      fromText = text.text(from);
    }
    replacements.put(from, fromText + joins);
    return text.replaced(new QueryText.Range(0, query.length()), replacements);
  }

  /**
   * Adds to {@code replacements} each unqualified {@code *} of the select list written out as the
   * star of each relation of the FROM clause, in order; false if that would not select the same
   * columns (see the class comment).
   */
  private static boolean starsWrittenOut(
      SqlSelect select, QueryText text, Map<QueryText.Range, String> replacements) {
    List<SqlNode> stars =
        select.getSelectList().stream()
            .filter(i -> i instanceof SqlIdentifier id && id.isStar() && id.names.size() == 1)
            .toList();
    if (stars.isEmpty()) {
      return true;
    }
    List<String> relations = new ArrayList<>();
    if (!relationNames(select.getFrom(), relations)) {
      return false;
    }
    String written =
        String.join(", ", relations.stream().map(r -> IvmNames.quote(r) + ".*").toList());
    for (SqlNode star : stars) {
      QueryText.Range range = text.range(star);
      if (range == null) {
        return false;
      }
      replacements.put(range, written);
    }
    return true;
  }

  /**
   * Adds the names of the relations of a FROM clause, in order; false if one has none, or a join
   * merges columns ({@code USING}, {@code NATURAL}).
   */
  private static boolean relationNames(SqlNode from, List<String> names) {
    if (from instanceof SqlJoin join) {
      return !join.isNatural()
          && join.getConditionType() != org.apache.calcite.sql.JoinConditionType.USING
          && relationNames(join.getLeft(), names)
          && relationNames(join.getRight(), names);
    }
    if (from.getKind() == SqlKind.AS) {
      SqlCall as = (SqlCall) from;
      if (as.operandCount() > 2) {
        return false; // renamed columns: their star is still the alias's, but keep it simple
      }
      names.add(((SqlIdentifier) as.operand(1)).getSimple());
      return true;
    }
    if (from instanceof SqlIdentifier table) {
      names.add(table.names.get(table.names.size() - 1));
      return true;
    }
    return false;
  }

  /**
   * The text of a FROM clause with its comma-separated relations joined by {@code CROSS JOIN}
   * (other joins parenthesized), so that a join appended to it may name any of them; null if it has
   * no comma or a relation has no text.
   */
  private static @Nullable String crossJoined(SqlNode from, QueryText text) {
    if (!(from instanceof SqlJoin join) || join.getJoinType() != JoinType.COMMA) {
      return null;
    }
    String left = crossJoined(join.getLeft(), text);
    if (left == null) {
      left = relationText(join.getLeft(), text);
    }
    String right = relationText(join.getRight(), text);
    return left == null || right == null ? null : left + " CROSS JOIN " + right;
  }

  private static @Nullable String relationText(SqlNode relation, QueryText text) {
    QueryText.Range range = relationRange(relation, text);
    if (range == null) {
      return null;
    }
    return relation instanceof SqlJoin ? "(" + text.text(range) + ")" : text.text(range);
  }

  /**
   * The text range of a relation of a FROM clause; a join's spans its left relation to its
   * condition or right relation (the parser places a join at its JOIN keyword or comma alone).
   */
  private static QueryText.@Nullable Range relationRange(SqlNode relation, QueryText text) {
    if (!(relation instanceof SqlJoin join)) {
      return text.range(relation);
    }
    QueryText.Range left = relationRange(join.getLeft(), text);
    QueryText.Range right =
        join.getCondition() != null
            ? text.range(join.getCondition())
            : relationRange(join.getRight(), text);
    return left == null || right == null ? null : new QueryText.Range(left.start(), right.end());
  }

  /**
   * How a scalar subquery is correlated: by equalities {@code inner = outer} among the conjuncts of
   * its WHERE clause, each {@code outer} a column of the outer query and {@code inner} an
   * expression of the subquery's own relations; nothing else in it names the outer query.
   *
   * @param conjuncts the correlating conjuncts
   * @param innerKeys for each, its side of the subquery's relations
   * @param outerKeys for each, its column of the outer query
   * @param countsRows whether the subquery's aggregate is a COUNT (0, not NULL, over no rows)
   */
  private record Correlation(
      List<SqlNode> conjuncts,
      List<SqlNode> innerKeys,
      List<SqlNode> outerKeys,
      boolean countsRows) {

    /** Functions whose value over no rows is NULL, or 0 for COUNT. */
    private static final Set<String> FUNCTIONS = Set.of("COUNT", "SUM", "AVG", "MIN", "MAX");

    /** The correlation of {@code subquery}, or null if it cannot be decorrelated as a group. */
    static @Nullable Correlation of(SqlSelect subquery, QueryText text) {
      SqlNode item = subquery.getSelectList().get(0);
      SqlNode aggregate = item.getKind() == SqlKind.AS ? ((SqlCall) item).operand(0) : item;
      if (!(aggregate instanceof SqlCall call)
          || !FUNCTIONS.contains(call.getOperator().getName().toUpperCase(Locale.ROOT))
          || subquery.getWhere() == null) {
        return null;
      }
      Set<String> defined = defined(subquery);
      if (namesOuter(item, defined) || namesOuter(subquery.getFrom(), defined)) {
        return null;
      }
      List<SqlNode> conjuncts = new ArrayList<>();
      List<SqlNode> innerKeys = new ArrayList<>();
      List<SqlNode> outerKeys = new ArrayList<>();
      for (SqlNode conjunct : ScalarSubqueries.conjuncts(subquery.getWhere())) {
        if (!namesOuter(conjunct, defined)) {
          continue;
        }
        if (conjunct.getKind() != SqlKind.EQUALS || text.range(conjunct) == null) {
          return null;
        }
        SqlNode left = ((SqlCall) conjunct).operand(0);
        SqlNode right = ((SqlCall) conjunct).operand(1);
        boolean outerLeft = outerColumn(left, defined) && !namesOuter(right, defined);
        boolean outerRight = outerColumn(right, defined) && !namesOuter(left, defined);
        if (!outerLeft && !outerRight) {
          return null;
        }
        SqlNode inner = outerLeft ? right : left;
        if (text.range(inner) == null || text.range(outerLeft ? left : right) == null) {
          return null;
        }
        conjuncts.add(conjunct);
        innerKeys.add(inner);
        outerKeys.add(outerLeft ? left : right);
      }
      return conjuncts.isEmpty()
          ? null
          : new Correlation(
              conjuncts,
              innerKeys,
              outerKeys,
              call.getOperator().getName().equalsIgnoreCase("COUNT"));
    }

    /**
     * {@code LEFT JOIN (the subquery grouped by its keys) AS name("_ivm_value", "_ivm_key_1", ...)
     * ON name."_ivm_key_1" = outer_1 AND ...}.
     */
    String leftJoin(SqlSelect subquery, QueryText.Range range, String name, QueryText text) {
      List<String> inner = innerKeys.stream().map(k -> text.text(text.range(k))).toList();
      Map<QueryText.Range, String> replacements = new HashMap<>();
      QueryText.Range item = text.range(subquery.getSelectList().get(0));
      replacements.put(item, text.text(item) + ", " + String.join(", ", inner));
      for (SqlNode conjunct : conjuncts) {
        replacements.put(text.range(conjunct), "TRUE");
      }
      List<String> columns = new ArrayList<>(List.of(IvmNames.quote(VALUE)));
      List<String> on = new ArrayList<>();
      for (int i = 0; i < inner.size(); i++) {
        String key = IvmNames.quote("_ivm_key_" + (i + 1));
        columns.add(key);
        on.add(name + "." + key + " = " + text.text(text.range(outerKeys.get(i))));
      }
      String grouped = text.replaced(range, replacements);
      while (grouped.startsWith("(")) { // the range takes in the parentheses around the subquery
        grouped = grouped.substring(1, grouped.length() - 1).strip();
      }
      return " LEFT JOIN ("
          + grouped
          + " GROUP BY "
          + String.join(", ", inner)
          + ") AS "
          + name
          + "("
          + String.join(", ", columns)
          + ") ON "
          + String.join(" AND ", on);
    }
  }

  /** The conjuncts of {@code condition} (its operands of AND, nested or not). */
  private static List<SqlNode> conjuncts(SqlNode condition) {
    if (condition.getKind() != SqlKind.AND) {
      return List.of(condition);
    }
    List<SqlNode> all = new ArrayList<>();
    for (SqlNode operand : ((SqlCall) condition).getOperandList()) {
      all.addAll(conjuncts(operand));
    }
    return all;
  }

  /** Whether {@code node} is a column qualified by a relation of the outer query. */
  private static boolean outerColumn(SqlNode node, Set<String> defined) {
    return node instanceof SqlIdentifier id && namesOuter(id, defined);
  }

  /**
   * Whether {@code node} names (as the qualifier of a column) something that {@code defined}, the
   * names a subquery's FROM clauses define, does not: a table or alias of the outer query.
   */
  private static boolean namesOuter(@Nullable SqlNode node, Set<String> defined) {
    if (node == null) {
      return false;
    }
    boolean[] found = {false};
    node.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlIdentifier id) {
            if (id.names.size() > 1
                && !defined.contains(id.names.get(id.names.size() - 2).toLowerCase(Locale.ROOT))) {
              found[0] = true;
            }
            return null;
          }
        });
    return found[0];
  }

  /** The subqueries used as values in {@code node} (not those of EXISTS or IN). */
  private static void collect(SqlNode node, List<SqlSelect> found) {
    node.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (call instanceof SqlSelect select) {
              found.add(select);
              return null;
            }
            if (call.getKind() == SqlKind.EXISTS
                || call.getKind() == SqlKind.IN
                || call.getKind() == SqlKind.NOT_IN
                || call.getKind() == SqlKind.SOME
                || call.getKind() == SqlKind.ALL) {
              return null; // a set, not a value
            }
            return super.visit(call);
          }
        });
  }

  /** Whether {@code subquery} has exactly one row: one aggregating item, no GROUP BY or HAVING. */
  private static boolean oneRow(SqlSelect subquery, DuckDbFunctions duckDb) {
    return subquery.getSelectList().size() == 1
        && (subquery.getGroup() == null || subquery.getGroup().isEmpty())
        && subquery.getHaving() == null
        && subquery.getFetch() == null
        && subquery.getOffset() == null
        && subquery.getFrom() != null
        && GroupByAll.aggregates(subquery.getSelectList().get(0), duckDb);
  }

  /**
   * Whether {@code subquery} names (as the qualifier of a column) something its own FROM clauses do
   * not define: a table or alias of the outer query.
   */
  static boolean correlated(SqlSelect subquery) {
    return namesOuter(subquery, defined(subquery));
  }

  /** The names (tables and aliases, lower case) the FROM clauses of {@code subquery} define. */
  static Set<String> defined(SqlSelect subquery) {
    Set<String> defined = new HashSet<>();
    subquery.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (call instanceof SqlSelect select && select.getFrom() != null) {
              define(select.getFrom(), defined);
            }
            return super.visit(call);
          }
        });
    return defined;
  }

  /** Adds the names the relations of a FROM clause define (tables and aliases), lower case. */
  private static void define(SqlNode from, Set<String> defined) {
    if (from instanceof SqlJoin join) {
      define(join.getLeft(), defined);
      define(join.getRight(), defined);
    } else if (from.getKind() == SqlKind.AS) {
      SqlCall as = (SqlCall) from;
      defined.add(((SqlIdentifier) as.operand(1)).getSimple().toLowerCase(Locale.ROOT));
      if (!(as.operand(0) instanceof SqlIdentifier)) {
        // a table's alias hides its name: in (SELECT ... FROM li l2 WHERE l2.k = li.k), li is
        // the outer query's
        define(as.operand(0), defined);
      }
    } else if (from instanceof SqlIdentifier table) {
      // the table, and its schema (so that the table's own name is not taken for a column's)
      table.names.forEach(name -> defined.add(name.toLowerCase(Locale.ROOT)));
    } else if (from instanceof SqlNodeList list) {
      list.forEach(item -> define(item, defined));
    }
  }
}
