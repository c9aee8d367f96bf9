package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * {@code EXISTS}, {@code NOT EXISTS}, {@code IN} and {@code NOT IN} subqueries that Calcite would
 * turn into a join with an aggregate of its own making, which the rules cannot maintain: those
 * under an {@code OR} or elsewhere than as a conjunct of the outermost query's WHERE clause (under
 * {@code NOT}, inside an expression), and those of its select list when it does not aggregate. Each
 * is written as counts of the subquery's rows, which {@link ScalarSubqueries} then moves into FROM
 * (a one-row aggregate cross-joined, or one grouped by the correlation's keys left-joined) and
 * CREATE keeps as hidden views. A conjunct of the WHERE clause becomes a semi- or anti-join, which
 * the rules maintain, so conjuncts are left as they are.
 *
 * <ul>
 *   <li>{@code EXISTS (SELECT ... FROM r WHERE w)} is {@code (SELECT COUNT(*) FROM r WHERE w) > 0},
 *       and {@code NOT EXISTS} the same {@code = 0}: both are TRUE or FALSE, never NULL, so this
 *       holds wherever they stand.
 *   <li>{@code x IN (SELECT y FROM r WHERE w)} is TRUE when some {@code y} equals {@code x}: {@code
 *       e = (SELECT COUNT(*) FROM r WHERE w AND y = x) > 0}; else FALSE when the subquery has no
 *       row; else NULL when {@code x} or some {@code y} is NULL; else FALSE. The subquery's shape
 *       is one value, {@code s = (SELECT CASE WHEN COUNT(*) = 0 THEN 0 WHEN COUNT(*) > COUNT(y)
 *       THEN 2 ELSE 1 END FROM r WHERE w)} (no row, a NULL among them, neither), so that {@code
 *       CASE} of two counts is exact anywhere. Under only ANDs and ORs up to the WHERE clause, a
 *       row is kept for NULL exactly when it is kept for FALSE (AND and OR are monotone, and a
 *       result that does not depend on an unknown value is the same for every value), so there
 *       {@code e > 0} alone is the same filter. {@code NOT IN} is {@code NOT} of it: exactly the
 *       {@code CASE} with TRUE and FALSE swapped, and under ANDs and ORs {@code (s = 0 OR (x IS NOT
 *       NULL AND s = 1 AND e = 0))}. {@code x} must be a column, qualified by its relation or read
 *       from the outer query's only one, so that it is the outer query's column inside the
 *       subquery.
 * </ul>
 *
 * A subquery that groups, aggregates, limits or is a set operation is left as it is (and refused).
 * CREATE stores the rewritten query.
 */
public final class CountedSubqueries {
  private CountedSubqueries() {}

  /**
   * {@code query} with its subqueries written as counts; itself if it has none. {@code functions}
   * tells DuckDB's aggregates (a subquery that aggregates always has a row).
   */
  public static String rewrite(String query, GroupByAll.Functions functions) throws SQLException {
    SqlSelect select = QueryText.outermostSelect(query);
    if (select == null || select.getFrom() == null) {
      return query;
    }
    QueryText text = new QueryText(query);
    Map<QueryText.Range, String> replacements = new HashMap<>();
    Rewriter rewriter =
        new Rewriter(text, outerRelation(select.getFrom()), functions, replacements);
    if (select.getWhere() != null) {
      rewriter.visit(select.getWhere(), false, true);
    }
    if (hasSubquery(select.getSelectList())
        && ScalarSubqueries.movesSelectList(select, functions.read())) {
      // the select list's subqueries, written as counts only where ScalarSubqueries moves them
      for (SqlNode item : select.getSelectList()) {
        rewriter.visit(item, true, false);
      }
    }
    return replacements.isEmpty()
        ? query
        : text.replaced(new QueryText.Range(0, query.length()), replacements);
  }

  /** Whether {@code items} hold a subquery. */
  private static boolean hasSubquery(SqlNodeList items) {
    boolean[] found = {false};
    items.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            found[0] |= call instanceof SqlSelect;
            return found[0] ? null : super.visit(call);
          }
        });
    return found[0];
  }

  /** The name the outer query's only relation is read by (alias or table name); null if several. */
  private static @Nullable String outerRelation(SqlNode from) {
    if (from.getKind() == SqlKind.AS
        && ((SqlCall) from).operand(1) instanceof SqlIdentifier alias) {
      return alias.getSimple();
    }
    return from instanceof SqlIdentifier table ? table.names.get(table.names.size() - 1) : null;
  }

  /** Finds the subqueries to rewrite and puts their counts among {@code replacements}. */
  private static final class Rewriter {
    private final QueryText text;
    private final @Nullable String outerRelation;
    private final GroupByAll.Functions functions;
    private final Map<QueryText.Range, String> replacements;

    /** DuckDB's functions, read when the first subquery is checked. */
    private @Nullable DuckDbFunctions duckDb;

    Rewriter(
        QueryText text,
        @Nullable String outerRelation,
        GroupByAll.Functions functions,
        Map<QueryText.Range, String> replacements) {
      this.text = text;
      this.outerRelation = outerRelation;
      this.functions = functions;
      this.replacements = replacements;
    }

    /**
     * Rewrites the subqueries of {@code node}, a condition that stands {@code underOr} or not, and
     * {@code monotone}: only ANDs and ORs above it up to the WHERE clause. A subquery under an OR
     * or in another place than a chain of ANDs (not {@code monotone}) is rewritten.
     */
    void visit(SqlNode node, boolean underOr, boolean monotone) throws SQLException {
      if (node instanceof SqlNodeList list) {
        // a CASE's WHEN and THEN lists
        for (SqlNode element : list) {
          if (element != null) {
            visit(element, underOr, monotone);
          }
        }
        return;
      }
      if (!(node instanceof SqlCall call) || node instanceof SqlSelect) {
        return;
      }
      SqlKind kind = call.getKind();
      boolean rewrite = underOr || !monotone;
      if (rewrite && rewritten(call, monotone)) {
        return;
      }
      if (!rewrite && kind == SqlKind.NOT && call.operand(0).getKind() == SqlKind.EXISTS) {
        return; // NOT EXISTS as a conjunct: an anti-join
      }
      boolean and = kind == SqlKind.AND;
      boolean or = kind == SqlKind.OR;
      for (SqlNode operand : call.getOperandList()) {
        if (operand != null) {
          visit(operand, underOr || or, monotone && (and || or));
        }
      }
    }

    /** Rewrites {@code call} if it is a subquery condition this class writes as counts. */
    private boolean rewritten(SqlCall call, boolean monotone) throws SQLException {
      QueryText.Range range = text.range(call);
      if (range == null) {
        return false;
      }
      SqlKind kind = call.getKind();
      boolean notExists = kind == SqlKind.NOT && call.operand(0).getKind() == SqlKind.EXISTS;
      if (notExists || kind == SqlKind.EXISTS) {
        String count = count(notExists ? (SqlCall) call.operand(0) : call, null, null);
        if (count == null) {
          return false;
        }
        replacements.put(range, "(" + count + (notExists ? " = 0)" : " > 0)"));
        return true;
      }
      if ((kind != SqlKind.IN && kind != SqlKind.NOT_IN)
          || !(call.operand(1) instanceof SqlSelect subquery)
          || subquery.getSelectList().size() != 1) {
        return false;
      }
      String outer = outerColumn(call.operand(0), subquery);
      SqlNode value = subquery.getSelectList().get(0);
      value = value.getKind() == SqlKind.AS ? ((SqlCall) value).operand(0) : value;
      QueryText.Range valueRange = text.range(value);
      if (outer == null
          || valueRange == null
          || value instanceof SqlIdentifier star && star.isStar()) {
        return false;
      }
      String y = "(" + text.text(valueRange) + ")";
      String equal = count(subquery, y + " = " + outer, null);
      if (equal == null) {
        return false;
      }
      // the subquery's rows in one value: 0 none, 1 some and no NULL y, 2 some with a NULL y
      String shape =
          count(
              subquery,
              null,
              "CASE WHEN COUNT(*) = 0 THEN 0 WHEN COUNT(*) > COUNT(" + y + ") THEN 2 ELSE 1 END");
      boolean in = kind == SqlKind.IN;
      if (!monotone) {
        // exact: TRUE, FALSE or NULL as the subquery would give
        replacements.put(
            range,
            "(CASE WHEN "
                + equal
                + " > 0 THEN "
                + in
                + " WHEN "
                + shape
                + " = 0 THEN "
                + !in
                + " WHEN "
                + outer
                + " IS NULL OR "
                + shape
                + " = 2 THEN CAST(NULL AS BOOLEAN) ELSE "
                + !in
                + " END)");
      } else if (in) {
        replacements.put(range, "(" + equal + " > 0)");
      } else {
        replacements.put(
            range,
            "("
                + shape
                + " = 0 OR ("
                + outer
                + " IS NOT NULL AND "
                + shape
                + " = 1 AND "
                + equal
                + " = 0))");
      }
      return true;
    }

    /**
     * {@code (SELECT <counted> FROM ... WHERE ...)} over the rows of {@code exists} (an EXISTS call
     * or a subquery), with {@code condition} added to its WHERE clause; {@code counted} is {@code
     * COUNT(*)} if null. Null if the subquery groups, aggregates, limits, is not a plain SELECT, or
     * the parser's positions do not allow copying it.
     */
    private @Nullable String count(
        SqlCall exists, @Nullable String condition, @Nullable String counted) throws SQLException {
      SqlNode operand = exists instanceof SqlSelect ? exists : exists.operand(0);
      if (!(operand instanceof SqlSelect subquery)
          || subquery.getFrom() == null
          || (subquery.getGroup() != null && !subquery.getGroup().isEmpty())
          || subquery.getHaving() != null
          || subquery.getQualify() != null
          || !subquery.getWindowList().isEmpty()
          || subquery.getFetch() != null
          || subquery.getOffset() != null
          || aggregatesOrWindows(subquery.getSelectList())) {
        return null;
      }
      QueryText.Range from = text.fromClause(subquery);
      QueryText.Range where = subquery.getWhere() == null ? null : text.range(subquery.getWhere());
      if (from == null || (subquery.getWhere() != null && where == null)) {
        return null;
      }
      String filter =
          where == null
              ? condition
              : condition == null
                  ? text.text(where)
                  : "(" + text.text(where) + ") AND " + condition;
      return "(SELECT "
          + (counted == null ? "COUNT(*)" : counted)
          + " FROM "
          + text.text(from)
          + (filter == null ? "" : " WHERE " + filter)
          + ")";
    }

    /**
     * The outer column {@code node} as the subquery must name it: qualified by its relation (one
     * the subquery does not define itself), or by the outer query's only relation; null otherwise.
     */
    private @Nullable String outerColumn(SqlNode node, SqlSelect subquery) {
      if (!(node instanceof SqlIdentifier column) || column.isStar()) {
        return null;
      }
      Set<String> defined = ScalarSubqueries.defined(subquery);
      if (column.names.size() > 1) {
        String qualifier = column.names.get(column.names.size() - 2);
        QueryText.Range range = text.range(column);
        return defined.contains(qualifier.toLowerCase(Locale.ROOT)) || range == null
            ? null
            : text.text(range);
      }
      if (outerRelation == null || defined.contains(outerRelation.toLowerCase(Locale.ROOT))) {
        return null;
      }
      return quoted(outerRelation) + "." + quoted(column.getSimple());
    }

    /** Whether a select item calls an aggregate or window function (the subquery is not rows). */
    private boolean aggregatesOrWindows(SqlNodeList items) throws SQLException {
      if (duckDb == null) {
        duckDb = functions.read();
      }
      for (SqlNode item : items) {
        if (GroupByAll.aggregates(item, duckDb) || IntermediateStates.windowed(item)) {
          return true;
        }
      }
      return false;
    }

    private static String quoted(String name) {
      return "\"" + name.replace("\"", "\"\"") + "\"";
    }
  }
}
