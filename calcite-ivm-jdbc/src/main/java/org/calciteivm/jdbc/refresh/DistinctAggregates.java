package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableList;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
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
import org.apache.calcite.sql.SqlSelectKeyword;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.UnsupportedViewException;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Splits an aggregate view whose aggregates take DISTINCT values into an intermediate state that
 * counts each value per group (the counting algorithm), and the view over it.
 *
 * <p>For {@code SELECT k, COUNT(DISTINCT x), SUM(y) FROM r WHERE p GROUP BY k}, the hidden view
 * {@code _ivm."node_<view id>_1"} is {@code SELECT k AS key_1, x AS distinct_value, SUM(y) AS
 * partial_1 FROM r WHERE p GROUP BY k, x}, and the view becomes {@code SELECT key_1,
 * COUNT(distinct_value), SUM(partial_1) FROM node GROUP BY key_1}. The hidden view keeps one row
 * per (group, value) with the number of rows behind it, so a change touches only the pairs it
 * changes, and a pair leaves the state when its last row goes; the view above reads the pairs that
 * changed as it reads a table's change. The identity: {@code agg(DISTINCT x)} over a group is
 * {@code agg(x)} over the group's distinct values, and {@code COUNT}, {@code SUM}, {@code MIN} and
 * {@code MAX} of other values are the same aggregate (a SUM for COUNT) of their per-value partials.
 * A FILTER on a DISTINCT aggregate moves into its value ({@code CASE WHEN f THEN x END}), since
 * NULLs are not aggregated; a FILTER on another aggregate stays on its partial.
 *
 * <p>DISTINCT aggregates of several values are one hidden view per value, joined ({@link
 * DistinctValueJoins}). The pieces of the hidden view's query and of the view's are the user's own
 * text, copied by the parser's positions.
 */
final class DistinctAggregates {
  /** The aggregates that may take DISTINCT values. */
  private static final Set<String> DISTINCT_FUNCTIONS = Set.of("COUNT", "SUM", "AVG", "MIN", "MAX");

  private static final String VALUE = "distinct_value";
  private static final String PARTIAL = "partial_";

  private final QueryText text;
  private final SqlSelect select;
  private final String viewName;
  private final Predicate<SqlOperator> isAggregate;
  private final GroupedText.ColumnNames columnNames;
  private final List<SqlNode> groups = new ArrayList<>();

  /** Whether the select list calls a window function. */
  private boolean windowed;

  /** The aggregate calls of the select list and HAVING, each with the FILTER around it. */
  private final List<AggregateCall> calls = new ArrayList<>();

  /** An aggregate call as written: the call, and its FILTER condition if it has one. */
  private record AggregateCall(SqlNode written, SqlCall call, @Nullable SqlNode filter) {
    String function() {
      return call.getOperator().getName().toUpperCase(Locale.ROOT);
    }

    boolean distinct() {
      SqlLiteral quantifier = call.getFunctionQuantifier();
      return quantifier != null && quantifier.getValue() == SqlSelectKeyword.DISTINCT;
    }
  }

  private DistinctAggregates(
      QueryText text,
      SqlSelect select,
      String viewName,
      Predicate<SqlOperator> isAggregate,
      GroupedText.ColumnNames columnNames) {
    this.text = text;
    this.select = select;
    this.viewName = viewName;
    this.isAggregate = isAggregate;
    this.columnNames = columnNames;
  }

  /**
   * The split of {@code select}, the top of the query {@code text} of view {@code viewId}; null if
   * none of its aggregates takes DISTINCT values, or the parser's positions do not allow copying
   * its pieces. DISTINCT aggregates of several values are split by {@link DistinctValueJoins},
   * whose view names its columns as the query does ({@code columnNames}).
   *
   * @throws UnsupportedViewException if its DISTINCT aggregates cannot be kept this way
   */
  static IntermediateStates.@Nullable Split split(
      QueryText text,
      SqlSelect select,
      int viewId,
      String viewName,
      Predicate<SqlOperator> isAggregate,
      GroupedText.ColumnNames columnNames)
      throws SQLException {
    DistinctAggregates split =
        new DistinctAggregates(text, select, viewName, isAggregate, columnNames);
    for (SqlNode item : select.getSelectList()) {
      split.collect(item);
    }
    if (select.getHaving() != null) {
      split.collect(select.getHaving());
    }
    if (select.getFrom() == null || split.calls.stream().noneMatch(AggregateCall::distinct)) {
      return null;
    }
    if (split.windowed) {
      throw split.refused("a window function beside DISTINCT aggregates");
    }
    return split.split(viewId);
  }

  /** Finds the aggregate calls in {@code node}, outside subqueries. */
  private void collect(SqlNode node) throws UnsupportedViewException {
    if (!(node instanceof SqlCall call) || node instanceof SqlSelect) {
      return;
    }
    if (call.getKind() == SqlKind.OVER) {
      windowed = true;
      return;
    }
    if (call.getKind() == SqlKind.FILTER && call.operand(0) instanceof SqlCall aggregate) {
      calls.add(new AggregateCall(call, aggregate, call.operand(1)));
      return;
    }
    if (isAggregate.test(call.getOperator())) {
      calls.add(new AggregateCall(call, call, null));
      return;
    }
    for (SqlNode operand : call.getOperandList()) {
      if (operand instanceof SqlNodeList list) {
        for (SqlNode element : list) {
          collect(element);
        }
      } else if (operand != null) {
        collect(operand);
      }
    }
  }

  private IntermediateStates.@Nullable Split split(int viewId) throws SQLException {
    if (select.getGroup() != null) {
      for (SqlNode group : select.getGroup()) {
        if (group.getKind() == SqlKind.GROUPING_SETS
            || group.getKind() == SqlKind.ROLLUP
            || group.getKind() == SqlKind.CUBE) {
          throw refused("GROUPING SETS, ROLLUP or CUBE");
        }
        if (group instanceof SqlLiteral) {
          throw refused("GROUP BY a column's position (name the expression)");
        }
        groups.add(group);
      }
    }
    // the value each DISTINCT aggregate takes, as the hidden view computes it
    Map<AggregateCall, String> values = new LinkedHashMap<>();
    for (AggregateCall call : calls) {
      if (call.distinct()) {
        values.put(call, distinctValue(call));
      }
    }
    if (values.values().stream().distinct().count() > 1) {
      return DistinctValueJoins.split(
          text, select, groups, distinctValueOf(values), viewId, columnNames);
    }
    String value = null;
    List<String> nodeColumns = new ArrayList<>();
    for (int i = 0; i < groups.size(); i++) {
      QueryText.Range range = text.range(groups.get(i));
      if (range == null) {
        return null;
      }
      nodeColumns.add(text.text(range) + " AS " + GroupedText.key(i));
    }
    Map<QueryText.Range, String> replacements = new LinkedHashMap<>();
    List<String> partials = new ArrayList<>();
    for (AggregateCall call : calls) {
      QueryText.Range written = text.range(call.written());
      if (written == null) {
        return null;
      }
      String combined = values.get(call);
      if (combined != null) {
        value = combined;
        replacements.put(written, call.function() + "(" + IvmNames.quote(VALUE) + ")");
      } else {
        String partial = partial(call, partials);
        if (partial == null) {
          return null;
        }
        replacements.put(written, partial);
      }
    }
    nodeColumns.add(value + " AS " + IvmNames.quote(VALUE));
    for (int i = 0; i < partials.size(); i++) {
      nodeColumns.add(partials.get(i) + " AS " + IvmNames.quote(PARTIAL + (i + 1)));
    }
    QueryText.Range from =
        select.getWindowList().isEmpty() && select.getQualify() == null
            ? text.fromClause(select)
            : null;
    QueryText.Range where = select.getWhere() == null ? null : text.range(select.getWhere());
    if (from == null || (select.getWhere() != null && where == null)) {
      return null;
    }
    List<String> nodeGroups = new ArrayList<>();
    for (SqlNode group : groups) {
      nodeGroups.add(text.text(text.range(group)));
    }
    // a number in GROUP BY is a column's position: a constant value is grouped by its name
    nodeGroups.add(
        calls.stream()
                .anyMatch(
                    c ->
                        c.distinct()
                            && c.filter() == null
                            && c.call().operand(0) instanceof SqlLiteral)
            ? IvmNames.quote(VALUE)
            : value);
    String node =
        "SELECT "
            + String.join(", ", nodeColumns)
            + " FROM "
            + text.text(from)
            + (where == null ? "" : " WHERE " + text.text(where))
            + " GROUP BY "
            + String.join(", ", nodeGroups);

    String name = IvmNames.hiddenView(viewId, 1);
    GroupedText over = new GroupedText(text, groups, "", this::ungroupedColumn);
    List<String> items = new ArrayList<>();
    for (SqlNode item : select.getSelectList()) {
      String rewritten = over.rewritten(item, replacements);
      if (rewritten == null) {
        return null;
      }
      items.add(rewritten);
    }
    List<String> keys = new ArrayList<>();
    for (int i = 0; i < groups.size(); i++) {
      keys.add(GroupedText.key(i));
    }
    String having = null;
    if (select.getHaving() != null) {
      having = over.rewritten(select.getHaving(), replacements);
      if (having == null) {
        return null;
      }
    }
    String root =
        "SELECT "
            + (select.isDistinct() ? "DISTINCT " : "")
            + String.join(", ", items)
            + " FROM "
            + IvmNames.qualified(IvmNames.SCHEMA, name)
            + (keys.isEmpty() ? "" : " GROUP BY " + String.join(", ", keys))
            + (having == null ? "" : " HAVING " + having);
    return new IntermediateStates.Split(
        root, ImmutableList.of(new IntermediateStates.Node(name, node)));
  }

  /**
   * The value that the DISTINCT aggregate {@code call} takes, as the hidden view's query computes
   * it.
   */
  private String distinctValue(AggregateCall call) throws UnsupportedViewException {
    if (!DISTINCT_FUNCTIONS.contains(call.function()) || call.call().operandCount() != 1) {
      throw refused("aggregate " + call.function() + "(DISTINCT ...)");
    }
    QueryText.Range argument = text.range(call.call().operand(0));
    QueryText.Range filter = call.filter() == null ? null : text.range(call.filter());
    if (argument == null || (call.filter() != null && filter == null)) {
      throw refused("aggregate " + call.function() + "(DISTINCT ...) written this way");
    }
    return filter == null
        ? text.text(argument)
        : "CASE WHEN " + text.text(filter) + " THEN " + text.text(argument) + " END";
  }

  /**
   * Every aggregate call as written, with the value it takes if it is a DISTINCT aggregate (null
   * otherwise), in the order of the query.
   */
  private Map<SqlNode, @Nullable String> distinctValueOf(Map<AggregateCall, String> values) {
    Map<SqlNode, @Nullable String> written = new LinkedHashMap<>();
    for (AggregateCall call : calls) {
      written.put(call.written(), values.get(call));
    }
    return written;
  }

  /**
   * What the view computes for the non-DISTINCT aggregate {@code call} from the per-value partials
   * it adds to {@code partials}; null if the parser's positions do not cover its text.
   */
  private @Nullable String partial(AggregateCall call, List<String> partials)
      throws UnsupportedViewException {
    QueryText.Range written = text.range(call.written());
    if (written == null) {
      return null;
    }
    String function = call.function();
    switch (function) {
      case "COUNT", "SUM", "MIN", "MAX" -> {
        partials.add(text.text(written));
        String column = IvmNames.quote(PARTIAL + partials.size());
        // a COUNT over no rows is 0, where the SUM of no partials is NULL
        return function.equals("COUNT")
            ? "COALESCE(SUM(" + column + "), 0)"
            : function + "(" + column + ")";
      }
      case "AVG" -> {
        QueryText.Range argument = text.range(call.call().operand(0));
        QueryText.Range filter = call.filter() == null ? null : text.range(call.filter());
        if (argument == null || (call.filter() != null && filter == null)) {
          return null;
        }
        String filtered = filter == null ? "" : " FILTER (WHERE " + text.text(filter) + ")";
        partials.add("SUM(" + text.text(argument) + ")" + filtered);
        String sum = IvmNames.quote(PARTIAL + partials.size());
        partials.add("COUNT(" + text.text(argument) + ")" + filtered);
        String count = IvmNames.quote(PARTIAL + partials.size());
        return "CAST(SUM(" + sum + ") AS DOUBLE) / NULLIF(SUM(" + count + "), 0)";
      }
      default -> throw refused("aggregate " + function + " beside DISTINCT aggregates");
    }
  }

  /**
   * A column that the hidden view does not keep, in {@code function}: an aggregate it does not
   * know.
   */
  private UnsupportedViewException ungroupedColumn(SqlCall function) {
    return refused(
        function.getOperator().getName().toUpperCase(Locale.ROOT)
            + " of a value that is not a GROUP BY expression, beside DISTINCT aggregates");
  }

  private UnsupportedViewException refused(String construct) {
    return UnsupportedViewException.notYet(
        viewName,
        construct,
        "COUNT, SUM, AVG, MIN and MAX may take DISTINCT values; beside those of one value, other"
            + " aggregates may be COUNT, SUM, AVG, MIN and MAX");
  }
}
