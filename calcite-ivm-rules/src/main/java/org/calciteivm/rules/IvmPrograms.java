package org.calciteivm.rules;

import com.google.common.collect.ImmutableList;
import org.apache.calcite.plan.RelOptRule;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.plan.hep.HepMatchOrder;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.plan.hep.HepProgramBuilder;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.rules.CoreRules;
import org.calciteivm.core.JoinStrategy;

/**
 * Named Hep programs, one per stage of the pipeline. Hep rather than Volcano: the rewrites are
 * deterministic and cost-free, and planning time must stay in milliseconds.
 */
public final class IvmPrograms {
  private IvmPrograms() {}

  /** The rules that derive a delta plan except those of joins, in no particular order. */
  private static final ImmutableList<RelOptRule> CHANGE_RULES =
      ImmutableList.of(
          IvmRules.CHANGE_FILTER_TRANSPOSE,
          IvmRules.CHANGE_PROJECT_TRANSPOSE,
          IvmRules.CHANGE_AGGREGATE_TRANSPOSE,
          IvmRules.CHANGE_DISTINCT,
          IvmRules.CHANGE_UNION_TRANSPOSE,
          IvmRules.CHANGE_ROW_EXPANSION,
          IvmRules.CHANGE_OUTER_JOIN,
          IvmRules.CHANGE_TABLE_SCAN,
          IvmRules.CHANGE_VALUES);

  /**
   * Normalizes a view's plan before it is analyzed: filters above a join become its condition or
   * move into its inputs, so that the join's condition states the keys it joins on (which the join
   * expansions read, see {@link IvmRules#CHANGE_JOIN_FOREIGN_KEY_PRUNE}) and each term reads only
   * the rows it needs; unions of unions become one ({@code (a UNION b) UNION c} one {@code UNION}
   * of three), a {@code UNION} a {@code DISTINCT} over a {@code UNION ALL}, and {@code INTERSECT}
   * and {@code EXCEPT} joins of {@code DISTINCT}s, which are maintained; grouping sets one
   * aggregate keyed by the number of the set.
   */
  public static HepProgram normalize() {
    return new HepProgramBuilder()
        .addMatchOrder(HepMatchOrder.TOP_DOWN)
        .addRuleCollection(
            ImmutableList.of(
                withoutSimplification(CoreRules.FILTER_INTO_JOIN),
                withoutSimplification(CoreRules.JOIN_CONDITION_PUSH),
                withoutSimplification(CoreRules.UNION_MERGE),
                withoutSimplification(CoreRules.UNION_TO_DISTINCT),
                IvmRules.DISTINCT_SET_OP_TO_JOIN,
                IvmRules.GROUPING_SETS_TO_GROUP_KEY))
        .build();
  }

  /** {@code rule} with a builder that keeps expressions as written (see {@link IvmRelBuilders}). */
  private static RelOptRule withoutSimplification(RelRule<?> rule) {
    return rule.config.withRelBuilderFactory(IvmRelBuilders.FACTORY).toRule();
  }

  /** Applies {@link #normalize()} to {@code view}. */
  public static RelNode normalize(RelNode view) {
    HepPlanner planner = new HepPlanner(normalize());
    planner.setRoot(view);
    return planner.findBestExp();
  }

  /**
   * The program that derives a delta plan: given {@code ChangeOf(view)}, it pushes the marker down
   * to the scans and replaces it there by the delta relations of the base tables, expanding joins
   * by {@code strategy} ({@code INCLUSION_EXCLUSION} or {@code TELESCOPING}, not {@code AUTO}),
   * which {@link org.calciteivm.rules.delta.DeltaDerivation} runs. On each node Hep tries a
   * collection's rules in order, so foreign-key pruning comes before the expansion: where it
   * applies, it expands the join; elsewhere it does not fire and the expansion does.
   */
  public static HepProgram delta(JoinStrategy strategy) {
    return new HepProgramBuilder()
        .addMatchOrder(HepMatchOrder.TOP_DOWN)
        .addRuleCollection(
            ImmutableList.<RelOptRule>builder()
                .addAll(CHANGE_RULES)
                .add(IvmRules.CHANGE_JOIN_FOREIGN_KEY_PRUNE)
                .add(joinRule(strategy))
                .build())
        .build();
  }

  private static RelOptRule joinRule(JoinStrategy strategy) {
    switch (strategy) {
      case INCLUSION_EXCLUSION:
        return IvmRules.CHANGE_JOIN_INCLUSION_EXCLUSION;
      case TELESCOPING:
        return IvmRules.CHANGE_JOIN_TELESCOPING;
      default:
        throw new IllegalArgumentException(
            "choose a join strategy before deriving: " + strategy + " is resolved per refresh");
    }
  }
}
