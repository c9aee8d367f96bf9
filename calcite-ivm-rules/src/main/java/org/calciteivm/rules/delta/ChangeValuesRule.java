package org.calciteivm.rules.delta;

import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Uncollect;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.rules.TransformationRule;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.calciteivm.rules.IvmRelBuilders;
import org.immutables.value.Value;

/**
 * Replaces the change of a constant relation by the empty change: a {@code VALUES}, or the rows of
 * a constant list ({@code unnest([1, 2])}, which reads no table).
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

  /**
   * Whether {@code rel} is a {@code VALUES}, or the {@code unnest} of lists computed from
   * constants: it reads no table, and no row of an enclosing query.
   */
  public static boolean isConstant(RelNode rel) {
    RelNode node = rel.stripped();
    if (node instanceof Values) {
      return true;
    }
    return node instanceof Uncollect
        && node.getVariablesSet().isEmpty()
        && readsOnlyConstants(node.getInput(0));
  }

  private static boolean readsOnlyConstants(RelNode rel) {
    RelNode node = rel.stripped();
    if (node instanceof Values) {
      return true;
    }
    boolean[] constant = {node instanceof Project};
    node.accept(
        new RexShuttle() {
          @Override
          public RexNode visitCall(RexCall call) {
            constant[0] &= RexUtil.isDeterministic(call);
            return super.visitCall(call);
          }

          @Override
          public RexNode visitCorrelVariable(RexCorrelVariable variable) {
            constant[0] = false;
            return variable;
          }
        });
    return constant[0] && readsOnlyConstants(node.getInput(0));
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    ChangeOf change = call.rel(0);
    call.transformTo(call.builder().values(change.getRowType()).build());
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches a change directly above a constant relation. */
    Config DEFAULT =
        ImmutableChangeValuesRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(
                b0 ->
                    b0.operand(ChangeOf.class)
                        .oneInput(
                            b1 ->
                                b1.operand(RelNode.class)
                                    .predicate(ChangeValuesRule::isConstant)
                                    .anyInputs()));

    @Override
    default ChangeValuesRule toRule() {
      return new ChangeValuesRule(this);
    }
  }
}
