package org.calciteivm.rules.api;

import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.rules.frontend.ViewSqlPlanner;

/**
 * The change of a view for one {@link Change}, as plans and as SQL.
 *
 * <p>For a view without aggregate, {@link #plan()} has the view's columns and the weight column
 * last: adding its rows (weight {@code w} = {@code w} copies, negative = removed copies) to the
 * view's previous result gives its new result. {@link #consolidated()} is the same Z-set with one
 * row per distinct tuple and no zero weights, the form to merge from.
 *
 * <p>For an aggregate view, both plans give, per group key, the change of each state column of
 * {@link MaintainedView#stateLayout()} (counts and sums): adding them to the stored state per
 * group, and removing groups whose {@code _ivm_count} reaches zero, gives the new state.
 *
 * @param joins the join expansion used ({@code AUTO} resolved)
 * @param plan the delta plan
 * @param consolidated the delta, consolidated
 * @param terms the terms of the join expansion as {@link #plan()} computes them, one line each
 *     ({@code Δt} change, {@code t} current state, {@code t⁻} previous state); empty without a join
 * @param pruned the terms left out of the plan because declared foreign keys prove them empty
 * @param negativeWeightsPossible whether the delta of a change with only inserts may still have
 *     rows of negative weight (join expansions with several changed inputs), which {@link
 *     #consolidated()} cancels
 * @param target the database {@link #sql()} is written for
 */
public record DeltaProgram(
    JoinStrategy joins,
    RelNode plan,
    RelNode consolidated,
    List<String> terms,
    List<String> pruned,
    boolean negativeWeightsPossible,
    SqlTarget target) {

  public DeltaProgram {
    terms = List.copyOf(terms);
    pruned = List.copyOf(pruned);
  }

  /** {@link #consolidated()} as SQL of the target. */
  public String sql() {
    return target.unparser().toSql(consolidated);
  }

  /** {@link #plan()} as Calcite explains it. */
  public String explain() {
    return ViewSqlPlanner.explain(plan);
  }
}
