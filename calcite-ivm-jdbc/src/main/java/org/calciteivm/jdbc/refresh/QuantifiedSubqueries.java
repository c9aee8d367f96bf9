package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlQuantifyOperator;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A quantified comparison {@code x op ANY (SELECT y ...)} ({@code SOME} is the same) or {@code x op
 * ALL (SELECT y ...)} as a condition of the outermost query's WHERE clause, written as what its
 * three-valued logic comes to where only TRUE keeps a row:
 *
 * <pre>
 * x op ANY (q)  ->  EXISTS (SELECT 1 FROM (q) AS s(v) WHERE x op s.v)
 * x op ALL (q)  ->  NOT EXISTS (SELECT 1 FROM (q) AS s(v) WHERE (x op s.v) IS NOT TRUE)
 * </pre>
 *
 * <p>Identity: {@code x op ANY (q)} is TRUE exactly when {@code x op v} is TRUE for some value
 * {@code v} of {@code q} (NULL or FALSE otherwise, and FALSE over no rows); {@code x op ALL (q)} is
 * TRUE exactly when {@code x op v} is TRUE for every value, that is when no value makes it FALSE or
 * NULL (so TRUE over no rows). A conjunct of WHERE keeps a row only when TRUE, so NULL and FALSE
 * need not be told apart. {@code EXISTS} and {@code NOT EXISTS} are then maintained as any other,
 * correlated or not. The subquery's one column is named {@code _ivm_value}, a reserved name, so
 * that no column of the outer query is hidden by it. Elsewhere (under OR or NOT, in the select
 * list, with a row of values, over a subquery that groups or aggregates) a quantified comparison
 * stays refused. CREATE stores the rewritten query.
 */
public final class QuantifiedSubqueries {
  private QuantifiedSubqueries() {}

  /**
   * {@code query} with its quantified conjuncts written out; itself if it has none. {@code
   * functions} tells DuckDB's aggregate functions.
   */
  public static String rewrite(String query, GroupByAll.Functions functions) throws SQLException {
    SqlSelect select = QueryText.outermostSelect(query);
    if (select == null || select.getWhere() == null) {
      return query;
    }
    List<SqlCall> quantified = new ArrayList<>();
    collectConjuncts(select.getWhere(), quantified);
    if (quantified.isEmpty()) {
      return query;
    }
    DuckDbFunctions duckDb = functions.read();
    QueryText text = new QueryText(query);
    Map<QueryText.Range, String> replacements = new HashMap<>();
    for (SqlCall condition : quantified) {
      SqlSelect subquery = condition.operand(1);
      if (!aggregates(subquery, duckDb)) {
        rewrite(condition, text, replacements);
      }
    }
    return replacements.isEmpty()
        ? query
        : text.replaced(new QueryText.Range(0, query.length()), replacements);
  }

  /** The quantified comparisons with a one-column subquery among the conjuncts of {@code node}. */
  private static void collectConjuncts(SqlNode condition, List<SqlCall> found) {
    if (condition.getKind() == SqlKind.AND) {
      for (SqlNode operand : ((SqlCall) condition).getOperandList()) {
        collectConjuncts(operand, found);
      }
    } else if (condition instanceof SqlCall call
        && call.getOperator() instanceof SqlQuantifyOperator
        && call.operand(1) instanceof SqlSelect subquery
        && subquery.getSelectList().size() == 1
        && call.operand(0).getKind() != SqlKind.ROW) {
      found.add(call);
    }
  }

  /**
   * Whether {@code subquery} groups or aggregates: it would be an aggregate below a join, which the
   * split into intermediate states does not reach inside {@code EXISTS}; it stays refused as the
   * quantified comparison the user wrote.
   */
  private static boolean aggregates(SqlSelect subquery, DuckDbFunctions duckDb) {
    return (subquery.getGroup() != null && !subquery.getGroup().isEmpty())
        || subquery.getHaving() != null
        || subquery.isDistinct()
        || GroupByAll.aggregates(subquery.getSelectList().get(0), duckDb);
  }

  private static void rewrite(
      SqlCall condition, QueryText text, Map<QueryText.Range, String> replacements) {
    SqlQuantifyOperator quantifier = (SqlQuantifyOperator) condition.getOperator();
    String comparison = comparison(quantifier.comparisonKind);
    QueryText.Range whole = text.range(condition);
    QueryText.Range valueRange = text.range(condition.operand(0));
    QueryText.Range subqueryRange = text.range(condition.operand(1));
    if (comparison == null || whole == null || valueRange == null || subqueryRange == null) {
      return;
    }
    boolean all = quantifier.getKind() == SqlKind.ALL;
    String name = IvmNames.quote("ivm_" + (all ? "all_" : "any_") + (replacements.size() + 1));
    String column = IvmNames.quote("_ivm_value");
    String compared = "(" + text.text(valueRange) + ") " + comparison + " " + name + "." + column;
    replacements.put(
        text.parenthesized(whole),
        "("
            + (all ? "NOT EXISTS" : "EXISTS")
            + " (SELECT 1 FROM "
            + text.text(text.parenthesized(subqueryRange))
            + " AS "
            + name
            + "("
            + column
            + ") WHERE "
            + (all ? "(" + compared + ") IS NOT TRUE" : compared)
            + "))");
  }

  /** The SQL of a quantifier's comparison, or null for one this rewrite does not know. */
  private static @Nullable String comparison(SqlKind kind) {
    switch (kind) {
      case EQUALS:
        return "=";
      case NOT_EQUALS:
        return "<>";
      case LESS_THAN:
        return "<";
      case LESS_THAN_OR_EQUAL:
        return "<=";
      case GREATER_THAN:
        return ">";
      case GREATER_THAN_OR_EQUAL:
        return ">=";
      default:
        return null;
    }
  }
}
