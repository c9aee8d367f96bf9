package org.calciteivm.rules.aggregate;

import java.util.List;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;

/**
 * An aggregate without a state smaller than its group's rows ({@code median}, {@code
 * quantile_cont}, {@code bit_xor}, ...): the state is the aggregate's value, and every group a
 * change touches, by inserts as well as by deletes, is recomputed from the aggregate's input.
 * Identity: the value of a group the change does not touch is unchanged; nothing is claimed about
 * the others.
 *
 * <p>Only aggregates whose value is a function of the bag of their input rows are maintained this
 * way ({@link MaintainedAggregates}): not one that depends on the order rows arrive in, unless the
 * call orders them ({@code string_agg(s, ',' ORDER BY s)}) so that no tie changes its value.
 */
final class RecomputedAggregate implements MaintainedAggregate {
  private final AggregateCall call;

  RecomputedAggregate(AggregateCall call) {
    this.call = call;
  }

  @Override
  public List<StateColumn> stateColumns(String prefix) {
    return List.of(new StateColumn(prefix + "_value", StateColumn.Kind.RECOMPUTED));
  }

  @Override
  public List<AggCall> state(RelBuilder builder, List<RexNode> args) {
    // approx_count_distinct is Calcite's approximate COUNT(DISTINCT)
    return List.of(
        builder
            .aggregateCall(call.getAggregation(), args)
            .distinct(call.isDistinct())
            .approximate(call.isApproximate())
            // an order-dependent aggregate's call orders its rows: the same input as args
            .sort(builder.fields(call.collation)));
  }

  /**
   * A placeholder of the change, which no merge reads: every touched group is recomputed, and a
   * view with this aggregate has no merge that folds a change in ({@link #foldsInserts}).
   */
  @Override
  public List<AggCall> delta(RelBuilder builder, RexNode weight, List<RexNode> args) {
    return List.of(builder.count());
  }

  @Override
  public String stateLost(String prefix, String stored, String change) {
    return "TRUE";
  }

  @Override
  public RexNode value(RelBuilder builder, List<RexNode> state) {
    return state.get(0);
  }

  @Override
  public boolean invertible() {
    return false;
  }

  @Override
  public boolean foldsInserts() {
    return false;
  }
}
