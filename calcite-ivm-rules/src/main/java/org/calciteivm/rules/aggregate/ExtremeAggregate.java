package org.calciteivm.rules.aggregate;

import java.util.List;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;
import org.calciteivm.core.IvmNames;

/**
 * {@code MIN(x)} and {@code MAX(x)}: the state is the extreme itself. It is not invertible, but a
 * delete loses it only when it deletes the extreme.
 *
 * <p>The change of a group carries the extreme of its rows of positive weight ({@code _min}) and
 * the extreme of its rows of negative weight ({@code _min_deleted}). Identity: if no row of
 * negative weight has a value at or beyond the stored extreme {@code m} (for MIN: every deleted
 * value is greater than {@code m}), the net count of every value at or beyond {@code m} did not
 * decrease, so {@code m} is still there and {@code MIN(R + ΔR) = LEAST(m, MIN of the rows of
 * positive weight)}: a row of positive weight beyond {@code m} cannot be cancelled by one of
 * negative weight (there is none there), so it is a row of the new state. Otherwise the group is
 * recomputed. Insert-only changes have no rows of negative weight that are not cancelled (a join
 * expansion may produce some) and never lose the extreme that way: folding over the rows of
 * positive weight gives it.
 */
final class ExtremeAggregate implements MaintainedAggregate {
  private final boolean min;

  /** MIN, or MAX if not {@code min}. */
  ExtremeAggregate(boolean min) {
    this.min = min;
  }

  @Override
  public List<StateColumn> stateColumns(String prefix) {
    return List.of(
        new StateColumn(stateColumn(prefix), min ? StateColumn.Kind.MIN : StateColumn.Kind.MAX));
  }

  @Override
  public List<String> deltaOnlyColumns(String prefix) {
    return List.of(stateColumn(prefix) + "_deleted");
  }

  @Override
  public List<AggCall> state(RelBuilder builder, List<RexNode> args) {
    return List.of(extreme(builder, args.get(0)));
  }

  @Override
  public List<AggCall> delta(RelBuilder builder, RexNode weight, List<RexNode> args) {
    return List.of(
        extreme(builder, Weights.onlyWhere(builder, weight, true, args.get(0))),
        extreme(builder, Weights.onlyWhere(builder, weight, false, args.get(0))));
  }

  @Override
  public String stateLost(String prefix, String stored, String change) {
    // a stored NULL extreme with a deleted value is not consistent: recompute rather than trust it
    String state = stored + "." + IvmNames.quote(stateColumn(prefix));
    String deleted = change + "." + IvmNames.quote(stateColumn(prefix) + "_deleted");
    return "("
        + deleted
        + " IS NOT NULL AND ("
        + state
        + " IS NULL OR "
        + deleted
        + (min ? " <= " : " >= ")
        + state
        + "))";
  }

  @Override
  public RexNode value(RelBuilder builder, List<RexNode> state) {
    return state.get(0);
  }

  @Override
  public boolean invertible() {
    return false;
  }

  private String stateColumn(String prefix) {
    return prefix + (min ? "_min" : "_max");
  }

  private AggCall extreme(RelBuilder builder, RexNode x) {
    return min ? builder.min(x) : builder.max(x);
  }
}
