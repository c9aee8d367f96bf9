package org.calciteivm.rules.delta;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.rules.TransformationRule;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.rules.IvmRelBuilders;
import org.immutables.value.Value;

/**
 * Pushes a {@link ChangeOf} through a {@link Union} {@code ALL}.
 *
 * <p>Identity: {@code Δ(R ∪all S) = ΔR ∪all ΔS}. A bag union adds its inputs' multiplicities, so it
 * is linear: the change of the sum is the sum of the changes, a Z-set row of either input standing
 * for the same copies in the union. Each input's change has its columns at the union's positions
 * and the weight last. {@code UNION} without {@code ALL} reaches this rule as a {@code DISTINCT}
 * over a union all (see {@link org.calciteivm.rules.IvmPrograms#normalize()}).
 */
@Value.Enclosing
public class ChangeUnionTransposeRule extends RelRule<ChangeUnionTransposeRule.Config>
    implements TransformationRule {

  /** Creates the rule from its configuration. */
  protected ChangeUnionTransposeRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Union union = call.rel(1);
    RelBuilder builder = call.builder();
    for (RelNode input : union.getInputs()) {
      builder.push(ChangeOf.create(input));
    }
    call.transformTo(builder.union(true, union.getInputs().size()).build());
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches a delta directly above a union of bags. */
    Config DEFAULT =
        ImmutableChangeUnionTransposeRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(
                b0 ->
                    b0.operand(ChangeOf.class)
                        .oneInput(b1 -> b1.operand(Union.class).predicate(u -> u.all).anyInputs()));

    @Override
    default ChangeUnionTransposeRule toRule() {
      return new ChangeUnionTransposeRule(this);
    }
  }
}
