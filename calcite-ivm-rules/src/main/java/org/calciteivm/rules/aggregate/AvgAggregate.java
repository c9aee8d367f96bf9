package org.calciteivm.rules.aggregate;

import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * {@code AVG(x)}: the state of a {@link SumAggregate SUM} (sum and non-null count); the value is
 * the sum as a DOUBLE divided by the count, as DuckDB's AVG computes it in general (DuckDB may
 * divide a DECIMAL sum as an unscaled integer when statistics let it use a narrower state, which
 * can differ in the last bit). An average of floating-point values is NaN or an infinity as their
 * sum is ({@link SpecialValues}).
 */
final class AvgAggregate implements MaintainedAggregate {
  private final MaintainedAggregate sum;
  private final boolean countsSpecialValues;

  /** An AVG. */
  AvgAggregate() {
    this(new SumAggregate(false), false);
  }

  private AvgAggregate(MaintainedAggregate sum, boolean countsSpecialValues) {
    this.sum = sum;
    this.countsSpecialValues = countsSpecialValues;
  }

  @Override
  public MaintainedAggregate countingSpecialValues(List<RelDataType> argumentTypes) {
    return SpecialValues.sumsFloatingPoint(argumentTypes)
        ? new AvgAggregate(sum.countingSpecialValues(argumentTypes), true)
        : this;
  }

  @Override
  public List<StateColumn> stateColumns(String prefix) {
    return sum.stateColumns(prefix);
  }

  @Override
  public List<StateColumn.@Nullable Measure> measures() {
    return sum.measures();
  }

  @Override
  public List<AggCall> state(RelBuilder builder, List<RexNode> args) {
    return sum.state(builder, args);
  }

  @Override
  public List<AggCall> delta(RelBuilder builder, RexNode weight, List<RexNode> args) {
    return sum.delta(builder, weight, args);
  }

  @Override
  public RexNode value(RelBuilder builder, List<RexNode> state) {
    RexNode asDouble = builder.cast(state.get(0), SqlTypeName.DOUBLE);
    RexNode average = builder.call(SqlStdOperatorTable.DIVIDE, asDouble, state.get(1));
    return Weights.nullWhenNone(
        builder,
        state.get(1),
        countsSpecialValues
            ? SpecialValues.value(builder, state.get(2), state.get(3), state.get(4), average)
            : average);
  }

  @Override
  public boolean invertible() {
    return true;
  }
}
