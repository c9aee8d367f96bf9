package org.calciteivm.rules.delta;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.rules.TransformationRule;
import org.calciteivm.rules.IvmRelBuilders;
import org.immutables.value.Value;

/**
 * Replaces the change of a constant relation by the empty change.
 *
 * <p>Identity: {@code Δ VALUES(...) = ∅}: rows written as literals never change. Calcite writes a
 * filter that can never hold (a subquery's {@code v <= 0 AND v > 4}, simplified while
 * decorrelating) as an empty {@code VALUES}, and a {@code SELECT} without {@code FROM} (the empty
 * grouping set's row of a {@code ROLLUP} without aggregates) as a one-row {@code VALUES}.
 */
@Value.Enclosing
public class ChangeValuesRule extends RelRule<ChangeValuesRule.Config>
    implements TransformationRule {

  /** Creates the rule from its configuration. */
  protected ChangeValuesRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    ChangeOf change = call.rel(0);
    call.transformTo(call.builder().values(change.getRowType()).build());
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches a change directly above a {@code VALUES}. */
    Config DEFAULT =
        ImmutableChangeValuesRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(
                b0 ->
                    b0.operand(ChangeOf.class).oneInput(b1 -> b1.operand(Values.class).noInputs()));

    @Override
    default ChangeValuesRule toRule() {
      return new ChangeValuesRule(this);
    }
  }
}
