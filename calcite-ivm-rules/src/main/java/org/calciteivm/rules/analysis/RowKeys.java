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
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
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
 *
 * <p>{@link #distinguishing} also takes the unique columns of scanned relations that no constraint
 * declares ({@link UniqueRowsTable}), which may hold NULLs: columns no two rows agree on, NULL
 * equal to NULL, enough to order rows without ties but not to find them by {@code =}. It also knows
 * the rows of an aggregate: one per group.
 */
public final class RowKeys {
  /** A column of one scan of the plan (a self-join scans a table twice: two scans). */
  private record Origin(int scan, int column) {}

  /** Per scan (or aggregate), the sets of its columns that identify its rows. */
  private final List<List<ImmutableBitSet>> scans = new ArrayList<>();

  private final Map<Origin, Origin> parent = new HashMap<>();

  /** Whether keys may hold NULLs ({@link #distinguishing}). */
  private final boolean nullable;

  private RowKeys(boolean nullable) {
    this.nullable = nullable;
  }

  /**
   * The output columns of {@code plan} that form a key of its rows, in order: for every scan, one
   * output column per column of one of its keys; empty if the plan has no key that this finds.
   */
  public static ImmutableList<Integer> of(RelNode plan) {
    return new RowKeys(false).find(plan);
  }

  /**
   * The output columns of {@code plan} on which no two of its rows agree, NULL taken as equal to
   * NULL, in order: a key ({@link #of}), or one that also rests on unique columns of the relations
   * it scans that may hold NULLs ({@link UniqueRowsTable}) or on the groups of an aggregate; empty
   * if this finds none. Ordering by these columns leaves no ties.
   */
  public static ImmutableList<Integer> distinguishing(RelNode plan) {
    return new RowKeys(true).find(plan);
  }

  private ImmutableList<Integer> find(RelNode plan) {
    List<@Nullable Origin> outputs = origins(plan);
    return outputs == null ? ImmutableList.of() : keyColumns(outputs);
  }

  /** Where each output column of {@code rel} comes from unchanged; null for an unknown shape. */
  private @Nullable List<@Nullable Origin> origins(RelNode rel) {
    if (rel instanceof TableScan scan) {
      return newScan(scan.getRowType().getFieldCount(), declaredKeys(scan.getTable()));
    }
    if (nullable
        && rel instanceof Aggregate aggregate
        && aggregate.getGroupType() == Aggregate.Group.SIMPLE
        && !aggregate.getGroupSet().isEmpty()) {
      // one row per group: the group columns come first in its output
      ImmutableBitSet groups = ImmutableBitSet.range(aggregate.getGroupCount());
      ImmutableBitSet reduced = withoutDependentGroups(aggregate);
      return newScan(
          aggregate.getRowType().getFieldCount(),
          reduced.equals(groups) ? List.of(groups) : List.of(reduced, groups));
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
    if (rel instanceof Sort sort && sort.fetch == null && sort.offset == null) {
      return origins(sort.getInput());
    }
    if (rel instanceof Filter filter) {
      List<@Nullable Origin> input = origins(filter.getInput());
      if (input != null) {
        equate(
            filter.getCondition(),
            input,
            filter.getInput().getRowType(),
            filter.getCluster().getRexBuilder());
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
      equate(join.getCondition(), columns, join.getRowType(), join.getCluster().getRexBuilder());
      return columns;
    }
    return null;
  }

  /**
   * The group columns of {@code aggregate} (positions in its output) less those that others
   * determine: when group columns hold a key of a scan below it, the group's other columns taken
   * unchanged from that scan have one value per value of the key ({@code GROUP BY c_custkey,
   * c_name} has one row per {@code c_custkey}).
   */
  private ImmutableBitSet withoutDependentGroups(Aggregate aggregate) {
    List<Integer> groups = aggregate.getGroupSet().asList();
    ImmutableBitSet all = ImmutableBitSet.range(groups.size());
    RowKeys input = new RowKeys(nullable);
    List<@Nullable Origin> origins = input.origins(aggregate.getInput());
    if (origins == null) {
      return all;
    }
    List<@Nullable Origin> taken = new ArrayList<>();
    for (int column : groups) {
      taken.add(origins.get(column));
    }
    // per scan, the group columns that hold one of its keys
    Map<Origin, Integer> positions = input.positions(taken);
    Map<Integer, ImmutableBitSet> keyGroups = new HashMap<>();
    for (int scan = 0; scan < input.scans.size(); scan++) {
      List<Integer> key = input.keyAmong(scan, positions);
      if (key != null) {
        keyGroups.put(scan, ImmutableBitSet.of(key));
      }
    }
    // a column taken from such a scan depends on its key; key columns are kept, so that no two
    // keys are taken as determining each other
    ImmutableBitSet keys = ImmutableBitSet.union(keyGroups.values());
    ImmutableBitSet.Builder dependent = ImmutableBitSet.builder();
    for (int group = 0; group < taken.size(); group++) {
      Origin origin = taken.get(group);
      if (origin != null && keyGroups.containsKey(origin.scan()) && !keys.get(group)) {
        dependent.set(group);
      }
    }
    return all.except(dependent.build());
  }

  /** The columns of a new scan with {@code keys}, each its own origin. */
  private List<@Nullable Origin> newScan(int columnCount, List<ImmutableBitSet> keys) {
    int index = scans.size();
    scans.add(keys);
    List<@Nullable Origin> columns = new ArrayList<>();
    for (int i = 0; i < columnCount; i++) {
      columns.add(new Origin(index, i));
    }
    return columns;
  }

  /** The keys of {@code table}: declared, and unique columns with NULLs if those count here. */
  private List<ImmutableBitSet> declaredKeys(RelOptTable table) {
    List<ImmutableBitSet> keys = new ArrayList<>();
    List<ImmutableBitSet> declared = table.getKeys();
    if (declared != null) {
      keys.addAll(declared);
    }
    UniqueRowsTable unique = table.unwrap(UniqueRowsTable.class);
    if (nullable && unique != null) {
      keys.addAll(unique.uniqueColumns());
    }
    return keys;
  }

  /** Puts the columns that the equality conjuncts of {@code condition} equate in one class. */
  private void equate(
      RexNode condition,
      List<@Nullable Origin> columns,
      RelDataType rowType,
      RexBuilder rexBuilder) {
    for (RexNode written : RelOptUtil.conjunctions(condition)) {
      // Calcite writes IS NOT DISTINCT FROM out as a CASE or an OR of IS NULLs
      RexNode conjunct =
          written instanceof RexCall call
              ? RelOptUtil.collapseExpandedIsNotDistinctFromExpr(call, rexBuilder)
              : written;
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
    Map<Origin, Integer> positions = positions(outputs);
    TreeSet<Integer> key = new TreeSet<>();
    for (int scan = 0; scan < scans.size(); scan++) {
      List<Integer> determined = keyAmong(scan, positions);
      if (determined == null) {
        return ImmutableList.of();
      }
      key.addAll(determined);
    }
    return ImmutableList.copyOf(key);
  }

  /** The first position in {@code columns} of each class of equal columns. */
  private Map<Origin, Integer> positions(List<@Nullable Origin> columns) {
    Map<Origin, Integer> positions = new HashMap<>();
    for (int i = 0; i < columns.size(); i++) {
      Origin origin = columns.get(i);
      if (origin != null) {
        positions.putIfAbsent(find(origin), i);
      }
    }
    return positions;
  }

  /**
   * The positions ({@link #positions}) that hold the first key of {@code scan} all of whose columns
   * are among them; null if none is.
   */
  private @Nullable List<Integer> keyAmong(int scan, Map<Origin, Integer> positions) {
    for (ImmutableBitSet candidate : scans.get(scan)) {
      List<Integer> columns = new ArrayList<>();
      for (int column : candidate) {
        Integer position = positions.get(find(new Origin(scan, column)));
        if (position == null) {
          columns = null;
          break;
        }
        columns.add(position);
      }
      if (columns != null && !candidate.isEmpty()) {
        return columns;
      }
    }
    return null;
  }
}
