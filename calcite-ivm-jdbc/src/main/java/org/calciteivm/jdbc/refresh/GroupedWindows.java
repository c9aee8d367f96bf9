package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableList;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlWindow;
import org.calciteivm.core.IvmNames;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Splits a view whose window functions read its own aggregates into the aggregate, kept as a hidden
 * view, and the window functions over it.
 *
 * <p>For {@code SELECT k, SUM(x) AS s, RANK() OVER (ORDER BY SUM(x) DESC) FROM r WHERE p GROUP BY k
 * HAVING h}, the hidden view {@code _ivm."node_<view id>_1"} is {@code SELECT k AS key_1, SUM(x) AS
 * aggregate_1 FROM r WHERE p GROUP BY k HAVING h}, and the view becomes {@code SELECT key_1,
 * aggregate_1 AS s, RANK() OVER (ORDER BY aggregate_1 DESC) FROM node}. The identity is SQL's own
 * order of evaluation: window functions (and QUALIFY) are computed over the rows that grouping and
 * HAVING leave, one per group. The hidden view is maintained as any aggregate view and emits the
 * groups that changed; the view recomputes the window partitions they touch, as for any window
 * function over a table.
 *
 * <p>The pieces are the user's own text, copied by the parser's positions; a query whose positions
 * do not allow it, with a named WINDOW clause, GROUPING SETS, GROUP BY a position, or a LIMIT, is
 * not split (and stays refused).
 */
final class GroupedWindows {
  private static final String AGGREGATE = "aggregate_";

  private final QueryText text;
  private final SqlSelect select;
  private final Predicate<SqlOperator> isAggregate;
  private final GroupedText.ColumnNames columnNames;

  /** The aggregate calls outside window functions, as written (with their FILTER, if any). */
  private final List<SqlNode> calls = new ArrayList<>();

  /** Whether a window function is called. */
  private boolean windowed;

  /** Whether a window function is written in a way this split does not copy. */
  private boolean unsplittable;

  private GroupedWindows(
      QueryText text,
      SqlSelect select,
      Predicate<SqlOperator> isAggregate,
      GroupedText.ColumnNames columnNames) {
    this.text = text;
    this.select = select;
    this.isAggregate = isAggregate;
    this.columnNames = columnNames;
  }

  /**
   * The split of {@code select}, the top of the query {@code text} of view {@code viewId}; null if
   * it does not both group its rows and compute window functions, or cannot be split this way. The
   * view over the hidden view names its columns as the query does ({@code columnNames}).
   */
  static IntermediateStates.@Nullable Split split(
      QueryText text,
      SqlSelect select,
      int viewId,
      Predicate<SqlOperator> isAggregate,
      GroupedText.ColumnNames columnNames)
      throws SQLException {
    GroupedWindows split = new GroupedWindows(text, select, isAggregate, columnNames);
    for (SqlNode item : select.getSelectList()) {
      split.collect(item);
    }
    if (select.getQualify() != null) {
      split.windowed = true;
      split.collect(select.getQualify());
    }
    boolean grouped =
        (select.getGroup() != null && !select.getGroup().isEmpty())
            || select.getHaving() != null
            || !split.calls.isEmpty();
    if (!grouped
        || !split.windowed
        || split.unsplittable
        || select.getFrom() == null
        || !select.getWindowList().isEmpty()
        || select.getFetch() != null
        || select.getOffset() != null) {
      return null;
    }
    return split.split(viewId);
  }

  /** Finds the aggregate calls in {@code node}, outside subqueries, in window functions too. */
  private void collect(SqlNode node) {
    if (!(node instanceof SqlCall call) || node instanceof SqlSelect) {
      return;
    }
    SqlKind kind = call.getKind();
    if (kind == SqlKind.OVER) {
      windowed = true;
      // the function computed over the window is not grouped; its arguments and the window are
      if (!(call.operand(0) instanceof SqlCall function)
          || function.getKind() == SqlKind.FILTER
          || !(call.operand(1) instanceof SqlWindow window)) {
        unsplittable = true;
        return;
      }
      collectOperands(function);
      window.getPartitionList().forEach(this::collect);
      window.getOrderList().forEach(this::collect);
      return;
    }
    if (kind == SqlKind.FILTER
        || kind == SqlKind.WITHIN_GROUP
        || kind == SqlKind.WITHIN_DISTINCT
        || isAggregate.test(call.getOperator())) {
      calls.add(call);
      return;
    }
    collectOperands(call);
  }

  private void collectOperands(SqlCall call) {
    for (SqlNode operand : call.getOperandList()) {
      if (operand instanceof SqlNodeList list) {
        list.forEach(this::collect);
      } else if (operand != null) {
        collect(operand);
      }
    }
  }

  private IntermediateStates.@Nullable Split split(int viewId) throws SQLException {
    List<SqlNode> groups = new ArrayList<>();
    if (select.getGroup() != null) {
      for (SqlNode group : select.getGroup()) {
        if (group.getKind() == SqlKind.GROUPING_SETS
            || group.getKind() == SqlKind.ROLLUP
            || group.getKind() == SqlKind.CUBE
            || group instanceof SqlLiteral) {
          return null;
        }
        groups.add(group);
      }
    }
    List<String> nodeColumns = new ArrayList<>();
    List<String> nodeGroups = new ArrayList<>();
    for (int i = 0; i < groups.size(); i++) {
      QueryText.Range range = text.range(groups.get(i));
      if (range == null) {
        return null;
      }
      nodeColumns.add(text.text(range) + " AS " + GroupedText.key(i));
      nodeGroups.add(text.text(range));
    }
    // one column per aggregate as written: the same text twice is one column
    Map<String, String> columnOf = new LinkedHashMap<>();
    Map<QueryText.Range, String> replacements = new LinkedHashMap<>();
    for (SqlNode call : calls) {
      QueryText.Range written = text.range(call);
      if (written == null) {
        return null;
      }
      String column =
          columnOf.computeIfAbsent(
              text.text(written), t -> IvmNames.quote(AGGREGATE + (columnOf.size() + 1)));
      replacements.put(written, column);
    }
    columnOf.forEach((aggregate, column) -> nodeColumns.add(aggregate + " AS " + column));
    QueryText.Range from = text.fromClause(select);
    QueryText.Range where = select.getWhere() == null ? null : text.range(select.getWhere());
    QueryText.Range having = select.getHaving() == null ? null : text.range(select.getHaving());
    QueryText.Range qualifying =
        select.getQualify() == null ? null : text.range(select.getQualify());
    if (from == null
        || (select.getWhere() != null && where == null)
        || (select.getHaving() != null && having == null)
        || (select.getQualify() != null && qualifying == null)) {
      return null;
    }
    if (qualifying != null && from.end() > qualifying.start()) {
      // no WHERE, GROUP BY or HAVING: the FROM clause ends where QUALIFY begins
      from = text.tokensBetween(from.start(), qualifying.start(), "FROM", Set.of("QUALIFY"));
      if (from == null) {
        return null;
      }
    }
    String node =
        "SELECT "
            + String.join(", ", nodeColumns)
            + " FROM "
            + text.text(from)
            + (where == null ? "" : " WHERE " + text.text(where))
            + (nodeGroups.isEmpty() ? "" : " GROUP BY " + String.join(", ", nodeGroups))
            + (having == null ? "" : " HAVING " + text.text(having));

    // a column read outside the groups cannot occur in a grouped query DuckDB accepted, except
    // inside a window function (COUNT(*) OVER ()), where it reads the hidden view's rows
    GroupedText over = new GroupedText(text, groups, "", function -> null);
    List<String> items = over.selectList(select, replacements, columnNames);
    if (items == null) {
      return null;
    }
    String qualify = null;
    if (select.getQualify() != null) {
      qualify = over.rewritten(select.getQualify(), replacements);
      if (qualify == null) {
        return null;
      }
    }
    String name = IvmNames.hiddenView(viewId, 1);
    String root =
        "SELECT "
            + (select.isDistinct() ? "DISTINCT " : "")
            + String.join(", ", items)
            + " FROM "
            + IvmNames.qualified(IvmNames.SCHEMA, name)
            + (qualify == null ? "" : " QUALIFY " + qualify);
    return new IntermediateStates.Split(
        root, ImmutableList.of(new IntermediateStates.Node(name, node)));
  }
}
