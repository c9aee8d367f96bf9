package org.calciteivm.rules.delta;

import org.apache.calcite.plan.Contexts;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.rules.IvmPrograms;

/** Derives the delta plan of a view: {@code Δ(view)} as a plan over base-table deltas. */
public final class DeltaDerivation {
  private DeltaDerivation() {}

  /**
   * Returns the plan of {@code Δ(view)} when every {@link ChangingTable} may have changed, joins
   * expanded by inclusion-exclusion.
   */
  public static RelNode derive(RelNode view) {
    return derive(view, JoinStrategy.INCLUSION_EXCLUSION, DeltaContext.EVERY_CHANGING_TABLE);
  }

  /**
   * Returns the plan of {@code Δ(view)}: the view's columns plus a weight column, computed from the
   * delta relations of the tables that {@code context} says have changed, joins expanded by {@code
   * joins} ({@code INCLUSION_EXCLUSION} or {@code TELESCOPING}).
   *
   * @throws IllegalStateException if some operator has no delta rule; callers analyze the view
   *     first, so this is an internal error
   */
  public static RelNode derive(RelNode view, JoinStrategy joins, DeltaContext context) {
    HepPlanner planner = new HepPlanner(IvmPrograms.delta(joins), Contexts.of(context));
    planner.setRoot(ChangeOf.create(view));
    RelNode delta = planner.findBestExp();
    delta.accept(
        new RelShuttleImpl() {
          @Override
          public RelNode visit(RelNode other) {
            if (other instanceof ChangeOf) {
              throw new IllegalStateException(
                  "no delta rule applies to " + ((ChangeOf) other).getInput().getRelTypeName());
            }
            return super.visit(other);
          }
        });
    return delta;
  }
}
