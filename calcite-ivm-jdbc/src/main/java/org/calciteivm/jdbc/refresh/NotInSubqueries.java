package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.calciteivm.core.IvmNames;

/**
 * {@code x NOT IN (SELECT y ...)} as a condition of the outermost query's WHERE clause, written as
 * what its three-valued logic comes to where only TRUE keeps a row: an anti-join and two counts of
 * the subquery's rows,
 *
 * <pre>
 * NOT EXISTS (SELECT 1 FROM (SELECT y ...) AS s(v) WHERE s.v = x)
 * AND (SELECT COUNT(*) - COUNT(s.v) FROM (SELECT y ...) AS s(v)) = 0
 * AND (x IS NOT NULL OR (SELECT COUNT(*) FROM (SELECT y ...) AS s(v)) = 0)
 * </pre>
 *
 * <p>Identity: {@code x NOT IN S} is TRUE exactly when {@code S} is empty, or {@code x} is not NULL
 * and every value of {@code S} is neither NULL nor equal to {@code x}; it is NULL (and the row
 * goes) when {@code x} is NULL and {@code S} is not empty, or when {@code S} holds a NULL and no
 * value equal to {@code x}. The anti-join is maintained as {@code NOT EXISTS} is; each count is a
 * scalar subquery, which {@link ScalarSubqueries} then keeps as a one-row hidden view. (A second
 * {@code NOT EXISTS} for the NULLs would read the same subquery with a contradicting filter, which
 * Calcite's decorrelator folds into a constant row: wrong.) Only an uncorrelated single-column
 * subquery that is a whole conjunct is written out; elsewhere (under OR or NOT, in the select list)
 * {@code NOT IN} stays refused. CREATE stores the rewritten query.
 */
public final class NotInSubqueries {
  private NotInSubqueries() {}

  /** {@code query} with its {@code NOT IN} conjuncts written out; itself if it has none. */
  public static String rewrite(String query) throws SQLException {
    SqlSelect select = QueryText.outermostSelect(query);
    if (select == null || select.getWhere() == null) {
      return query;
    }
    QueryText text = new QueryText(query);
    Map<QueryText.Range, String> replacements = new HashMap<>();
    rewriteConjuncts(select.getWhere(), text, replacements);
    return replacements.isEmpty()
        ? query
        : text.replaced(new QueryText.Range(0, query.length()), replacements);
  }

  private static void rewriteConjuncts(
      SqlNode condition, QueryText text, Map<QueryText.Range, String> replacements) {
    if (condition.getKind() == SqlKind.AND) {
      for (SqlNode operand : ((SqlCall) condition).getOperandList()) {
        rewriteConjuncts(operand, text, replacements);
      }
      return;
    }
    if (condition.getKind() != SqlKind.NOT_IN
        || !(((SqlCall) condition).operand(1) instanceof SqlSelect subquery)
        || subquery.getSelectList().size() != 1
        || ScalarSubqueries.correlated(subquery)) {
      return;
    }
    SqlNode value = ((SqlCall) condition).operand(0);
    QueryText.Range whole = text.range(condition);
    QueryText.Range valueRange = text.range(value);
    QueryText.Range subqueryRange = text.range(subquery);
    if (whole == null
        || valueRange == null
        || subqueryRange == null
        || value.getKind() == SqlKind.ROW) {
      return;
    }
    String x = "(" + text.text(valueRange) + ")";
    String name = IvmNames.quote("ivm_not_in_" + (replacements.size() + 1));
    // a reserved name, so that no column of the outer query is hidden by it
    String column = name + "." + IvmNames.quote("_ivm_value");
    String set =
        text.text(text.parenthesized(subqueryRange))
            + " AS "
            + name
            + "("
            + IvmNames.quote("_ivm_value")
            + ")";
    replacements.put(
        text.parenthesized(whole),
        "(NOT EXISTS (SELECT 1 FROM "
            + set
            + " WHERE "
            + column
            + " = "
            + x
            + ") AND (SELECT COUNT(*) - COUNT("
            + column
            + ") FROM "
            + set
            + ") = 0 AND ("
            + x
            + " IS NOT NULL OR (SELECT COUNT(*) FROM "
            + set
            + ") = 0))");
  }
}
