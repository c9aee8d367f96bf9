package org.calciteivm.rules.aggregate;

import com.google.common.collect.ImmutableList;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * {@code SUM(x)}: the state is the sum and the count of non-null values, so that a sum over only
 * NULLs stays NULL ({@code ΔSUM(x) = SUM(w * x)}, and the count as for {@link CountAggregate}).
 * Calcite's {@code $SUM0} (a sum that is 0 over no rows, which it makes of {@code COUNT}-like
 * expansions) keeps the same state and reads a missing sum as 0. A sum of floating-point values
 * sums only the finite ones and counts its NaNs and infinities apart ({@link SpecialValues}).
 */
final class SumAggregate implements MaintainedAggregate {
  private final boolean zeroWhenEmpty;
  private final boolean countsSpecialValues;

  /** A SUM, or with {@code zeroWhenEmpty} Calcite's {@code $SUM0}. */
  SumAggregate(boolean zeroWhenEmpty) {
    this(zeroWhenEmpty, false);
  }

  private SumAggregate(boolean zeroWhenEmpty, boolean countsSpecialValues) {
    this.zeroWhenEmpty = zeroWhenEmpty;
    this.countsSpecialValues = countsSpecialValues;
  }

  @Override
  public MaintainedAggregate countingSpecialValues(List<RelDataType> argumentTypes) {
    return SpecialValues.sumsFloatingPoint(argumentTypes)
        ? new SumAggregate(zeroWhenEmpty, true)
        : this;
  }

  @Override
  public List<StateColumn> stateColumns(String prefix) {
    List<StateColumn> columns =
        List.of(
            new StateColumn(prefix + "_sum", StateColumn.Kind.SUM),
            new StateColumn(prefix + "_count", StateColumn.Kind.COUNT));
    return countsSpecialValues
        ? ImmutableList.<StateColumn>builder()
            .addAll(columns)
            .addAll(SpecialValues.stateColumns(prefix))
            .build()
        : columns;
  }

  @Override
  public List<StateColumn.@Nullable Measure> measures() {
    List<StateColumn.Measure> measures =
        List.of(StateColumn.Measure.SUM, StateColumn.Measure.COUNT);
    return countsSpecialValues
        ? ImmutableList.<StateColumn.Measure>builder()
            .addAll(measures)
            .addAll(SpecialValues.measures())
            .build()
        : measures;
  }

  @Override
  public List<AggCall> state(RelBuilder builder, List<RexNode> args) {
    RexNode x = args.get(0);
    List<AggCall> calls =
        List.of(
            builder.sum(countsSpecialValues ? SpecialValues.finite(builder, x) : x),
            builder.count(false, null, args));
    return countsSpecialValues
        ? ImmutableList.<AggCall>builder()
            .addAll(calls)
            .addAll(SpecialValues.state(builder, x))
            .build()
        : calls;
  }

  @Override
  public List<AggCall> delta(RelBuilder builder, RexNode weight, List<RexNode> args) {
    RexNode x = args.get(0);
    List<AggCall> calls =
        List.of(
            builder.sum(
                Weights.weighted(
                    builder, weight, countsSpecialValues ? SpecialValues.finite(builder, x) : x)),
            builder.sum(Weights.ifNotNull(builder, weight, args)));
    return countsSpecialValues
        ? ImmutableList.<AggCall>builder()
            .addAll(calls)
            .addAll(SpecialValues.delta(builder, weight, x))
            .build()
        : calls;
  }

  @Override
  public RexNode value(RelBuilder builder, List<RexNode> state) {
    RexNode sum =
        countsSpecialValues
            ? SpecialValues.value(builder, state.get(2), state.get(3), state.get(4), state.get(0))
            : state.get(0);
    return zeroWhenEmpty
        ? builder.call(SqlStdOperatorTable.COALESCE, sum, builder.literal(0))
        : Weights.nullWhenNone(builder, state.get(1), sum);
  }

  @Override
  public boolean invertible() {
    return true;
  }
}
