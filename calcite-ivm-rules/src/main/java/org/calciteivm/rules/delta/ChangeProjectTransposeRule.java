package org.calciteivm.rules.delta;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.rules.TransformationRule;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.core.ZSets;
import org.calciteivm.rules.IvmRelBuilders;
import org.immutables.value.Value;

/**
 * Pushes a {@link ChangeOf} through a {@link Project}.
 *
 * <p>Identity: {@code Δ(π_e R) = π_{e, w}(ΔR)}. A projection maps each row on its own, so the
 * projected change carries the weight of the row it came from. Two changed rows may project to the
 * same tuple (or cancel each other: +1 and -1); that is left to consolidation, which sums weights
 * per tuple. The expressions must be deterministic, which the view analysis checks before any rule
 * runs.
 */
@Value.Enclosing
public class ChangeProjectTransposeRule extends RelRule<ChangeProjectTransposeRule.Config>
    implements TransformationRule {

  /** Creates the rule from its configuration. */
  protected ChangeProjectTransposeRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Project project = call.rel(1);
    RelBuilder builder = call.builder();
    builder.push(ChangeOf.create(project.getInput()));
    List<RexNode> expressions = new ArrayList<>(project.getProjects());
    expressions.add(builder.field(ZSets.WEIGHT_COLUMN));
    List<String> names = new ArrayList<>(project.getRowType().getFieldNames());
    names.add(ZSets.WEIGHT_COLUMN);
    // force: an identity projection must stay, so that the result keeps the project's names
    builder.project(expressions, names, true);
    call.transformTo(builder.build());
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches a delta directly above any project. */
    Config DEFAULT =
        ImmutableChangeProjectTransposeRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(
                b0 ->
                    b0.operand(ChangeOf.class)
                        .oneInput(b1 -> b1.operand(Project.class).anyInputs()));

    @Override
    default ChangeProjectTransposeRule toRule() {
      return new ChangeProjectTransposeRule(this);
    }
  }
}
