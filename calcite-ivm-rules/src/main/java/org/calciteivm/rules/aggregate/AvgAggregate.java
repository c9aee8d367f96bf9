package org.calciteivm.rules.aggregate;

import java.util.List;
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
 * can differ in the last bit).
 */
final class AvgAggregate implements MaintainedAggregate {
  private final SumAggregate sum = new SumAggregate(false);

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
    return Weights.nullWhenNone(
        builder, state.get(1), builder.call(SqlStdOperatorTable.DIVIDE, asDouble, state.get(1)));
  }

  @Override
  public boolean invertible() {
    return true;
  }
}
