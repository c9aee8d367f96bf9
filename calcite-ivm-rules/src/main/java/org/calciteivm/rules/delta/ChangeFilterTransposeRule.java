package org.calciteivm.rules.delta;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.rules.TransformationRule;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.rules.IvmRelBuilders;
import org.immutables.value.Value;

/**
 * Pushes a {@link ChangeOf} through a {@link Filter}.
 *
 * <p>Identity: {@code Δ(σ_p R) = σ_p(ΔR)}. A filter keeps or drops each row on its own, and a Z-set
 * row with weight {@code w} stands for {@code w} copies (or {@code -w} removed copies) of the same
 * tuple, so filtering the change is the change of the filtered relation. The predicate sees the
 * same columns at the same positions (the weight is appended last), and rows for which it is NULL
 * are dropped on both sides, so three-valued logic changes nothing.
 */
@Value.Enclosing
public class ChangeFilterTransposeRule extends RelRule<ChangeFilterTransposeRule.Config>
    implements TransformationRule {

  /** Creates the rule from its configuration. */
  protected ChangeFilterTransposeRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Filter filter = call.rel(1);
    RelBuilder builder = call.builder();
    builder.push(ChangeOf.create(filter.getInput())).filter(filter.getCondition());
    call.transformTo(builder.build());
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches a delta directly above any filter. */
    Config DEFAULT =
        ImmutableChangeFilterTransposeRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(
                b0 ->
                    b0.operand(ChangeOf.class)
                        .oneInput(b1 -> b1.operand(Filter.class).anyInputs()));

    @Override
    default ChangeFilterTransposeRule toRule() {
      return new ChangeFilterTransposeRule(this);
    }
  }
}
