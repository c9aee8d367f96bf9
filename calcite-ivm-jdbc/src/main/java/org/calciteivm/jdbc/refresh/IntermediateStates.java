package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableList;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlSetOperator;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.SqlWith;
import org.apache.calcite.sql.fun.SqlLibrary;
import org.apache.calcite.sql.fun.SqlLibraryOperatorTableFactory;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.validate.SqlNameMatchers;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;
import org.calciteivm.rules.frontend.LambdaSyntax;
import org.calciteivm.rules.frontend.ViewSqlPlanner;

/**
 * Splits a view's query into intermediate states: each subquery in a FROM clause and each branch of
 * a set operation ({@code UNION [ALL]}, {@code INTERSECT}, {@code EXCEPT}) that aggregates (GROUP
 * BY, HAVING, an aggregate function, or SELECT DISTINCT), computes window functions, keeps its top
 * rows ({@code ORDER BY ... LIMIT}, {@code OFFSET}, {@code FETCH}), or is an {@code INTERSECT ALL}
 * or {@code EXCEPT ALL} becomes a hidden materialized view of its own, and the view reads that
 * instead; so does an aggregating subquery of an {@code IN} or {@code EXISTS} condition that names
 * nothing of the outer query. An aggregate over an aggregate, an aggregate below a join or a union,
 * a window function over an aggregate or below a join, is then a view over views, which calcite-ivm
 * maintains (window functions and the bag set operations are kept only at the top of a view, by
 * recomputing the partitions a change touches).
 *
 * <p>The split works on the query's text: the subquery (with the parentheses around it) is replaced
 * by the name of its hidden view, {@code _ivm."node_<view id>_<i>"}, numbered in the order the
 * subqueries appear, and the user's alias is kept; a branch is replaced by {@code SELECT * FROM}
 * its hidden view (the view's columns are named by the user's query, not by the branches). A hidden
 * view's query is the subquery's text as written, so a subquery nested in it is split in turn when
 * that view is created. Only the outermost aggregating subqueries are split, and none inside a
 * LATERAL join (a correlated subquery has no state of its own). The split is a function of the text
 * and the view's id alone, so the catalog keeps the user's query and the split is made again
 * whenever the view is planned.
 *
 * <p>A query with a WITH clause has its common table expressions inlined first ({@link
 * CommonTableExpressions}), so that an aggregating one is split as a FROM subquery.
 *
 * <p>A view whose own aggregates take DISTINCT values is split differently: into one hidden view
 * that counts each value per group, and the view over it ({@link DistinctAggregates}). Its FROM
 * clause moves into that hidden view whole, and is split there in turn.
 */
public final class IntermediateStates {
  /** The functions known to be aggregates, by upper-case name. */
  private static final SqlOperatorTable FUNCTIONS =
      SqlLibraryOperatorTableFactory.INSTANCE.getOperatorTable(
          SqlLibrary.STANDARD, SqlLibrary.POSTGRESQL);

  private final QueryText text;
  private final DuckDbFunctions functions;
  private final List<Span> spans = new ArrayList<>();

  /**
   * A subquery to split off: a relation of a FROM clause (replaced by the hidden view's name) or a
   * branch of a set operation (replaced by a query of the hidden view's rows).
   */
  private record Span(QueryText.Range range, boolean branch) {}

  /** The names DuckDB gives the columns of a query (as {@code CREATE TABLE ... AS} makes them). */
  @FunctionalInterface
  public interface ColumnNames {
    List<String> of(String query) throws SQLException;

    /** The names as {@link DescribedColumn#describe} gives them on {@code connection}. */
    static ColumnNames describedOn(Connection connection) {
      return query ->
          DescribedColumn.describe(connection, query).stream().map(DescribedColumn::name).toList();
    }
  }

  /** A hidden view: its name in {@link IvmNames#SCHEMA} and its query. */
  public record Node(String name, String query) {}

  /**
   * A split query: the query the view is planned with, reading the hidden views {@code nodes}.
   *
   * @param query the view's query with each split subquery replaced by its hidden view's name
   * @param nodes the hidden views, in the order of their numbers
   */
  public record Split(String query, ImmutableList<Node> nodes) {}

  private IntermediateStates(QueryText text, DuckDbFunctions functions) {
    this.text = text;
    this.functions = functions;
  }

  /**
   * Splits {@code query}, the query of the view with id {@code viewId}: no nodes if it has no
   * aggregating subquery in a FROM clause (or it has a WITH clause, or does not parse). {@code
   * functions} are DuckDB's, which tell its aggregates ({@code quantile_cont}, ...) from scalar
   * functions; {@code columnNames} names the columns of the query, for a split whose view must name
   * them as the query does.
   */
  public static Split split(
      String query, int viewId, String viewName, DuckDbFunctions functions, ColumnNames columnNames)
      throws SQLException {
    SqlNode parsed;
    try {
      parsed = LambdaSyntax.parser(query, ViewSqlPlanner.PARSER).parseQuery();
    } catch (SqlParseException e) {
      return new Split(query, ImmutableList.of()); // the planner reports it
    }
    QueryText text = new QueryText(query);
    if (parsed instanceof SqlWith with) {
      String inlined = CommonTableExpressions.inline(text, with);
      return inlined == null
          ? new Split(query, ImmutableList.of())
          : split(inlined, viewId, viewName, functions, columnNames);
    }
    // a view is a bag: an ORDER BY without LIMIT orders nothing that is kept
    SqlNode unordered =
        parsed instanceof SqlOrderBy order && order.fetch == null && order.offset == null
            ? order.query
            : parsed;
    if (unordered instanceof SqlSelect select) {
      Split windowed =
          GroupedWindows.split(
              text,
              select,
              viewId,
              operator -> isAggregate(operator, functions),
              () -> columnNames.of(query));
      if (windowed != null) {
        return windowed;
      }
    }
    if (parsed instanceof SqlSelect select) {
      Split distinct =
          DistinctAggregates.split(
              text,
              select,
              viewId,
              viewName,
              operator -> isAggregate(operator, functions),
              () -> columnNames.of(query));
      if (distinct != null) {
        return distinct;
      }
    }
    IntermediateStates states = new IntermediateStates(text, functions);
    states.visitQuery(parsed);
    return states.splice(viewId);
  }

  /** Finds the aggregating subqueries in the FROM clauses and set operations of a query. */
  private void visitQuery(SqlNode query) {
    if (query.getKind() == SqlKind.ORDER_BY) {
      visitQuery(((SqlCall) query).operand(0));
    } else if (query instanceof SqlSelect select) {
      visitFrom(select.getFrom());
      visitWhere(select.getWhere());
    } else if (query.getKind().belongsTo(SqlKind.SET_QUERY)) {
      // a bag INTERSECT or EXCEPT nested in another is kept with it; in a UNION it is a branch
      boolean inBag = isBagIntersectOrExcept(query);
      for (SqlNode branch : ((SqlCall) query).getOperandList()) {
        if (branch instanceof SqlSelect select
            ? keptAlone(select)
            : limited(branch) || (!inBag && isBagIntersectOrExcept(branch))) {
          QueryText.Range range = text.range(branch);
          if (range != null) {
            spans.add(new Span(range, true));
          }
        } else {
          visitQuery(branch);
        }
      }
    }
  }

  /** Finds the aggregating subqueries among the relations of a FROM clause. */
  private void visitFrom(SqlNode from) {
    if (from == null) {
      return;
    }
    if (from instanceof SqlJoin join) {
      visitFrom(join.getLeft());
      visitFrom(join.getRight());
    } else if (from.getKind() == SqlKind.AS) {
      visitFrom(((SqlCall) from).operand(0));
    } else if (from instanceof SqlSelect select && !keptAlone(select)) {
      visitFrom(select.getFrom());
    } else if (from instanceof SqlSelect || isBagIntersectOrExcept(from) || limited(from)) {
      QueryText.Range range = text.range(from);
      if (range != null && !text.parenthesized(range).equals(range)) {
        spans.add(new Span(range, false)); // a FROM subquery is parenthesized
      }
    } else if (from.getKind().belongsTo(SqlKind.SET_QUERY)) {
      visitQuery(from);
    }
    // a table, a LATERAL or WITH subquery, a table function: nothing to split
  }

  /**
   * Finds the aggregating subqueries of {@code IN}, {@code NOT IN}, {@code EXISTS} and {@code NOT
   * EXISTS} conditions in a WHERE clause that name nothing of the outer query ({@code g IN (SELECT
   * g FROM u GROUP BY g HAVING SUM(z) > 10)}, TPC-H Q18's shape): each becomes {@code SELECT *
   * FROM} a hidden view, whose rows the condition then reads as it reads a table's.
   */
  private void visitWhere(SqlNode condition) {
    if (!(condition instanceof SqlCall call)) {
      return;
    }
    SqlKind kind = call.getKind();
    if (kind == SqlKind.AND || kind == SqlKind.OR || kind == SqlKind.NOT) {
      call.getOperandList().forEach(this::visitWhere);
      return;
    }
    boolean subqueryCondition =
        kind == SqlKind.IN || kind == SqlKind.NOT_IN || kind == SqlKind.EXISTS;
    SqlNode subquery = call.getOperandList().get(call.operandCount() - 1);
    if (subqueryCondition
        && subquery instanceof SqlSelect select
        && keptAlone(select)
        && !ScalarSubqueries.correlated(select)) {
      QueryText.Range range = text.range(select);
      if (range != null) {
        // as a branch: the query inside the condition's parentheses
        spans.add(new Span(text.unparenthesized(range), true));
      }
    }
  }

  /**
   * Whether {@code select} is kept as a view of its own wherever it stands below another operator:
   * it aggregates its rows or computes window functions.
   */
  private boolean keptAlone(SqlSelect select) {
    return aggregates(select)
        || select.getQualify() != null
        || select.getSelectList().stream().anyMatch(IntermediateStates::windowed);
  }

  /** Whether {@code node} calls a window function (not in a subquery). */
  static boolean windowed(SqlNode node) {
    if (!(node instanceof SqlCall call) || call.getKind() == SqlKind.SELECT) {
      return false;
    }
    return call.getKind() == SqlKind.OVER
        || call.getOperandList().stream()
            .anyMatch(
                o ->
                    o instanceof SqlNodeList list
                        ? list.stream().anyMatch(IntermediateStates::windowed)
                        : windowed(o));
  }

  /**
   * Whether {@code node} is a query with {@code LIMIT}, {@code OFFSET} or {@code FETCH}: its rows
   * depend on all of its input's, so it is kept as a view of its own ({@link TopRows}).
   */
  private static boolean limited(SqlNode node) {
    return node instanceof SqlOrderBy order && (order.fetch != null || order.offset != null);
  }

  /** Whether {@code node} is an {@code INTERSECT ALL} or {@code EXCEPT ALL}. */
  private static boolean isBagIntersectOrExcept(SqlNode node) {
    return (node.getKind() == SqlKind.INTERSECT || node.getKind() == SqlKind.EXCEPT)
        && ((SqlCall) node).getOperator() instanceof SqlSetOperator setOperator
        && setOperator.isAll();
  }

  /** Whether {@code select} aggregates its rows. */
  private boolean aggregates(SqlSelect select) {
    return select.isDistinct()
        || (select.getGroup() != null && !select.getGroup().isEmpty())
        || select.getHaving() != null
        || select.getSelectList().stream().anyMatch(this::callsAggregate);
  }

  /** Whether {@code node} calls an aggregate function (not over a window, not in a subquery). */
  private boolean callsAggregate(SqlNode node) {
    if (!(node instanceof SqlCall call)
        || call.getKind() == SqlKind.OVER
        || call.getKind() == SqlKind.SELECT) {
      return false;
    }
    SqlKind kind = call.getKind();
    if (kind == SqlKind.FILTER || kind == SqlKind.WITHIN_GROUP || kind == SqlKind.WITHIN_DISTINCT) {
      return true;
    }
    if (isAggregate(call.getOperator(), functions)) {
      return true;
    }
    for (SqlNode operand : call.getOperandList()) {
      if (operand instanceof SqlNodeList list) {
        if (list.stream().anyMatch(this::callsAggregate)) {
          return true;
        }
      } else if (callsAggregate(operand)) {
        return true;
      }
    }
    return false;
  }

  static boolean isAggregate(SqlOperator operator, DuckDbFunctions functions) {
    if (operator instanceof SqlAggFunction) {
      return true;
    }
    if (!(operator instanceof SqlUnresolvedFunction function)) {
      return false;
    }
    if (functions.isAggregate(function.getName())) {
      return true;
    }
    List<SqlOperator> found = new ArrayList<>();
    FUNCTIONS.lookupOperatorOverloads(
        new SqlIdentifier(function.getName().toUpperCase(Locale.ROOT), SqlParserPos.ZERO),
        SqlFunctionCategory.USER_DEFINED_FUNCTION,
        SqlSyntax.FUNCTION,
        found,
        SqlNameMatchers.withCaseSensitive(false));
    return found.stream().anyMatch(o -> o instanceof SqlAggFunction);
  }

  private Split splice(int viewId) {
    StringBuilder spliced = new StringBuilder();
    ImmutableList.Builder<Node> nodes = ImmutableList.builder();
    int copied = 0;
    String query = text.query();
    for (int i = 0; i < spans.size(); i++) {
      Span span = spans.get(i);
      QueryText.Range replaced = span.branch() ? span.range() : text.parenthesized(span.range());
      String name = IvmNames.hiddenView(viewId, i + 1);
      nodes.add(new Node(name, text.text(span.range())));
      spliced
          .append(query, copied, replaced.start())
          .append(span.branch() ? " SELECT * FROM " : " ")
          .append(IvmNames.qualified(IvmNames.SCHEMA, name))
          .append(' ');
      copied = replaced.end();
    }
    spliced.append(query.substring(copied));
    return new Split(spans.isEmpty() ? query : spliced.toString(), nodes.build());
  }
}
