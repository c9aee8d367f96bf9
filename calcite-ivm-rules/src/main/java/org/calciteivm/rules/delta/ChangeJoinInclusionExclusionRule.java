package org.calciteivm.rules.delta;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.rules.TransformationRule;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.rules.IvmRelBuilders;
import org.calciteivm.rules.delta.ZSetJoins.Side;
import org.immutables.value.Value;

/**
 * Expands the delta of an inner join by inclusion-exclusion over the post-change states.
 *
 * <p>Identity: {@code Δ(R ⋈ S) = ΔR ⋈ S' + R' ⋈ ΔS - ΔR ⋈ ΔS}, where {@code R' = R + ΔR} and {@code
 * S' = S + ΔS} are the current states (expand {@code (R + ΔR) ⋈ (S + ΔS) - R ⋈ S} and substitute
 * {@code R = R' - ΔR}). Applied to a tree of joins it gives, for n inputs, one term per non-empty
 * subset of the changed inputs, signed {@code (-1)^(|subset|-1)}. A term that joins the delta of an
 * input without a change in this refresh ({@link DeltaContext}) is empty and left out. Where a
 * declared foreign key proves a term empty, {@link ChangeJoinForeignKeyPruneRule}, ahead of this
 * rule in the program, expands the join instead.
 *
 * <p>With two or more changed inputs the subtracted terms produce rows of negative weight even when
 * every change is an insert.
 */
@Value.Enclosing
public class ChangeJoinInclusionExclusionRule
    extends RelRule<ChangeJoinInclusionExclusionRule.Config> implements TransformationRule {

  /** Creates the rule from its configuration. */
  protected ChangeJoinInclusionExclusionRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    ZSetJoins.expand(call, ChangeJoinInclusionExclusionRule::terms);
  }

  private static List<RelNode> terms(
      RelBuilder builder, Join join, boolean leftChanges, boolean rightChanges) {
    List<RelNode> terms = new ArrayList<>();
    if (leftChanges) {
      terms.add(
          ZSetJoins.term(
              builder, join, Side.delta(join.getLeft()), Side.current(join.getRight()), false));
    }
    if (rightChanges) {
      terms.add(
          ZSetJoins.term(
              builder, join, Side.current(join.getLeft()), Side.delta(join.getRight()), false));
    }
    if (leftChanges && rightChanges) {
      terms.add(
          ZSetJoins.term(
              builder, join, Side.delta(join.getLeft()), Side.delta(join.getRight()), true));
    }
    return terms;
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches a delta directly above an inner join. */
    Config DEFAULT =
        ImmutableChangeJoinInclusionExclusionRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(ZSetJoins.deltaOfInnerJoin());

    @Override
    default ChangeJoinInclusionExclusionRule toRule() {
      return new ChangeJoinInclusionExclusionRule(this);
    }
  }
}
