package org.calciteivm.rules.delta;

import com.google.common.collect.ImmutableList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.calcite.plan.Contexts;
import org.apache.calcite.plan.RelOptListener;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.rules.IvmPrograms;

/**
 * The derivation of a view's delta plan: {@code Δ(view)} as a plan over base-table deltas, and the
 * join terms that declared foreign keys proved empty on the way.
 *
 * @param plan the view's columns plus a weight column (for an aggregate, the change of its state),
 *     computed from the delta relations of the changed tables
 * @param prunedTerms one line per join term {@link ChangeJoinForeignKeyPruneRule} left out, in the
 *     order the planner did
 */
public record DeltaDerivation(RelNode plan, ImmutableList<String> prunedTerms) {

  /**
   * Returns the plan of {@code Δ(view)} when every {@link ChangingTable} may have changed, joins
   * expanded by inclusion-exclusion.
   */
  public static RelNode derive(RelNode view) {
    return derive(view, JoinStrategy.INCLUSION_EXCLUSION, DeltaContext.EVERY_CHANGING_TABLE);
  }

  /** Returns the plan of {@link #of(RelNode, JoinStrategy, DeltaContext)}. */
  public static RelNode derive(RelNode view, JoinStrategy joins, DeltaContext context) {
    return of(view, joins, context).plan();
  }

  /**
   * Derives {@code Δ(view)} from the delta relations of the tables that {@code context} says have
   * changed, joins expanded by {@code joins} ({@code INCLUSION_EXCLUSION} or {@code TELESCOPING}).
   *
   * @throws IllegalStateException if some operator has no delta rule; callers analyze the view
   *     first, so this is an internal error
   */
  public static DeltaDerivation of(RelNode view, JoinStrategy joins, DeltaContext context) {
    HepPlanner planner = new HepPlanner(IvmPrograms.delta(joins), Contexts.of(context));
    PrunedTerms pruned = new PrunedTerms(context);
    planner.addListener(pruned);
    planner.setRoot(
        view instanceof Aggregate aggregate ? ChangeOf.ofState(aggregate) : ChangeOf.create(view));
    RelNode delta = planner.findBestExp();
    requireNoChangeLeft(delta, Collections.newSetFromMap(new IdentityHashMap<>()));
    return new DeltaDerivation(delta, ImmutableList.copyOf(pruned.terms));
  }

  /**
   * Fails if a {@link ChangeOf} is left in {@code rel}; each node is looked at once, however many
   * terms read it (the plan is a graph: a chain of outer joins reads each input's change in several
   * terms, and walked as a tree it is exponentially larger).
   */
  private static void requireNoChangeLeft(RelNode rel, Set<RelNode> seen) {
    if (!seen.add(rel)) {
      return;
    }
    if (rel instanceof ChangeOf change) {
      throw new IllegalStateException(
          "no delta rule applies to " + change.getInput().getRelTypeName());
    }
    for (RelNode input : rel.getInputs()) {
      requireNoChangeLeft(input, seen);
    }
  }

  /**
   * Records the term each firing of {@link ChangeJoinForeignKeyPruneRule} left out: the rule itself
   * only transforms, as rules should, so its effect is read from the planner's events.
   */
  private static final class PrunedTerms implements RelOptListener {
    private final DeltaContext context;
    private final Set<String> terms = new LinkedHashSet<>();

    PrunedTerms(DeltaContext context) {
      this.context = context;
    }

    @Override
    public void ruleProductionSucceeded(RuleProductionEvent event) {
      RelOptRuleCall call = event.getRuleCall();
      if (!event.isBefore()
          && call != null
          && call.getRule() instanceof ChangeJoinForeignKeyPruneRule) {
        terms.add(
            ChangeJoinForeignKeyPruneRule.prunedTerm(call.rel(1), context)
                .orElseThrow(() -> new IllegalStateException("pruned without a key")));
      }
    }

    @Override
    public void relEquivalenceFound(RelEquivalenceEvent event) {}

    @Override
    public void ruleAttempted(RuleAttemptedEvent event) {}

    @Override
    public void relDiscarded(RelDiscardedEvent event) {}

    @Override
    public void relChosen(RelChosenEvent event) {}
  }
}
