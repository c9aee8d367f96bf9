package org.calciteivm.rules.aggregate;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.hint.HintPredicates;
import org.apache.calcite.rel.hint.HintStrategyTable;
import org.apache.calcite.rel.hint.RelHint;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The state a stored aggregate view keeps per group so that every change is invertible, and the
 * plans that compute it, change it and read the view's values from it.
 *
 * <p>Per group: the group keys {@code k1..kn}; {@code _ivm_count}, the group's row count (a group
 * exists exactly while it is positive, never because a SUM became 0); and per aggregate {@code ai}
 * the state columns of its {@link MaintainedAggregate kind} ({@code ai_sum} and {@code ai_count}
 * for SUM, ...). A column whose {@linkplain StateColumn.Measure measure} an earlier column holds is
 * not stored again: {@code AVG(x)} beside {@code SUM(x)} reads the sum's columns, and the count of
 * a never-NULL {@code x} is {@code _ivm_count} (TPC-H Q1: 8 state columns instead of 18). A sum of
 * floating-point values also counts its NaNs and infinities ({@link SpecialValues}). Views an
 * earlier version stored keep its {@link StateVersion}.
 *
 * <p>Identity ({@link #deltaStateAggregate}): counts and sums are linear in the rows, so the state
 * of {@code R + ΔR} is the state of {@code R} plus the state of {@code ΔR} computed with weights,
 * the row count as {@code SUM(w)}. MIN and MAX are not invertible: their change is folded in with
 * LEAST and GREATEST, the count of the rows at the extreme moved with it, unless it may delete
 * every row that holds the stored extreme, and then the group is recomputed ({@link
 * ExtremeAggregate}, {@link #stateLost}). Those counts are the one state a single pass over the
 * rows cannot compute: a second pass joins each row with its group's first-pass row ({@link
 * #counted}, and {@link #deltaStateAggregate(RelBuilder, RelNode, boolean)} for a change).
 */
public final class AggregateState {
  /** The name of the row-count column of every group. */
  public static final String COUNT_COLUMN = "_ivm_count";

  /**
   * The hint on an aggregate whose view an earlier version stored in an older {@link StateVersion},
   * named by its option: its state keeps that layout ({@link *
   * org.calciteivm.rules.api.IvmCompiler#withStateVersion}).
   */
  public static final String STATE_VERSION = "ivm_state_version";

  private final Aggregate aggregate;
  private final ImmutableList<String> keys;
  private final ImmutableList<MaintainedCall> calls;
  private final ImmutableList<StateColumn> state;

  private AggregateState(Aggregate aggregate) {
    this.aggregate = aggregate;
    ImmutableList.Builder<String> keys = ImmutableList.builder();
    for (int i = 1; i <= aggregate.getGroupCount(); i++) {
      keys.add("k" + i);
    }
    this.keys = keys.build();
    ImmutableList.Builder<MaintainedCall> calls = ImmutableList.builder();
    ImmutableList.Builder<StateColumn> state = ImmutableList.builder();
    StateColumn rowCount = new StateColumn(COUNT_COLUMN, StateColumn.Kind.COUNT);
    state.add(rowCount);
    StateVersion layout =
        aggregate.getHints().stream()
            .filter(h -> h.hintName.equals(STATE_VERSION))
            .map(h -> StateVersion.valueOf(h.listOptions.get(0)))
            .findFirst()
            .orElse(StateVersion.CURRENT);
    // the column of each shared measure, by what it measures; none if the view's state predates
    // sharing
    boolean shares = layout.sharesMeasures();
    List<RelDataTypeField> input = aggregate.getInput().getRowType().getFieldList();
    Map<String, StateColumn> byMeasure = new HashMap<>();
    byMeasure.put(measured(StateColumn.Measure.COUNT, List.of(), -1), rowCount);
    int i = 1;
    for (AggregateCall call : aggregate.getAggCallList()) {
      MaintainedAggregate kind =
          MaintainedAggregates.of(call)
              .orElseThrow(
                  () -> new IllegalArgumentException("aggregate " + call + " is not maintained"));
      if (layout.countsSpecialValues()) {
        kind =
            kind.countingSpecialValues(
                call.getArgList().stream().map(a -> input.get(a).getType()).toList());
      }
      String prefix = "a" + i++;
      List<StateColumn> own = kind.stateColumns(prefix);
      List<StateColumn.@Nullable Measure> measures = kind.measures();
      ImmutableList.Builder<StateColumn> columns = ImmutableList.builder();
      ImmutableList.Builder<Boolean> owned = ImmutableList.builder();
      for (int c = 0; c < own.size(); c++) {
        String measure = shares ? measure(call, measures.get(c)) : null;
        StateColumn shared = measure == null ? null : byMeasure.get(measure);
        if (shared != null) {
          columns.add(shared);
          owned.add(false);
        } else {
          columns.add(own.get(c));
          owned.add(true);
          state.add(own.get(c));
          if (measure != null) {
            byMeasure.put(measure, own.get(c));
          }
        }
      }
      calls.add(new MaintainedCall(call, kind, prefix, columns.build(), owned.build()));
    }
    this.calls = calls.build();
    this.state = state.build();
  }

  /**
   * What a state column of {@code call} holding {@code measure} measures, as a key equal for
   * columns that always hold the same value; null if it is not shared ({@code measure} null, or a
   * DISTINCT call). A count of non-null arguments leaves out those never NULL in the aggregate's
   * input (a LEFT join's padded side is nullable there), so that {@code COUNT(x)} of a NOT NULL
   * {@code x} is the row count.
   */
  private @Nullable String measure(AggregateCall call, StateColumn.@Nullable Measure measure) {
    if (measure == null || call.isDistinct()) {
      return null;
    }
    List<Integer> args = call.getArgList();
    if (measure != StateColumn.Measure.COUNT) {
      return measured(measure, args.subList(0, 1), call.filterArg);
    }
    List<RelDataTypeField> input = aggregate.getInput().getRowType().getFieldList();
    return measured(
        measure,
        args.stream().filter(a -> input.get(a).getType().isNullable()).toList(),
        call.filterArg);
  }

  private static String measured(StateColumn.Measure measure, List<Integer> args, int filterArg) {
    return measure + args.toString() + " FILTER " + filterArg;
  }

  /**
   * {@code plan} with its aggregates hinted {@link #STATE_VERSION} {@code layout}: their state
   * keeps that layout, as the version that stored them laid it out.
   */
  public static RelNode inVersion(RelNode plan, StateVersion layout) {
    RelOptCluster cluster = plan.getCluster();
    if (cluster.getHintStrategies() == HintStrategyTable.EMPTY) {
      // Calcite's planners check each hint against its cluster's strategies (a view's plan from
      // SQL has none; an engine's own plan may have its own, which do not need this hint)
      cluster.setHintStrategies(
          HintStrategyTable.builder()
              .hintStrategy(STATE_VERSION, HintPredicates.AGGREGATE)
              .build());
    }
    RelHint hint = RelHint.builder(STATE_VERSION).hintOption(layout.name()).build();
    return plan.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode other) {
            RelNode visited = super.visit(other);
            return visited instanceof Aggregate a ? a.attachHints(List.of(hint)) : visited;
          }
        });
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
  public ImmutableList<MaintainedCall> calls() {
    return calls;
  }

  /** Whether some aggregate cannot take a delete in place (MIN, MAX). */
  public boolean hasMinMax() {
    return calls.stream().anyMatch(c -> !c.kind().invertible());
  }

  /** Whether some aggregate's state sums values (SUM, AVG, the variances), not only counts rows. */
  private boolean sumsValues() {
    return state.stream().anyMatch(c -> c.kind() == StateColumn.Kind.SUM);
  }

  /** Whether some aggregate counts the rows at its extreme (MIN, MAX) in a second pass. */
  public boolean countsExtremes() {
    return calls.stream().anyMatch(c -> c.kind().countedColumns() > 0);
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
   * recomputed; {@code FALSE} if every aggregate is invertible. See {@link *
   * MaintainedAggregate#stateLost}.
   */
  public String stateLost(String stored, String change) {
    List<String> conditions = new ArrayList<>();
    for (MaintainedCall c : calls) {
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

  /**
   * The state of every group of {@code input} (the aggregate's input, or a part of it): one pass
   * over its rows, and a second one for the counts of extremes ({@link #counted}).
   */
  public RelNode stateAggregate(RelBuilder builder, RelNode input) {
    builder.push(input);
    List<String> names = new ArrayList<>();
    List<AggCall> stateCalls = firstPassCalls(builder, names);
    return counted(builder, aggregateWithKeys(builder, stateCalls, names), input);
  }

  /**
   * The change of every group's state caused by {@code delta}, a Z-set of the aggregate's input
   * whose last column is the weight: one row per group the change touches, with the change of each
   * state column (see the class comment for the identity): the states of its rows of each weight,
   * times the weight, if every aggregate is invertible, some sums values and the view has GROUP BY
   * ({@link WeightedStates}), else one pass over its rows, the counts of extremes bounds ({@link *
   * MaintainedAggregate#delta}).
   */
  public RelNode deltaStateAggregate(RelBuilder builder, RelNode delta) {
    int weightIndex = delta.getRowType().getFieldCount() - 1;
    if (!hasMinMax() && !keys.isEmpty() && sumsValues()) {
      return WeightedStates.of(this, aggregate.getGroupSet(), builder, delta, weightIndex);
    }
    builder.push(delta);
    RexNode weight = builder.field(weightIndex);
    List<AggCall> deltaCalls = new ArrayList<>();
    deltaCalls.add(builder.sum(weight).as(COUNT_COLUMN));
    for (MaintainedCall c : calls) {
      List<AggCall> changes =
          c.kind().delta(builder, weight, builder.fields(c.call().getArgList()));
      addNamed(builder, c, c.ownedOf(changes), c.deltaColumns(), deltaCalls);
    }
    return aggregateWithKeys(builder, deltaCalls, deltaColumnNames());
  }

  /**
   * {@link #deltaStateAggregate}, with the counts of extremes exact if {@code exactCounts}: a
   * change that may delete counts them in a second pass over its rows, so that a group whose
   * extreme a row is deleted and inserted at (an update) keeps its count. The row type is the same.
   */
  public RelNode deltaStateAggregate(RelBuilder builder, RelNode delta, boolean exactCounts) {
    RelNode bounded = deltaStateAggregate(builder, delta);
    if (!exactCounts || !countsExtremes()) {
      return bounded;
    }
    int weightIndex = delta.getRowType().getFieldCount() - 1;
    int firstFields = joinWithGroups(builder, bounded, delta);
    List<String> names = bounded.getRowType().getFieldNames();
    List<AggCall> sums = new ArrayList<>();
    List<String> exact = new ArrayList<>();
    for (MaintainedCall c : calls) {
      List<String> counted = c.countedInDelta();
      List<RexNode> firstPass = new ArrayList<>();
      for (String name : c.deltaColumns()) {
        if (!counted.contains(name)) {
          firstPass.add(builder.field(names.indexOf(name)));
        }
      }
      List<RexNode> weights =
          c.kind()
              .deltaCounted(
                  builder,
                  builder.field(firstFields + weightIndex),
                  c.arguments(builder, firstFields),
                  firstPass);
      for (int i = 0; i < weights.size(); i++) {
        sums.add(builder.sum(c.filtered(builder, firstFields, weights.get(i))).as(counted.get(i)));
        exact.add(counted.get(i));
      }
    }
    List<Integer> kept = new ArrayList<>();
    for (int i = 0; i < firstFields; i++) {
      if (!exact.contains(names.get(i))) {
        kept.add(i);
      }
    }
    builder.aggregate(builder.groupKey(builder.fields(kept)), sums);
    // in the bounded change's order and types (a count's SUM may be wider than its bound's MAX)
    builder.project(builder.fields(names), names, true);
    return builder.convert(bounded.getRowType(), false).build();
  }

  /**
   * Pushes onto {@code builder} the rows of {@code input} (the aggregate's input, or its change),
   * each joined NULL-safely by its group's keys with {@code groups}, a relation with the keys
   * first; a group without rows (no GROUP BY over no rows) keeps one row of NULLs. Returns how many
   * columns {@code groups} has: the input's columns follow.
   */
  private int joinWithGroups(RelBuilder builder, RelNode groups, RelNode input) {
    builder.push(groups).push(input);
    List<RexNode> keysMatch = new ArrayList<>();
    List<Integer> groupColumns = aggregate.getGroupSet().asList();
    for (int i = 0; i < groupColumns.size(); i++) {
      // the call, not RelBuilder.isNotDistinctFrom's expansion (an OR DuckDB cannot hash-join on)
      keysMatch.add(
          builder.call(
              SqlStdOperatorTable.IS_NOT_DISTINCT_FROM,
              builder.field(2, 0, i),
              builder.field(2, 1, groupColumns.get(i))));
    }
    builder.join(
        JoinRelType.LEFT, keysMatch.isEmpty() ? builder.literal(true) : builder.and(keysMatch));
    return groups.getRowType().getFieldCount();
  }

  /**
   * {@code first}, the first pass of the state over {@code input} (keys, then the columns each call
   * computes there), completed with the counted columns of the calls that have some: a second pass
   * over {@code input}'s rows, each joined (NULL-safely, by its group's keys) with its group's
   * first-pass row, sums them; a group without rows (no GROUP BY over no rows) sums none. The
   * result has the keys, then the state columns; {@code first} itself if no call counts.
   */
  private RelNode counted(RelBuilder builder, RelNode first, RelNode input) {
    if (!countsExtremes()) {
      return first;
    }
    int firstFields = joinWithGroups(builder, first, input);
    List<AggCall> sums = new ArrayList<>();
    List<RexNode> counts = new ArrayList<>();
    for (MaintainedCall c : calls) {
      List<RexNode> firstPass = new ArrayList<>();
      for (String name : c.firstPass()) {
        firstPass.add(builder.field(first.getRowType().getFieldNames().indexOf(name)));
      }
      List<RexNode> weights =
          c.kind().stateCounted(builder, c.arguments(builder, firstFields), firstPass);
      for (int i = 0; i < weights.size(); i++) {
        RexNode weight = c.filtered(builder, firstFields, weights.get(i));
        sums.add(builder.sum(weight).as(c.counted().get(i)));
        counts.add(builder.notEquals(weight, builder.literal(0)));
      }
    }
    // only the rows some count counts meet their group: the rows at an extreme, a few per group,
    // so the aggregate above the join groups those instead of every input row (a recompute of
    // TPC-H lineitem's MIN/MAX per supplier at SF 1: 560 -> 320 ms, against 100 ms without counts)
    Join join = (Join) builder.build();
    builder.push(
        join.copy(
            join.getTraitSet(),
            builder.and(join.getCondition(), builder.or(counts)),
            join.getLeft(),
            join.getRight(),
            join.getJoinType(),
            join.isSemiJoinDone()));
    builder.aggregate(builder.groupKey(builder.fields().subList(0, firstFields)), sums);
    List<RexNode> outputs = new ArrayList<>(builder.fields().subList(0, keys.size()));
    List<String> outputNames = new ArrayList<>(keys);
    for (StateColumn column : state) {
      outputs.add(builder.field(column.name()));
      outputNames.add(column.name());
    }
    return builder.project(outputs, outputNames, true).build();
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
    for (MaintainedCall c : calls) {
      List<RexNode> columns = new ArrayList<>();
      c.columns().forEach(column -> columns.add(builder.field(column.name())));
      outputs.add(c.kind().value(builder, columns));
    }
    return builder.project(outputs, names, true).build();
  }

  /**
   * The calls of the first pass of the state over the builder's top (the aggregate's input, or its
   * change): the row count, then each aggregate's state but its counted columns; their names are
   * added to {@code names}.
   */
  List<AggCall> firstPassCalls(RelBuilder builder, List<String> names) {
    List<AggCall> stateCalls = new ArrayList<>();
    stateCalls.add(builder.countStar(COUNT_COLUMN));
    names.add(COUNT_COLUMN);
    for (MaintainedCall c : calls) {
      List<AggCall> computed = c.kind().state(builder, builder.fields(c.call().getArgList()));
      addNamed(builder, c, c.ownedOf(computed), c.firstPass(), stateCalls);
      names.addAll(c.firstPass());
    }
    return stateCalls;
  }

  /** Adds {@code computed}, the calls of one aggregate, named {@code names}. */
  private void addNamed(
      RelBuilder builder,
      MaintainedCall c,
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
