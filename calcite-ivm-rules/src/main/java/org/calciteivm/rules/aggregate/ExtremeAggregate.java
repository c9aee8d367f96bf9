package org.calciteivm.rules.aggregate;

import java.util.List;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;

/**
 * {@code MIN(x)} and {@code MAX(x)}: the state is the extreme itself. It is not invertible: with
 * insert-only changes {@code MIN(R + ΔR) = LEAST(MIN(R), MIN(ΔR))} (and GREATEST for MAX); a change
 * that deletes makes the groups it touches be recomputed.
 */
final class ExtremeAggregate implements MaintainedAggregate {
  private final boolean min;

  /** MIN, or MAX if not {@code min}. */
  ExtremeAggregate(boolean min) {
    this.min = min;
  }

  @Override
  public List<StateColumn> stateColumns(String prefix) {
    return min
        ? List.of(new StateColumn(prefix + "_min", StateColumn.Kind.MIN))
        : List.of(new StateColumn(prefix + "_max", StateColumn.Kind.MAX));
  }

  @Override
  public List<AggCall> state(RelBuilder builder, List<RexNode> args) {
    return List.of(min ? builder.min(args.get(0)) : builder.max(args.get(0)));
  }

  @Override
  public List<AggCall> delta(RelBuilder builder, RexNode weight, List<RexNode> args) {
    // only read when every weight is positive: the extreme of the new rows
    return state(builder, args);
  }

  @Override
  public RexNode value(RelBuilder builder, List<RexNode> state) {
    return state.get(0);
  }

  @Override
  public boolean invertible() {
    return false;
  }
}
