package org.calciteivm.rules.aggregate;

import java.util.Collections;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * One kind of aggregate that calcite-ivm maintains, in one place: the state a stored view keeps for
 * it per group, how a change folds into that state, how the state merges (by the kinds of its
 * columns) and how the aggregate's value is computed from it when the view is read. Adding a kind
 * is one implementation, registered in {@link MaintainedAggregates}, plus its tests.
 *
 * <p>The identity every invertible kind relies on: its state is a sum over the group's rows, so the
 * state of {@code R + ΔR} is the state of {@code R} plus the state of {@code ΔR} computed with each
 * row weighted ({@link #delta}).
 */
public interface MaintainedAggregate {
  /**
   * This kind for a call over values of {@code argumentTypes} in a state that keeps the NaNs and
   * infinities of a floating-point sum apart ({@link StateVersion#SPECIAL_VALUE_COUNTS}, {@link *
   * SpecialValues}); itself for kinds without such sums, by default.
   */
  default MaintainedAggregate countingSpecialValues(List<RelDataType> argumentTypes) {
    return this;
  }

  /** The state columns of one call, named after {@code prefix} ({@code a1_sum}, ...). */
  List<StateColumn> stateColumns(String prefix);

  /**
   * Per {@linkplain #stateColumns state column}, in order, the measure it holds if it is one that
   * other aggregates' state may hold too ({@link StateColumn.Measure}), else null: the stored state
   * keeps each measure once ({@link AggregateState}). None is shared by default.
   */
  default List<StateColumn.@Nullable Measure> measures() {
    return Collections.nCopies(stateColumns("a").size(), null);
  }

  /**
   * The aggregate calls that compute the state of a group from its rows, one per state column but
   * the {@linkplain #countedColumns counted} ones; {@code args} are the call's arguments.
   */
  List<AggCall> state(RelBuilder builder, List<RexNode> args);

  /**
   * The aggregate calls that compute the change of that state from a Z-set of rows whose weight is
   * {@code weight}, one per state column, then one per {@linkplain #deltaOnlyColumns column of the
   * change only}.
   */
  List<AggCall> delta(RelBuilder builder, RexNode weight, List<RexNode> args);

  /**
   * Columns the change of a group has besides the state's, which a merge reads to decide how to
   * apply it (named after {@code prefix}, as {@link #stateColumns}); none by default.
   */
  default List<String> deltaOnlyColumns(String prefix) {
    return List.of();
  }

  /**
   * How many of the last {@linkplain #stateColumns state columns} the state computes in a second
   * pass over the group's rows, which sees what the first pass ({@link #state}) computed for the
   * group ({@link #stateCounted}); none by default. A change bounds them in one pass ({@link *
   * #delta}), or counts them in a second pass too if it may delete ({@link #deltaCounted}).
   */
  default int countedColumns() {
    return 0;
  }

  /**
   * For a kind with {@linkplain #countedColumns counted columns}: per row of a group, what each
   * counted state column sums, given the group's first-pass state columns {@code firstPass}.
   */
  default List<RexNode> stateCounted(
      RelBuilder builder, List<RexNode> args, List<RexNode> firstPass) {
    return List.of();
  }

  /**
   * For a kind with {@linkplain #countedColumns counted columns}, when a change counts exactly (a
   * change that may delete): per row of a Z-set whose weight is {@code weight}, what each counted
   * column of the change sums (the state's counted ones, then as many last change-only ones), given
   * the group's other change columns {@code firstPass}; {@link #delta} bounds them instead.
   */
  default List<RexNode> deltaCounted(
      RelBuilder builder, RexNode weight, List<RexNode> args, List<RexNode> firstPass) {
    return List.of();
  }

  /**
   * For a kind that is not {@linkplain #invertible() invertible}: SQL of the condition under which
   * a change with deletes may have removed what the stored state of a group depends on, so that the
   * group must be recomputed ({@code stored} and {@code change} are the aliases of the stored state
   * and of the group's change; the columns are named after {@code prefix}). Where it is false the
   * change merges like an insert. Invertible kinds never need it.
   */
  default String stateLost(String prefix, String stored, String change) {
    return "FALSE";
  }

  /**
   * Why a call with arguments of {@code argumentTypes} cannot be maintained (completing "aggregate
   * NAME ..." in a refusal), or null if it can; every call can by default.
   */
  default @Nullable String refusal(List<RelDataType> argumentTypes) {
    return null;
  }

  /** The aggregate's value from its state columns, {@code state} (in order). */
  RexNode value(RelBuilder builder, List<RexNode> state);

  /**
   * Whether a change with deletes can be merged into the state; if not, the groups such a change
   * touches are recomputed from the aggregate's input.
   */
  boolean invertible();

  /**
   * Whether a change without deletes folds into the state (MIN and MAX: with LEAST and GREATEST);
   * if not, every group a change touches is recomputed, whatever the change.
   */
  default boolean foldsInserts() {
    return true;
  }
}
