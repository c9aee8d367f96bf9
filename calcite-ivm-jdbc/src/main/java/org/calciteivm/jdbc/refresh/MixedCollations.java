package org.calciteivm.jdbc.refresh;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.SetOp;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rel.metadata.RelColumnOrigin;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexVisitorImpl;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.UnsupportedViewException;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Refuses a view that compares text of different collations where its maintenance would keep apart
 * values that the comparison holds equal.
 *
 * <p>DuckDB compares a column with a collation ({@code VARCHAR COLLATE NOCASE}) and one without
 * under the collation: {@code 'a' = 'A'}. The delta rules keep the rows of the inputs of an outer
 * join, a semi- or anti-join (what {@code IN} and {@code EXISTS} become), a join over an aggregate
 * and a set operation apart by each input's own values ({@code DISTINCT} keys, counts per join key,
 * rows per branch), where {@code 'a'} and {@code 'A'} of the column without the collation are two:
 * one row of the other side then matches each, and the view gets a row twice or loses one. Only an
 * inner join of rows compares in DuckDB alone, and stays allowed.
 *
 * <p>DuckDB describes no column's collation, so each text column a comparison reads is probed: a
 * few strings typed as the column are compared pairwise ({@code 'a'} with {@code 'A'}, {@code 'e'}
 * with {@code 'é'}), and two columns whose answers differ have different collations. Done only when
 * some table or view of the database declares a collation, at CREATE.
 */
final class MixedCollations {
  private MixedCollations() {}

  /**
   * Strings whose pairwise comparisons tell the collations DuckDB has apart: case ({@code NOCASE}),
   * accents ({@code NOACCENT}) and Unicode normalization ({@code NFC}: é composed and decomposed).
   */
  private static final List<String> PROBES = List.of("a", "A", "é", "e", "e\u0301");

  /**
   * Refuses {@code plan}, the plan of view {@code viewName}, if it compares columns of different
   * collations in a join that keeps its inputs apart ({@link #keepsInputsApart}), in a set
   * operation other than {@code UNION ALL}, or as one group key.
   *
   * @throws UnsupportedViewException naming the two columns
   */
  static void refuse(Connection connection, String viewName, RelNode plan) throws SQLException {
    if (!anyCollationDeclared(connection)) {
      return;
    }
    String refused = refusedIn(plan, new Probe(connection, plan.getCluster().getMetadataQuery()));
    if (refused != null) {
      throw UnsupportedViewException.notYet(
          viewName, refused, "declare the same collation on both columns, e.g. COLLATE NOCASE");
    }
  }

  /** The first construct of {@code node} or its inputs, top down, to refuse; null if none. */
  private static @Nullable String refusedIn(RelNode node, Probe probe) throws SQLException {
    String refused = refusedAt(node, probe);
    for (int i = 0; refused == null && i < node.getInputs().size(); i++) {
      refused = refusedIn(node.getInput(i), probe);
    }
    return refused;
  }

  /** The construct {@code node} itself is, if it compares columns of different collations. */
  private static @Nullable String refusedAt(RelNode node, Probe probe) throws SQLException {
    if (node instanceof Join join && keepsInputsApart(join)) {
      String mixed = probe.mixedInCondition(join);
      return mixed == null
          ? null
          : "comparing "
              + mixed
              + ", whose collations differ, in an outer join, an IN or EXISTS subquery, a SEMI,"
              + " ANTI or ASOF join, INTERSECT or EXCEPT, or a join with an aggregating subquery";
    }
    if (node instanceof SetOp setOp && !(setOp instanceof Union && setOp.all)) {
      String mixed = probe.mixedInColumns(setOp);
      return mixed == null
          ? null
          : (setOp.kind == SqlKind.MINUS ? "EXCEPT" : setOp.kind.sql)
              + " of "
              + mixed
              + ", whose collations differ";
    }
    if (node instanceof Aggregate aggregate) {
      String mixed = probe.mixedInGroupKeys(aggregate);
      return mixed == null
          ? null
          : "grouping "
              + mixed
              + ", whose collations differ, as one column (UNION, or DISTINCT or GROUP BY over"
              + " UNION ALL)";
    }
    return null;
  }

  /**
   * Whether the delta rules keep the rows of {@code join}'s inputs apart by their join keys: every
   * join but an inner one of plain rows (an inner join reading an aggregate, a window, a hidden
   * view, or the {@code DISTINCT} rows an {@code IN} or {@code EXISTS} subquery became).
   */
  private static boolean keepsInputsApart(Join join) {
    return join.getJoinType() != JoinRelType.INNER || readsKeptState(join);
  }

  /** Whether {@code node} or an input of it aggregates, computes windows or reads a hidden view. */
  private static boolean readsKeptState(RelNode node) {
    return node instanceof Aggregate
        || node instanceof Window
        || readsHiddenView(node)
        || node.getInputs().stream().anyMatch(MixedCollations::readsKeptState);
  }

  /**
   * Whether {@code node} reads a hidden view: a subquery of the view kept apart, which groups or
   * partitions by the columns the join compares (an aggregate, the window of an {@code ASOF} join).
   */
  private static boolean readsHiddenView(RelNode node) {
    if (!(node instanceof TableScan scan)) {
      return false;
    }
    List<String> name = scan.getTable().getQualifiedName();
    return name.size() >= 2 && name.get(name.size() - 2).equals(IvmNames.SCHEMA);
  }

  /** Whether any table or view of the database declares a collation. */
  private static boolean anyCollationDeclared(Connection connection) throws SQLException {
    try (PreparedStatement s =
            connection.prepareStatement(
                "SELECT count(*) FROM (SELECT sql FROM duckdb_tables() UNION ALL SELECT sql FROM"
                    + " duckdb_views() WHERE NOT internal) WHERE sql ILIKE '%COLLATE%'");
        ResultSet rs = s.executeQuery()) {
      rs.next();
      return rs.getLong(1) > 0;
    }
  }

  /** The collations of the columns a plan compares, probed once per column. */
  private static final class Probe {
    private final Connection connection;
    private final RelMetadataQuery metadata;
    private final Map<String, String> answers = new HashMap<>();

    Probe(Connection connection, RelMetadataQuery metadata) {
      this.connection = connection;
      this.metadata = metadata;
    }

    /**
     * The two columns, as {@code table.column and table.column}, of a comparison in {@code join}'s
     * condition between columns of different collations; null if none.
     */
    @Nullable String mixedInCondition(Join join) throws SQLException {
      List<RexCall> comparisons = new ArrayList<>();
      join.getCondition()
          .accept(
              new RexVisitorImpl<Void>(true) {
                @Override
                public Void visitCall(RexCall call) {
                  if (compares(call)) {
                    comparisons.add(call);
                  }
                  return super.visitCall(call);
                }
              });
      for (RexCall comparison : comparisons) {
        List<RexNode> operands = comparison.getOperands();
        String mixed = mixed(join, operands.get(0), join, operands.get(1));
        if (mixed != null) {
          return mixed;
        }
      }
      return null;
    }

    /**
     * The two columns of different collations that {@code setOp} puts in one column, from its first
     * input and another; null if none.
     */
    @Nullable String mixedInColumns(SetOp setOp) throws SQLException {
      RelNode first = setOp.getInput(0);
      for (RelNode other : setOp.getInputs().subList(1, setOp.getInputs().size())) {
        for (int i = 0; i < setOp.getRowType().getFieldCount(); i++) {
          String mixed =
              mixed(
                  first,
                  RexInputRef.of(i, first.getRowType()),
                  other,
                  RexInputRef.of(i, other.getRowType()));
          if (mixed != null) {
            return mixed;
          }
        }
      }
      return null;
    }

    /**
     * Two columns of different collations that one group key of {@code aggregate} reads (the
     * branches of a {@code UNION}, which Calcite writes as {@code DISTINCT} over {@code UNION
     * ALL}); null if none.
     */
    @Nullable String mixedInGroupKeys(Aggregate aggregate) throws SQLException {
      RelNode input = aggregate.getInput();
      for (int key : aggregate.getGroupSet()) {
        Map<String, String> columns = collations(input, RexInputRef.of(key, input.getRowType()));
        for (Map.Entry<String, String> one : columns.entrySet()) {
          for (Map.Entry<String, String> other : columns.entrySet()) {
            if (!one.getValue().equals(other.getValue())) {
              return one.getKey() + " and " + other.getKey();
            }
          }
        }
      }
      return null;
    }

    private static boolean compares(RexCall call) {
      return call.getOperands().size() == 2
          && (SqlKind.COMPARISON.contains(call.getKind())
              || call.getKind() == SqlKind.IS_DISTINCT_FROM
              || call.getKind() == SqlKind.IS_NOT_DISTINCT_FROM);
    }

    /**
     * The columns {@code left} (over {@code leftInput}) and {@code right} read, as {@code
     * table.column and table.column}, if they read text columns of different collations.
     */
    private @Nullable String mixed(
        RelNode leftInput, RexNode left, RelNode rightInput, RexNode right) throws SQLException {
      Map<String, String> leftColumns = collations(leftInput, left);
      Map<String, String> rightColumns = collations(rightInput, right);
      for (Map.Entry<String, String> l : leftColumns.entrySet()) {
        for (Map.Entry<String, String> r : rightColumns.entrySet()) {
          if (!l.getValue().equals(r.getValue())) {
            return l.getKey() + " and " + r.getKey();
          }
        }
      }
      return null;
    }

    /**
     * The text columns of base tables that {@code expression} over {@code input} reads, with the
     * probe's answer for each.
     */
    private Map<String, String> collations(RelNode input, RexNode expression) throws SQLException {
      Map<String, String> columns = new TreeMap<>();
      if (!SqlTypeFamily.CHARACTER.contains(expression.getType())) {
        return columns;
      }
      for (int field : RelOptUtil.InputFinder.bits(expression)) {
        Set<RelColumnOrigin> origins = metadata.getColumnOrigins(input, field);
        if (origins == null) {
          continue;
        }
        for (RelColumnOrigin origin : origins) {
          RelOptTable table = origin.getOriginTable();
          String column = table.getRowType().getFieldNames().get(origin.getOriginColumnOrdinal());
          List<String> name = table.getQualifiedName();
          String schema = name.get(name.size() - 2);
          String relation = name.get(name.size() - 1);
          if (!SqlTypeFamily.CHARACTER.contains(
              table.getRowType().getFieldList().get(origin.getOriginColumnOrdinal()).getType())) {
            continue;
          }
          String qualified = IvmNames.qualified(schema, relation);
          String key = qualified + "." + IvmNames.quote(column);
          String answer = answers.get(key);
          if (answer == null) {
            answer = probe(qualified, column);
            answers.put(key, answer);
          }
          // a hidden view keeps a subquery of the view: its name means nothing to the user
          columns.put(
              schema.equals(IvmNames.SCHEMA) ? "a subquery's " + column : relation + "." + column,
              answer);
        }
      }
      return columns;
    }

    /**
     * Which of the probe strings column {@code column} of {@code relation} holds equal, pair by
     * pair: one character per pair, {@code 1} for equal.
     */
    private String probe(String relation, String column) throws SQLException {
      StringBuilder values = new StringBuilder();
      for (int i = 0; i < PROBES.size(); i++) {
        values.append(i == 0 ? "" : ", ").append("('").append(PROBES.get(i)).append("', ");
        values.append(i + 1).append(")");
      }
      try (PreparedStatement s =
          connection.prepareStatement(
              "WITH p(x, i) AS ((SELECT "
                  + IvmNames.quote(column)
                  + ", 0 FROM "
                  + relation
                  + " LIMIT 0) UNION ALL VALUES "
                  + values
                  + ") SELECT string_agg(CASE WHEN l.x = r.x THEN '1' ELSE '0' END, ''"
                  + " ORDER BY l.i, r.i) FROM p AS l, p AS r WHERE l.i < r.i")) {
        try (ResultSet rs = s.executeQuery()) {
          rs.next();
          return rs.getString(1);
        }
      }
    }
  }
}
