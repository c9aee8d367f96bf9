package org.calciteivm.rules.analysis;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.util.ImmutableBitSet;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A key of a view without aggregate: output columns whose values identify its rows, found from the
 * declared keys of the tables it scans ({@link RelOptTable#getKeys()}).
 *
 * <p>Identity: a row of scans, inner joins, filters and projections is one combination of one row
 * of each scan. If the output columns determine a key of every scan (a key column projected as it
 * is, or equal to a projected column by an equality conjunct of a join condition or filter), two
 * rows that agree on those output columns are the same combination: the view holds no duplicate,
 * and those columns are a key of it. Equalities of approximate numbers do not count ({@code 0.0 =
 * -0.0} holds between distinct values). Any other operator, or a scan of a relation without a
 * declared key, gives no key.
 */
public final class RowKeys {
  /** A column of one scan of the plan (a self-join scans a table twice: two scans). */
  private record Origin(int scan, int column) {}

  private final List<RelOptTable> scans = new ArrayList<>();
  private final Map<Origin, Origin> parent = new HashMap<>();

  private RowKeys() {}

  /**
   * The output columns of {@code plan} that form a key of its rows, in order: for every scan, one
   * output column per column of one of its keys; empty if the plan has no key that this finds.
   */
  public static ImmutableList<Integer> of(RelNode plan) {
    RowKeys keys = new RowKeys();
    List<@Nullable Origin> outputs = keys.origins(plan);
    return outputs == null ? ImmutableList.of() : keys.keyColumns(outputs);
  }

  /** Where each output column of {@code rel} comes from unchanged; null for an unknown shape. */
  private @Nullable List<@Nullable Origin> origins(RelNode rel) {
    if (rel instanceof TableScan scan) {
      int index = scans.size();
      scans.add(scan.getTable());
      List<@Nullable Origin> columns = new ArrayList<>();
      for (int i = 0; i < scan.getRowType().getFieldCount(); i++) {
        columns.add(new Origin(index, i));
      }
      return columns;
    }
    if (rel instanceof Project project) {
      List<@Nullable Origin> input = origins(project.getInput());
      if (input == null) {
        return null;
      }
      List<@Nullable Origin> columns = new ArrayList<>();
      for (RexNode expression : project.getProjects()) {
        columns.add(expression instanceof RexInputRef ref ? input.get(ref.getIndex()) : null);
      }
      return columns;
    }
    if (rel instanceof Filter filter) {
      List<@Nullable Origin> input = origins(filter.getInput());
      if (input != null) {
        equate(filter.getCondition(), input, filter.getInput().getRowType());
      }
      return input;
    }
    if (rel instanceof Join join && join.getJoinType() == JoinRelType.INNER) {
      List<@Nullable Origin> left = origins(join.getLeft());
      List<@Nullable Origin> right = origins(join.getRight());
      if (left == null || right == null) {
        return null;
      }
      List<@Nullable Origin> columns = new ArrayList<>(left);
      columns.addAll(right);
      equate(join.getCondition(), columns, join.getRowType());
      return columns;
    }
    return null;
  }

  /** Puts the columns that the equality conjuncts of {@code condition} equate in one class. */
  private void equate(RexNode condition, List<@Nullable Origin> columns, RelDataType rowType) {
    for (RexNode conjunct : RelOptUtil.conjunctions(condition)) {
      if ((conjunct.getKind() == SqlKind.EQUALS
              || conjunct.getKind() == SqlKind.IS_NOT_DISTINCT_FROM)
          && conjunct instanceof RexCall call
          && call.getOperands().get(0) instanceof RexInputRef a
          && call.getOperands().get(1) instanceof RexInputRef b
          && exact(rowType, a.getIndex())
          && exact(rowType, b.getIndex())) {
        Origin x = columns.get(a.getIndex());
        Origin y = columns.get(b.getIndex());
        if (x != null && y != null) {
          parent.put(find(x), find(y));
        }
      }
    }
  }

  private static boolean exact(RelDataType rowType, int field) {
    SqlTypeFamily family = rowType.getFieldList().get(field).getType().getSqlTypeName().getFamily();
    return family != SqlTypeFamily.APPROXIMATE_NUMERIC;
  }

  private Origin find(Origin origin) {
    Origin root = origin;
    while (parent.containsKey(root) && !parent.get(root).equals(root)) {
      root = parent.get(root);
    }
    return root;
  }

  private ImmutableList<Integer> keyColumns(List<@Nullable Origin> outputs) {
    // the first output column of each class of equal columns
    Map<Origin, Integer> projected = new HashMap<>();
    for (int i = 0; i < outputs.size(); i++) {
      Origin origin = outputs.get(i);
      if (origin != null) {
        projected.putIfAbsent(find(origin), i);
      }
    }
    TreeSet<Integer> key = new TreeSet<>();
    for (int scan = 0; scan < scans.size(); scan++) {
      List<Integer> determined = null;
      List<ImmutableBitSet> declared = scans.get(scan).getKeys();
      for (ImmutableBitSet candidate : declared == null ? List.<ImmutableBitSet>of() : declared) {
        List<Integer> columns = new ArrayList<>();
        for (int column : candidate) {
          Integer output = projected.get(find(new Origin(scan, column)));
          if (output == null) {
            columns = null;
            break;
          }
          columns.add(output);
        }
        if (columns != null && !candidate.isEmpty()) {
          determined = columns;
          break;
        }
      }
      if (determined == null) {
        return ImmutableList.of();
      }
      key.addAll(determined);
    }
    return ImmutableList.copyOf(key);
  }
}
