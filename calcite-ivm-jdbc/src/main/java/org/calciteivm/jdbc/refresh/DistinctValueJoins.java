package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableList;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.calciteivm.core.IvmNames;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Splits an aggregate view whose DISTINCT aggregates take several different values into one hidden
 * view per value and the view that joins them on the group keys.
 *
 * <p>For {@code SELECT k, COUNT(DISTINCT x), COUNT(DISTINCT y), SUM(z) FROM r WHERE p GROUP BY k
 * HAVING h}, the hidden views are {@code SELECT k AS key_1, SUM(z) AS aggregate_3 FROM r WHERE p
 * GROUP BY k} (the aggregates of no DISTINCT value, if there are any), {@code SELECT k AS key_1,
 * COUNT(DISTINCT x) AS aggregate_1 ... GROUP BY k} and the same for {@code y}; the view is {@code
 * SELECT n1.key_1, n2.aggregate_1, n3.aggregate_2, n1.aggregate_3 FROM node_1 n1 JOIN node_2 n2 ON
 * n1.key_1 IS NOT DISTINCT FROM n2.key_1 JOIN node_3 n3 ON ... WHERE h'}. The identity: the
 * aggregates of a group are computed independently of each other, and every hidden view groups the
 * same rows by the same keys, so each has exactly one row per group of the query (one row in all
 * without GROUP BY), and the join on the keys (NULL matching NULL) puts a group's aggregates back
 * in one row. HAVING filters the joined rows.
 *
 * <p>Each hidden view has DISTINCT aggregates of one value, and is split in turn when it is created
 * ({@link DistinctAggregates}); the view over them is a join of aggregate views, which reads each
 * one's change.
 */
final class DistinctValueJoins {
  private static final String AGGREGATE = "aggregate_";

  private DistinctValueJoins() {}

  /**
   * The split of {@code select}, grouped by {@code groups}, whose aggregate calls as written are
   * {@code aggregates}, each with the value it takes if it is a DISTINCT aggregate (null
   * otherwise); null if the parser's positions do not allow copying its pieces.
   */
  static IntermediateStates.@Nullable Split split(
      QueryText text,
      SqlSelect select,
      List<SqlNode> groups,
      Map<SqlNode, @Nullable String> aggregates,
      int viewId,
      GroupedText.ColumnNames columnNames)
      throws SQLException {
    // the hidden views, in order: the aggregates of no DISTINCT value, then one per value
    List<@Nullable String> nodeValues = new ArrayList<>();
    if (aggregates.containsValue(null)) {
      nodeValues.add(null);
    }
    aggregates.values().stream()
        .filter(Objects::nonNull)
        .distinct()
        .forEachOrdered(nodeValues::add);

    List<String> keyColumns = new ArrayList<>();
    List<String> groupTexts = new ArrayList<>();
    for (int i = 0; i < groups.size(); i++) {
      QueryText.Range range = text.range(groups.get(i));
      if (range == null) {
        return null;
      }
      keyColumns.add(text.text(range) + " AS " + GroupedText.key(i));
      groupTexts.add(text.text(range));
    }
    QueryText.Range from = text.fromClause(select);
    QueryText.Range where = select.getWhere() == null ? null : text.range(select.getWhere());
    if (from == null
        || (select.getWhere() != null && where == null)
        || !select.getWindowList().isEmpty()
        || select.getQualify() != null) {
      return null;
    }

    // each aggregate as written is a column of the hidden view of its value (the same text twice
    // is one column)
    List<List<String>> nodeColumns = new ArrayList<>();
    nodeValues.forEach(v -> nodeColumns.add(new ArrayList<>(keyColumns)));
    Map<String, String> columnOf = new LinkedHashMap<>();
    Map<QueryText.Range, String> replacements = new LinkedHashMap<>();
    for (Map.Entry<SqlNode, @Nullable String> aggregate : aggregates.entrySet()) {
      QueryText.Range written = text.range(aggregate.getKey());
      if (written == null) {
        return null;
      }
      int node = nodeValues.indexOf(aggregate.getValue());
      String aggregateText = text.text(written);
      String column = columnOf.get(aggregateText);
      if (column == null) {
        column = IvmNames.quote(AGGREGATE + (columnOf.size() + 1));
        columnOf.put(aggregateText, column);
        nodeColumns.get(node).add(aggregateText + " AS " + column);
      }
      replacements.put(written, alias(node) + "." + column);
    }

    ImmutableList.Builder<IntermediateStates.Node> nodes = ImmutableList.builder();
    StringBuilder joined = new StringBuilder();
    for (int n = 0; n < nodeValues.size(); n++) {
      String name = IvmNames.hiddenView(viewId, n + 1);
      nodes.add(
          new IntermediateStates.Node(
              name,
              "SELECT "
                  + String.join(", ", nodeColumns.get(n))
                  + " FROM "
                  + text.text(from)
                  + (where == null ? "" : " WHERE " + text.text(where))
                  + (groupTexts.isEmpty() ? "" : " GROUP BY " + String.join(", ", groupTexts))));
      String relation = IvmNames.qualified(IvmNames.SCHEMA, name) + " AS " + alias(n);
      if (n == 0) {
        joined.append(relation);
      } else if (groups.isEmpty()) {
        joined.append(" CROSS JOIN ").append(relation);
      } else {
        joined.append(" JOIN ").append(relation).append(" ON ").append(keysMatch(n, groups.size()));
      }
    }

    GroupedText over = new GroupedText(text, groups, alias(0) + ".", function -> null);
    List<String> items = over.selectList(select, replacements, columnNames);
    String having = null;
    if (select.getHaving() != null) {
      having = over.rewritten(select.getHaving(), replacements);
      if (having == null) {
        return null;
      }
    }
    if (items == null) {
      return null;
    }
    String root =
        "SELECT "
            + (select.isDistinct() ? "DISTINCT " : "")
            + String.join(", ", items)
            + " FROM "
            + joined
            + (having == null ? "" : " WHERE " + having);
    return new IntermediateStates.Split(root, nodes.build());
  }

  /** The alias of hidden view number {@code n} (from 0) in the view's query. */
  private static String alias(int n) {
    return IvmNames.quote("n" + (n + 1));
  }

  /** The keys of hidden view number {@code n} equal to the first's, NULL matching NULL. */
  private static String keysMatch(int n, int keys) {
    List<String> matches = new ArrayList<>();
    for (int i = 0; i < keys; i++) {
      matches.add(
          alias(0)
              + "."
              + GroupedText.key(i)
              + " IS NOT DISTINCT FROM "
              + alias(n)
              + "."
              + GroupedText.key(i));
    }
    return String.join(" AND ", matches);
  }
}
