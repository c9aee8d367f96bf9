package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.util.Litmus;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.UnsupportedViewException;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The text of expressions of a grouped SELECT rewritten to read a hidden view that keeps the
 * SELECT's groups as columns {@code key_1}, {@code key_2}, ... (one per GROUP BY expression, in
 * order) and some of its aggregates as columns of their own. The split of a view into such a hidden
 * view and the view over it ({@link DistinctAggregates}, {@link GroupedWindows}) writes the upper
 * view's select list with it.
 */
final class GroupedText {
  /** The prefix of the hidden view's group columns. */
  static final String KEY = "key_";

  /**
   * Refuses a column read outside the GROUP BY expressions, inside an aggregate {@code function}.
   */
  @FunctionalInterface
  interface UngroupedColumn {
    /** The refusal, or null to leave the column as it is. */
    @Nullable UnsupportedViewException refusal(SqlCall function);
  }

  /** The names DuckDB gives the columns of the query being split, asked for only when needed. */
  @FunctionalInterface
  interface ColumnNames {
    List<String> get() throws SQLException;
  }

  private final QueryText text;
  private final List<SqlNode> groups;
  private final String keyQualifier;
  private final UngroupedColumn ungrouped;

  /**
   * Rewrites expressions of a SELECT grouped by {@code groups} to read the keys of a hidden view
   * named {@code keyQualifier} (with its dot; empty if the view is the only relation read).
   */
  GroupedText(
      QueryText text, List<SqlNode> groups, String keyQualifier, UngroupedColumn ungrouped) {
    this.text = text;
    this.groups = groups;
    this.keyQualifier = keyQualifier;
    this.ungrouped = ungrouped;
  }

  /** The column of the hidden view that keeps GROUP BY expression number {@code i} (from 0). */
  static String key(int i) {
    return IvmNames.quote(KEY + (i + 1));
  }

  /**
   * The select list of {@code select} rewritten, each item without an alias named as the query
   * names it ({@code columnNames}), since its text now reads other columns; null if the parser's
   * positions do not allow it or an item is a {@code *}.
   */
  @Nullable List<String> selectList(
      SqlSelect select, Map<QueryText.Range, String> replacements, ColumnNames columnNames)
      throws SQLException {
    List<String> items = new ArrayList<>();
    List<String> names = null;
    SqlNodeList selectList = select.getSelectList();
    for (int i = 0; i < selectList.size(); i++) {
      SqlNode item = selectList.get(i);
      String rewritten = rewritten(item, replacements);
      if (rewritten == null || (item instanceof SqlIdentifier column && column.isStar())) {
        return null;
      }
      if (item.getKind() != SqlKind.AS) {
        names = names == null ? columnNames.get() : names;
        if (names.size() != selectList.size()) {
          return null;
        }
        rewritten += " AS " + IvmNames.quote(names.get(i));
      }
      items.add(rewritten);
    }
    return items;
  }

  /**
   * The text of {@code node} (a select item, HAVING, QUALIFY) over the hidden view: GROUP BY
   * expressions read as its keys, the nodes whose text {@code replacements} has as it gives; null
   * if the parser's positions do not allow it.
   */
  @Nullable String rewritten(SqlNode node, Map<QueryText.Range, String> replacements)
      throws UnsupportedViewException {
    QueryText.Range range = text.range(node);
    if (range == null) {
      return null;
    }
    Map<QueryText.Range, String> found = new LinkedHashMap<>();
    if (!replace(node, null, replacements, found)) {
      return null;
    }
    return text.replaced(range, found);
  }

  private boolean replace(
      SqlNode node,
      @Nullable SqlCall function,
      Map<QueryText.Range, String> replacements,
      Map<QueryText.Range, String> found)
      throws UnsupportedViewException {
    QueryText.Range range = text.range(node);
    if (range != null && replacements.containsKey(range)) {
      found.put(range, replacements.get(range));
      return true;
    }
    for (int i = 0; i < groups.size(); i++) {
      if (sameExpression(groups.get(i), node)) {
        if (range == null) {
          return false;
        }
        found.put(range, keyQualifier + key(i));
        return true;
      }
    }
    if (node instanceof SqlIdentifier && function != null) {
      UnsupportedViewException refusal = ungrouped.refusal(function);
      if (refusal != null) {
        throw refusal;
      }
    }
    if (!(node instanceof SqlCall call) || node instanceof SqlSelect) {
      return true;
    }
    SqlCall enclosing = call.getOperator() instanceof SqlFunction ? call : function;
    List<SqlNode> operands = call.getOperandList();
    // an alias is a name, not an expression to read from the hidden view
    int read = call.getKind() == SqlKind.AS ? 1 : operands.size();
    for (int i = 0; i < read; i++) {
      SqlNode operand = operands.get(i);
      if (operand instanceof SqlNodeList list) {
        for (SqlNode element : list) {
          if (!replace(element, enclosing, replacements, found)) {
            return false;
          }
        }
      } else if (operand != null && !replace(operand, enclosing, replacements, found)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether {@code node} is the GROUP BY expression {@code group}: the same tree, or the same
   * column named with fewer or more qualifiers ({@code region} and {@code c.region}).
   */
  static boolean sameExpression(SqlNode group, SqlNode node) {
    if (group instanceof SqlIdentifier g && node instanceof SqlIdentifier n && !n.isStar()) {
      List<String> shorter = g.names.size() <= n.names.size() ? g.names : n.names;
      List<String> longer = g.names.size() <= n.names.size() ? n.names : g.names;
      List<String> tail = longer.subList(longer.size() - shorter.size(), longer.size());
      for (int i = 0; i < shorter.size(); i++) {
        if (!shorter.get(i).equalsIgnoreCase(tail.get(i))) {
          return false;
        }
      }
      return true;
    }
    return group.equalsDeep(node, Litmus.IGNORE);
  }
}
