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
 * Expands the delta of an inner join by telescoping.
 *
 * <p>Identity: {@code Δ(R ⋈ S) = ΔR ⋈ S + R' ⋈ ΔS}, where {@code R' = R + ΔR} is the current state
 * of the left input and {@code S = S' - ΔS} the previous state of the right one (expand {@code (R +
 * ΔR) ⋈ S' - R ⋈ S} with {@code S' = S + ΔS}). Applied to a tree of joins it gives, for n inputs,
 * one term per changed input i: the current states of the inputs before i, the delta of input i and
 * the previous states of the inputs after it; no cross terms. The previous state is rebuilt from
 * the current one and the delta ({@link ZSetJoins#previous}); an input without a change in this
 * refresh ({@link DeltaContext}) is its own previous state, and its term is left out. Where a
 * declared foreign key proves a term empty, {@link ChangeJoinForeignKeyPruneRule}, ahead of this
 * rule in the program, expands the join instead.
 */
@Value.Enclosing
public class ChangeJoinTelescopingRule extends RelRule<ChangeJoinTelescopingRule.Config>
    implements TransformationRule {

  /** Creates the rule from its configuration. */
  protected ChangeJoinTelescopingRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    ZSetJoins.expand(call, ChangeJoinTelescopingRule::terms);
  }

  private static List<RelNode> terms(
      RelBuilder builder, Join join, boolean leftChanges, boolean rightChanges) {
    List<RelNode> terms = new ArrayList<>();
    if (leftChanges) {
      Side previousRight =
          rightChanges
              ? ZSetJoins.previous(builder, join.getRight())
              : Side.current(join.getRight());
      terms.add(ZSetJoins.term(builder, join, Side.delta(join.getLeft()), previousRight, false));
    }
    if (rightChanges) {
      terms.add(
          ZSetJoins.term(
              builder, join, Side.current(join.getLeft()), Side.delta(join.getRight()), false));
    }
    return terms;
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches a delta directly above an inner join. */
    Config DEFAULT =
        ImmutableChangeJoinTelescopingRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(ZSetJoins.deltaOfInnerJoin());

    @Override
    default ChangeJoinTelescopingRule toRule() {
      return new ChangeJoinTelescopingRule(this);
    }
  }
}
