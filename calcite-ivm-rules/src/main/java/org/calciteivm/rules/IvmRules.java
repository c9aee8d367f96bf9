package org.calciteivm.rules;

import com.google.common.collect.ImmutableList;
import org.apache.calcite.plan.RelOptRule;
import org.calciteivm.rules.delta.DeltaAggregateTransposeRule;
import org.calciteivm.rules.delta.DeltaFilterTransposeRule;
import org.calciteivm.rules.delta.DeltaJoinInclusionExclusionRule;
import org.calciteivm.rules.delta.DeltaJoinTelescopingRule;
import org.calciteivm.rules.delta.DeltaProjectTransposeRule;
import org.calciteivm.rules.delta.DeltaTableScanRule;

/**
 * Every calcite-ivm rule, one constant each (Calcite's {@code CoreRules} idiom).
 *
 * <p>The delta rules rewrite {@code LogicalDelta(R)}, the change of {@code R}, into a plan over the
 * delta relations of base tables whose rows carry a signed weight. Each rule's Javadoc states the
 * identity it applies.
 */
public final class IvmRules {
  private IvmRules() {}

  /** {@code Δ(σ_p R) = σ_p(ΔR)}. */
  public static final DeltaFilterTransposeRule DELTA_FILTER_TRANSPOSE =
      DeltaFilterTransposeRule.Config.DEFAULT.toRule();

  /** {@code Δ(π_e R) = π_{e, w}(ΔR)}. */
  public static final DeltaProjectTransposeRule DELTA_PROJECT_TRANSPOSE =
      DeltaProjectTransposeRule.Config.DEFAULT.toRule();

  /** {@code Δ(scan T) = scan ΔT}, or the empty relation for a table that is not changing. */
  public static final DeltaTableScanRule DELTA_TABLE_SCAN =
      DeltaTableScanRule.Config.DEFAULT.toRule();

  /**
   * {@code Δstate(γ_{K; f}(R)) = γ_{K; Δf}(ΔR)}: the change of an aggregate's per-group state, with
   * weights folded into counts and sums.
   */
  public static final DeltaAggregateTransposeRule DELTA_AGGREGATE_TRANSPOSE =
      DeltaAggregateTransposeRule.Config.DEFAULT.toRule();

  /**
   * {@code Δ(R ⋈ S) = ΔR ⋈ S' + R' ⋈ ΔS - ΔR ⋈ ΔS} (inclusion-exclusion over the current states
   * {@code R'}, {@code S'}).
   */
  public static final DeltaJoinInclusionExclusionRule DELTA_JOIN_INCLUSION_EXCLUSION =
      DeltaJoinInclusionExclusionRule.Config.DEFAULT.toRule();

  /**
   * {@code Δ(R ⋈ S) = ΔR ⋈ S + R' ⋈ ΔS} (telescoping: the previous state {@code S = S' - ΔS} right
   * of the delta, the current state {@code R'} left of it).
   */
  public static final DeltaJoinTelescopingRule DELTA_JOIN_TELESCOPING =
      DeltaJoinTelescopingRule.Config.DEFAULT.toRule();

  /** The rules that derive a delta plan except the join expansion, in no particular order. */
  public static final ImmutableList<RelOptRule> DELTA_RULES =
      ImmutableList.of(
          DELTA_FILTER_TRANSPOSE,
          DELTA_PROJECT_TRANSPOSE,
          DELTA_AGGREGATE_TRANSPOSE,
          DELTA_TABLE_SCAN);
}
