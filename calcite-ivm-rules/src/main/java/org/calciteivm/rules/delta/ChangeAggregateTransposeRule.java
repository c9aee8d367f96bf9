package org.calciteivm.rules.delta;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.rules.TransformationRule;
import org.calciteivm.rules.IvmRelBuilders;
import org.calciteivm.rules.aggregate.AggregateState;
import org.immutables.value.Value;

/**
 * Replaces the delta of an aggregate by the change of its per-group state.
 *
 * <p>Identity: {@code state(γ_{K; f}(R + ΔR)) = state(γ_{K; f}(R)) + γ_{K; Δf}(ΔR)}, where the
 * state of a group is its row count and, per aggregate, the sums and non-null counts of {@link
 * AggregateState}: each is a sum over the group's rows, so the weights fold into it ({@code
 * COUNT(*) → SUM(w)}, {@code SUM(x) → SUM(w * x)}). NULL keys group together on both sides, and a
 * NULL argument contributes to neither a sum nor a non-null count. The result is not a Z-set of the
 * view's rows but one row per touched group with the change of its state; the merge adds it to the
 * stored state. MIN and MAX are folded only when every weight is positive (the caller's strategy
 * decides).
 */
@Value.Enclosing
public class ChangeAggregateTransposeRule extends RelRule<ChangeAggregateTransposeRule.Config>
    implements TransformationRule {

  /** Creates the rule from its configuration. */
  protected ChangeAggregateTransposeRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Aggregate aggregate = call.rel(1);
    DeltaContext context = DeltaContext.of(call);
    RelNode input = aggregate.getInput();
    // counts of extremes are exact when the change may delete (bounds otherwise: one pass)
    boolean deletes =
        JoinTerms.negativeWeightsPossible(input, context)
            || JoinTerms.scannedTables(input).stream()
                .anyMatch(t -> context.hasDelta().test(t) && !context.insertOnly().test(t));
    call.transformTo(
        AggregateState.of(aggregate)
            .deltaStateAggregate(call.builder(), ChangeOf.create(input), deletes));
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches the change of an aggregate view's state, directly above its aggregate. */
    Config DEFAULT =
        ImmutableChangeAggregateTransposeRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(
                b0 ->
                    b0.operand(ChangeOf.class)
                        .predicate(ChangeOf::ofState)
                        .oneInput(b1 -> b1.operand(Aggregate.class).anyInputs()));

    @Override
    default ChangeAggregateTransposeRule toRule() {
      return new ChangeAggregateTransposeRule(this);
    }
  }
}
