package org.calciteivm.rules.aggregate;

import java.util.List;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * {@code COUNT(*)} and {@code COUNT(x, ...)}: the state is the count itself; a row's weight counts
 * where all arguments are non-null: {@code ΔCOUNT(x) = SUM(CASE WHEN x IS NOT NULL THEN w ELSE 0
 * END)}.
 */
final class CountAggregate implements MaintainedAggregate {
  @Override
  public List<StateColumn> stateColumns(String prefix) {
    return List.of(new StateColumn(prefix + "_count", StateColumn.Kind.COUNT));
  }

  @Override
  public List<StateColumn.@Nullable Measure> measures() {
    return List.of(StateColumn.Measure.COUNT);
  }

  @Override
  public List<AggCall> state(RelBuilder builder, List<RexNode> args) {
    return List.of(builder.count(false, null, args));
  }

  @Override
  public List<AggCall> delta(RelBuilder builder, RexNode weight, List<RexNode> args) {
    return List.of(builder.sum(Weights.ifNotNull(builder, weight, args)));
  }

  @Override
  public RexNode value(RelBuilder builder, List<RexNode> state) {
    return state.get(0);
  }

  @Override
  public boolean invertible() {
    return true;
  }
}
