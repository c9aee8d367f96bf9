package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;

/**
 * Uncorrelated scalar subqueries that aggregate without grouping ({@code WHERE x > (SELECT AVG(y)
 * FROM u)}), moved into the FROM clause as a cross join with their one row: {@code FROM t CROSS
 * JOIN (SELECT AVG(y) FROM u) AS "ivm_scalar_1"("value") WHERE x > "ivm_scalar_1"."value"}.
 * Identity: an aggregate without GROUP BY or HAVING has exactly one row, so a cross join with it
 * keeps every row once and gives each the subquery's value. The subquery is then an aggregate below
 * a join, kept as a hidden view ({@link IntermediateStates}) whose one row is the state: a change
 * to its inputs changes that row, and the view's change is the join's.
 *
 * <p>Done for the outermost query's WHERE clause, and its select list when it does not aggregate (a
 * cross-joined value would not be grouped). A subquery that names a table or alias of the outer
 * query is correlated and left as it is (and refused by the planner).
 *
 * <p>A {@code *} in the select list would also select the cross-joined values, so it is written out
 * as the star of each relation of the FROM clause ({@code a.*, b.*}); a FROM clause where that is
 * not the same (a join {@code USING} or {@code NATURAL}, a relation without a name) keeps its
 * subqueries.
 */
public final class ScalarSubqueries {
  private ScalarSubqueries() {}

  /** The name of each moved subquery's column. */
  private static final String VALUE = "value";

  /** {@code query} with its scalar subqueries moved; {@code query} itself if it has none. */
  public static String rewrite(String query, GroupByAll.Functions functions) throws SQLException {
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
    boolean aggregates =
        (select.getGroup() != null && !select.getGroup().isEmpty())
            || select.getHaving() != null
            || select.getSelectList().stream().anyMatch(i -> GroupByAll.aggregates(i, duckDb));
    if (!aggregates) {
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
    StringBuilder joins = new StringBuilder(text.text(from));
    int n = 0;
    for (SqlSelect subquery : found) {
      QueryText.Range range = text.range(subquery);
      if (range == null || !oneRow(subquery, duckDb) || correlated(subquery)) {
        continue;
      }
      String name = IvmNames.quote("ivm_scalar_" + ++n);
      QueryText.Range parenthesized = text.parenthesized(range);
      joins
          .append(" CROSS JOIN ")
          .append(text.text(parenthesized))
          .append(" AS ")
          .append(name)
          .append('(')
          .append(IvmNames.quote(VALUE))
          .append(')');
      replacements.put(parenthesized, name + "." + IvmNames.quote(VALUE));
    }
    if (n == 0) {
      return query;
    }
    replacements.put(from, joins.toString());
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
    Set<String> defined = new HashSet<>();
    List<SqlIdentifier> columns = new ArrayList<>();
    subquery.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (call instanceof SqlSelect select && select.getFrom() != null) {
              define(select.getFrom(), defined);
            }
            return super.visit(call);
          }

          @Override
          public Void visit(SqlIdentifier id) {
            columns.add(id);
            return null;
          }
        });
    return columns.stream()
        .anyMatch(
            id ->
                id.names.size() > 1
                    && !defined.contains(
                        id.names.get(id.names.size() - 2).toLowerCase(Locale.ROOT)));
  }

  /** Adds the names the relations of a FROM clause define (tables and aliases), lower case. */
  private static void define(SqlNode from, Set<String> defined) {
    if (from instanceof SqlJoin join) {
      define(join.getLeft(), defined);
      define(join.getRight(), defined);
    } else if (from.getKind() == SqlKind.AS) {
      SqlCall as = (SqlCall) from;
      defined.add(((SqlIdentifier) as.operand(1)).getSimple().toLowerCase(Locale.ROOT));
      define(as.operand(0), defined);
    } else if (from instanceof SqlIdentifier table) {
      // the table, and its schema (so that the table's own name is not taken for a column's)
      table.names.forEach(name -> defined.add(name.toLowerCase(Locale.ROOT)));
    } else if (from instanceof SqlNodeList list) {
      list.forEach(item -> define(item, defined));
    }
  }
}
