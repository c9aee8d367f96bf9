package org.calciteivm.rules.aggregate;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;

/**
 * The state a stored aggregate view keeps per group so that every change is invertible, and the
 * plans that compute it, change it and read the view's values from it.
 *
 * <p>Per group: the group keys {@code k1..kn}; {@code _ivm_count}, the group's row count (a group
 * exists exactly while it is positive, never because a SUM became 0); and per aggregate {@code ai}
 * the state columns of its {@link MaintainedAggregate kind} ({@code ai_sum} and {@code ai_count}
 * for SUM, ...).
 *
 * <p>Identity ({@link #deltaStateAggregate}): counts and sums are linear in the rows, so the state
 * of {@code R + ΔR} is the state of {@code R} plus the state of {@code ΔR} computed with weights,
 * the row count as {@code SUM(w)}. MIN and MAX are not invertible: their change is folded in with
 * LEAST and GREATEST unless it deletes the stored extreme, and then the group is recomputed ({@link
 * ExtremeAggregate}, {@link #stateLost}).
 */
public final class AggregateState {
  /** The name of the row-count column of every group. */
  public static final String COUNT_COLUMN = "_ivm_count";

  /**
   * One aggregate of the view and its state.
   *
   * @param call the aggregate call
   * @param kind how it is maintained
   * @param columns its state columns
   */
  public record Maintained(
      AggregateCall call,
      MaintainedAggregate kind,
      String prefix,
      ImmutableList<StateColumn> columns) {

    /** The names of the columns of its change: its state columns', then its change-only ones. */
    ImmutableList<String> deltaColumns() {
      ImmutableList.Builder<String> names = ImmutableList.builder();
      columns.forEach(c -> names.add(c.name()));
      names.addAll(kind.deltaOnlyColumns(prefix));
      return names.build();
    }
  }

  private final Aggregate aggregate;
  private final ImmutableList<String> keys;
  private final ImmutableList<Maintained> calls;
  private final ImmutableList<StateColumn> state;

  private AggregateState(Aggregate aggregate) {
    this.aggregate = aggregate;
    ImmutableList.Builder<String> keys = ImmutableList.builder();
    for (int i = 1; i <= aggregate.getGroupCount(); i++) {
      keys.add("k" + i);
    }
    this.keys = keys.build();
    ImmutableList.Builder<Maintained> calls = ImmutableList.builder();
    ImmutableList.Builder<StateColumn> state = ImmutableList.builder();
    state.add(new StateColumn(COUNT_COLUMN, StateColumn.Kind.COUNT));
    int i = 1;
    for (AggregateCall call : aggregate.getAggCallList()) {
      MaintainedAggregate kind =
          MaintainedAggregates.of(call)
              .orElseThrow(
                  () -> new IllegalArgumentException("aggregate " + call + " is not maintained"));
      String prefix = "a" + i++;
      ImmutableList<StateColumn> columns = ImmutableList.copyOf(kind.stateColumns(prefix));
      calls.add(new Maintained(call, kind, prefix, columns));
      state.addAll(columns);
    }
    this.calls = calls.build();
    this.state = state.build();
  }

  /** The state layout of {@code aggregate}, whose calls the view analysis has accepted. */
  public static AggregateState of(Aggregate aggregate) {
    return new AggregateState(aggregate);
  }

  /** The group key columns, {@code k1..kn}; none for an aggregate without GROUP BY. */
  public ImmutableList<String> keys() {
    return keys;
  }

  /** The state columns after the keys, {@link #COUNT_COLUMN} first. */
  public ImmutableList<StateColumn> state() {
    return state;
  }

  /** The view's aggregates, in order, with their state. */
  public ImmutableList<Maintained> calls() {
    return calls;
  }

  /** Whether some aggregate cannot take a delete in place (MIN, MAX). */
  public boolean hasMinMax() {
    return calls.stream().anyMatch(c -> !c.kind().invertible());
  }

  /**
   * Whether a change without deletes folds into every aggregate's state; if not, a view's every
   * refresh recomputes the groups it touches ({@link MaintainedAggregate#foldsInserts}).
   */
  public boolean foldsInserts() {
    return calls.stream().allMatch(c -> c.kind().foldsInserts());
  }

  /**
   * SQL of the condition under which the stored state {@code stored} of a group cannot take its
   * change {@code change} in place (a MIN or MAX lost its extreme), so that the group must be
   * recomputed; {@code FALSE} if every aggregate is invertible. See {@link
   * MaintainedAggregate#stateLost}.
   */
  public String stateLost(String stored, String change) {
    List<String> conditions = new ArrayList<>();
    for (Maintained c : calls) {
      if (!c.kind().invertible()) {
        conditions.add(c.kind().stateLost(c.prefix(), stored, change));
      }
    }
    return conditions.isEmpty() ? "FALSE" : String.join(" OR ", conditions);
  }

  /** Every column of the stored state, keys first. */
  public ImmutableList<String> columnNames() {
    ImmutableList.Builder<String> names = ImmutableList.builder();
    names.addAll(keys);
    state.forEach(c -> names.add(c.name()));
    return names.build();
  }

  /** The state of every group of {@code input} (the aggregate's input, or a part of it). */
  public RelNode stateAggregate(RelBuilder builder, RelNode input) {
    builder.push(input);
    List<AggCall> stateCalls = new ArrayList<>();
    stateCalls.add(builder.countStar(COUNT_COLUMN));
    for (Maintained c : calls) {
      List<AggCall> computed = c.kind().state(builder, builder.fields(c.call().getArgList()));
      addNamed(
          builder, c, computed, c.columns().stream().map(StateColumn::name).toList(), stateCalls);
    }
    return aggregateWithKeys(builder, stateCalls, state.stream().map(StateColumn::name).toList());
  }

  /**
   * The change of every group's state caused by {@code delta}, a Z-set of the aggregate's input
   * whose last column is the weight: one row per group the change touches, with the change of each
   * state column (see the class comment for the identity).
   */
  public RelNode deltaStateAggregate(RelBuilder builder, RelNode delta) {
    int weightIndex = delta.getRowType().getFieldCount() - 1;
    builder.push(delta);
    RexNode weight = builder.field(weightIndex);
    List<AggCall> deltaCalls = new ArrayList<>();
    deltaCalls.add(builder.sum(weight).as(COUNT_COLUMN));
    for (Maintained c : calls) {
      List<AggCall> changes =
          c.kind().delta(builder, weight, builder.fields(c.call().getArgList()));
      addNamed(builder, c, changes, c.deltaColumns(), deltaCalls);
    }
    return aggregateWithKeys(builder, deltaCalls, deltaColumnNames());
  }

  /**
   * The aggregate's output computed from the stored state in {@code stored} (a relation with the
   * columns {@link #columnNames()}): its group keys, then each aggregate's value, named {@code
   * names}.
   */
  public RelNode values(RelBuilder builder, RelNode stored, List<String> names) {
    builder.push(stored);
    List<RexNode> outputs = new ArrayList<>();
    for (String key : keys) {
      outputs.add(builder.field(key));
    }
    for (Maintained c : calls) {
      List<RexNode> columns = new ArrayList<>();
      c.columns().forEach(column -> columns.add(builder.field(column.name())));
      outputs.add(c.kind().value(builder, columns));
    }
    return builder.project(outputs, names, true).build();
  }

  /** Adds {@code computed}, the calls of one aggregate, named {@code names}. */
  private void addNamed(
      RelBuilder builder,
      Maintained c,
      List<AggCall> computed,
      List<String> names,
      List<AggCall> target) {
    for (int i = 0; i < computed.size(); i++) {
      AggCall named = computed.get(i).as(names.get(i));
      target.add(c.call().filterArg < 0 ? named : named.filter(builder.field(c.call().filterArg)));
    }
  }

  /**
   * Groups the builder's top by the aggregate's keys, named {@code k1..kn}, computing {@code
   * calls}, named {@code names}.
   */
  private RelNode aggregateWithKeys(RelBuilder builder, List<AggCall> calls, List<String> names) {
    builder.aggregate(builder.groupKey(aggregate.getGroupSet()), calls);
    List<String> columns = new ArrayList<>(keys);
    columns.addAll(names);
    builder.project(builder.fields(), columns, true);
    return builder.build();
  }

  /** The names of the columns of a group's change after its keys. */
  private List<String> deltaColumnNames() {
    List<String> names = new ArrayList<>();
    names.add(COUNT_COLUMN);
    calls.forEach(c -> names.addAll(c.deltaColumns()));
    return names;
  }
}
