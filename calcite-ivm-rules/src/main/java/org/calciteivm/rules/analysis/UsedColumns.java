package org.calciteivm.rules.analysis;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * The columns of each base table that a view's plan reads: those its result, filters, join
 * conditions and aggregates use. Only these columns of a base table's changes need to be captured;
 * a change to other columns cannot change the view.
 *
 * <p>Needs flow from the plan's root (all of whose columns are needed) down to the scans. An
 * operator it does not know passes all of its inputs' columns as needed, which is safe.
 */
public final class UsedColumns {
  private final Map<List<String>, ImmutableBitSet> used = new LinkedHashMap<>();
  private final Map<List<String>, List<String>> fieldNames = new LinkedHashMap<>();

  private UsedColumns() {}

  /** For each base table {@code plan} scans (qualified name), the names of the columns it reads. */
  public static ImmutableMap<List<String>, ImmutableSet<String>> of(RelNode plan) {
    UsedColumns columns = new UsedColumns();
    columns.visit(plan, ImmutableBitSet.range(plan.getRowType().getFieldCount()));
    ImmutableMap.Builder<List<String>, ImmutableSet<String>> result = ImmutableMap.builder();
    columns.used.forEach(
        (table, bits) -> {
          ImmutableSet.Builder<String> names = ImmutableSet.builder();
          bits.forEach(i -> names.add(columns.fieldNames.get(table).get(i)));
          result.put(table, names.build());
        });
    return result.buildOrThrow();
  }

  private void visit(RelNode rel, ImmutableBitSet needed) {
    if (rel instanceof TableScan scan) {
      List<String> table = scan.getTable().getQualifiedName();
      used.merge(table, needed, ImmutableBitSet::union);
      fieldNames.put(table, scan.getRowType().getFieldNames());
    } else if (rel instanceof Project project) {
      ImmutableBitSet.Builder bits = ImmutableBitSet.builder();
      needed.forEach(i -> bits.addAll(RelOptUtil.InputFinder.bits(project.getProjects().get(i))));
      visit(project.getInput(), bits.build());
    } else if (rel instanceof Filter filter) {
      visit(filter.getInput(), needed.union(RelOptUtil.InputFinder.bits(filter.getCondition())));
    } else if (rel instanceof Join join) {
      ImmutableBitSet all = needed.union(RelOptUtil.InputFinder.bits(join.getCondition()));
      int leftCount = join.getLeft().getRowType().getFieldCount();
      int count = join.getRowType().getFieldCount();
      visit(join.getLeft(), all.intersect(ImmutableBitSet.range(leftCount)));
      visit(
          join.getRight(),
          all.intersect(ImmutableBitSet.range(leftCount, count)).shift(-leftCount));
    } else if (rel instanceof Aggregate aggregate) {
      // every aggregate call counts, needed above or not: the stored state keeps them all
      ImmutableBitSet.Builder bits = ImmutableBitSet.builder().addAll(aggregate.getGroupSet());
      for (AggregateCall call : aggregate.getAggCallList()) {
        bits.addAll(call.getArgList());
        if (call.filterArg >= 0) {
          bits.set(call.filterArg);
        }
      }
      visit(aggregate.getInput(), bits.build());
    } else if (rel instanceof Union) {
      // a column of a union is the column at the same position of each input
      for (RelNode input : rel.getInputs()) {
        visit(input, needed);
      }
    } else {
      for (RelNode input : rel.getInputs()) {
        visit(input, ImmutableBitSet.range(input.getRowType().getFieldCount()));
      }
    }
  }
}
