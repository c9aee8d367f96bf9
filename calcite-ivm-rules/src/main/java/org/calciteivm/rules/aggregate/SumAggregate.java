package org.calciteivm.rules.aggregate;

import java.util.List;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * {@code SUM(x)}: the state is the sum and the count of non-null values, so that a sum over only
 * NULLs stays NULL ({@code ΔSUM(x) = SUM(w * x)}, and the count as for {@link CountAggregate}).
 * Calcite's {@code $SUM0} (a sum that is 0 over no rows, which it makes of {@code COUNT}-like
 * expansions) keeps the same state and reads a missing sum as 0.
 */
final class SumAggregate implements MaintainedAggregate {
  private final boolean zeroWhenEmpty;

  /** A SUM, or with {@code zeroWhenEmpty} Calcite's {@code $SUM0}. */
  SumAggregate(boolean zeroWhenEmpty) {
    this.zeroWhenEmpty = zeroWhenEmpty;
  }

  @Override
  public List<StateColumn> stateColumns(String prefix) {
    return List.of(
        new StateColumn(prefix + "_sum", StateColumn.Kind.SUM),
        new StateColumn(prefix + "_count", StateColumn.Kind.COUNT));
  }

  @Override
  public List<StateColumn.@Nullable Measure> measures() {
    return List.of(StateColumn.Measure.SUM, StateColumn.Measure.COUNT);
  }

  @Override
  public List<AggCall> state(RelBuilder builder, List<RexNode> args) {
    return List.of(builder.sum(args.get(0)), builder.count(false, null, args));
  }

  @Override
  public List<AggCall> delta(RelBuilder builder, RexNode weight, List<RexNode> args) {
    return List.of(
        builder.sum(Weights.weighted(builder, weight, args.get(0))),
        builder.sum(Weights.ifNotNull(builder, weight, args)));
  }

  @Override
  public RexNode value(RelBuilder builder, List<RexNode> state) {
    return zeroWhenEmpty
        ? builder.call(SqlStdOperatorTable.COALESCE, state.get(0), builder.literal(0))
        : Weights.nullWhenNone(builder, state.get(1), state.get(0));
  }

  @Override
  public boolean invertible() {
    return true;
  }
}
