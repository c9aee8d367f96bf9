package org.calciteivm.rules;

import org.calciteivm.rules.delta.ChangeAggregateTransposeRule;
import org.calciteivm.rules.delta.ChangeDistinctRule;
import org.calciteivm.rules.delta.ChangeFilterTransposeRule;
import org.calciteivm.rules.delta.ChangeJoinForeignKeyPruneRule;
import org.calciteivm.rules.delta.ChangeJoinInclusionExclusionRule;
import org.calciteivm.rules.delta.ChangeJoinTelescopingRule;
import org.calciteivm.rules.delta.ChangeOuterJoinRule;
import org.calciteivm.rules.delta.ChangeProjectTransposeRule;
import org.calciteivm.rules.delta.ChangeRowExpansionRule;
import org.calciteivm.rules.delta.ChangeTableScanRule;
import org.calciteivm.rules.delta.ChangeUnionTransposeRule;
import org.calciteivm.rules.delta.ChangeValuesRule;
import org.calciteivm.rules.normalize.DistinctSetOpToJoinRule;
import org.calciteivm.rules.normalize.GroupingSetsToGroupKeyRule;

/**
 * Every calcite-ivm rule, one constant each (Calcite's {@code CoreRules} idiom).
 *
 * <p>The delta rules rewrite {@code ChangeOf(R)}, the change of {@code R}, into a plan over the
 * delta relations of base tables whose rows carry a signed weight. Each rule's Javadoc states the
 * identity it applies. The rule sequences that use them are in {@link IvmPrograms}.
 */
public final class IvmRules {
  private IvmRules() {}

  /**
   * {@code A INTERSECT B = π_A(δA ⋈_≡ δB)} and {@code A EXCEPT B = π_A(σ_{m IS NULL}(δA ⟕_≡ π_{B,
   * TRUE AS m}(δB)))}: set operations as joins of {@code DISTINCT}s (a normalization, not a delta
   * rule).
   */
  public static final DistinctSetOpToJoinRule DISTINCT_SET_OP_TO_JOIN =
      DistinctSetOpToJoinRule.Config.DEFAULT.toRule();

  /**
   * {@code γ_{S_0..S_{k-1}; f}(R) = π(γ_{M, s; f'}((R × {0..k-1}) ∪all φ))}: grouping sets as one
   * aggregate keyed by the number of the set (a normalization, not a delta rule).
   */
  public static final GroupingSetsToGroupKeyRule GROUPING_SETS_TO_GROUP_KEY =
      GroupingSetsToGroupKeyRule.Config.DEFAULT.toRule();

  /** {@code Δ(σ_p R) = σ_p(ΔR)}. */
  public static final ChangeFilterTransposeRule CHANGE_FILTER_TRANSPOSE =
      ChangeFilterTransposeRule.Config.DEFAULT.toRule();

  /** {@code Δ(π_e R) = π_{e, w}(ΔR)}. */
  public static final ChangeProjectTransposeRule CHANGE_PROJECT_TRANSPOSE =
      ChangeProjectTransposeRule.Config.DEFAULT.toRule();

  /** {@code Δ(R ⋉_f) = (ΔR) ⋉_f}: a row's expansion ({@code unnest}) depends on the row alone. */
  public static final ChangeRowExpansionRule CHANGE_ROW_EXPANSION =
      ChangeRowExpansionRule.Config.DEFAULT.toRule();

  /** {@code Δ(R ∪all S) = ΔR ∪all ΔS}. */
  public static final ChangeUnionTransposeRule CHANGE_UNION_TRANSPOSE =
      ChangeUnionTransposeRule.Config.DEFAULT.toRule();

  /** {@code Δ VALUES(...) = ∅}: constant rows never change. */
  public static final ChangeValuesRule CHANGE_VALUES = ChangeValuesRule.Config.DEFAULT.toRule();

  /** {@code Δ(scan T) = scan ΔT}, or the empty relation for a table that is not changing. */
  public static final ChangeTableScanRule CHANGE_TABLE_SCAN =
      ChangeTableScanRule.Config.DEFAULT.toRule();

  /**
   * {@code Δstate(γ_{K; f}(R)) = γ_{K; Δf}(ΔR)}: the change of an aggregate's per-group state, with
   * weights folded into counts and sums.
   */
  public static final ChangeAggregateTransposeRule CHANGE_AGGREGATE_TRANSPOSE =
      ChangeAggregateTransposeRule.Config.DEFAULT.toRule();

  /**
   * {@code Δ(δ R)(t) = [c'(t) > 0] - [c'(t) - d(t) > 0]} for each tuple {@code t} of {@code ΔR}:
   * the change of the rows of a {@code DISTINCT} inside a plan, from the count {@code c'} of each
   * touched tuple in the current input and its change {@code d}.
   */
  public static final ChangeDistinctRule CHANGE_DISTINCT =
      ChangeDistinctRule.Config.DEFAULT.toRule();

  /**
   * {@code Δ(L ⟕ R) = Δ(L ⋈ R) + pad(ΔL) - pad(Δ π_L(L ⋈ δ(π_k R)))}, and the same for the right
   * input of a right or full join: the change of an outer join as changes of inner joins.
   */
  public static final ChangeOuterJoinRule CHANGE_OUTER_JOIN =
      ChangeOuterJoinRule.Config.DEFAULT.toRule();

  /**
   * {@code Δ(R ⋈ S) = ΔR ⋈ S' + R' ⋈ ΔS - ΔR ⋈ ΔS} (inclusion-exclusion over the current states
   * {@code R'}, {@code S'}).
   */
  public static final ChangeJoinInclusionExclusionRule CHANGE_JOIN_INCLUSION_EXCLUSION =
      ChangeJoinInclusionExclusionRule.Config.DEFAULT.toRule();

  /**
   * {@code Δ(R ⋈ S) = ΔR ⋈ S + R' ⋈ ΔS} (telescoping: the previous state {@code S = S' - ΔS} right
   * of the delta, the current state {@code R'} left of it).
   */
  public static final ChangeJoinTelescopingRule CHANGE_JOIN_TELESCOPING =
      ChangeJoinTelescopingRule.Config.DEFAULT.toRule();

  /**
   * {@code Δ(Y ⋈ X) = ΔY ⋈ X'} when a declared foreign key of {@code Y} on the only changed table
   * of {@code X}, whose change is insert-only, proves {@code Y⁻ ⋈ ΔX} empty.
   */
  public static final ChangeJoinForeignKeyPruneRule CHANGE_JOIN_FOREIGN_KEY_PRUNE =
      ChangeJoinForeignKeyPruneRule.Config.DEFAULT.toRule();
}
