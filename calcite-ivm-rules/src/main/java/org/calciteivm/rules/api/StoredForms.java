package org.calciteivm.rules.api;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlDialect;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.rules.IvmRelBuilders;
import org.calciteivm.rules.aggregate.AggregateState;
import org.calciteivm.rules.aggregate.GroupingSetsState;
import org.calciteivm.rules.aggregate.MaintainedCall;
import org.calciteivm.rules.aggregate.StateColumn;
import org.calciteivm.rules.consolidate.Consolidation;
import org.calciteivm.rules.merge.StandardMerge;
import org.calciteivm.rules.sql.SemiJoins;

/**
 * The stored form of a {@link MaintainedView} on its target: the layout of its stored table, the
 * query that fills it, the query that reads the view from it, and the standard SQL merges.
 */
final class StoredForms {
  /** The name the read query gives the stored state it reads. */
  private static final String STATE = "_ivm_state";

  /** The name of the numbers a counted bag's rows are repeated by. */
  private static final String COPIES = "_ivm_copies";

  private StoredForms() {}

  static StateLayout layout(MaintainedView view) {
    Aggregate aggregate = view.aggregate();
    StateLayout.Column rowCount =
        new StateLayout.Column(AggregateState.COUNT_COLUMN, StateLayout.Kind.COUNT, -1, "COUNT()");
    if (aggregate == null) {
      return view.target().countsBagRows()
          ? new StateLayout(view.plan().getRowType().getFieldNames(), List.of(rowCount), List.of())
          : new StateLayout(List.of(), List.of(), List.of());
    }
    AggregateState state = AggregateState.of(aggregate);
    List<StateLayout.Column> columns = new ArrayList<>();
    columns.add(rowCount);
    List<List<String>> calls = new ArrayList<>();
    for (int i = 0; i < state.calls().size(); i++) {
      MaintainedCall call = state.calls().get(i);
      calls.add(call.columns().stream().map(StateColumn::name).toList());
      for (StateColumn column : call.ownColumns()) {
        columns.add(
            new StateLayout.Column(
                column.name(),
                StateLayout.Kind.valueOf(column.kind().name()),
                i,
                call.call().toString()));
      }
    }
    return new StateLayout(state.keys(), columns, calls);
  }

  static RelNode storedContent(MaintainedView view) {
    Aggregate aggregate = view.aggregate();
    RelBuilder builder = IvmRelBuilders.create(view.plan().getCluster());
    boolean duckDb = view.target().merges() == SqlTarget.Merges.DUCKDB;
    if (aggregate != null) {
      // DuckDB runs a join with a DISTINCT faster as a semi-join
      UnaryOperator<RelNode> form = duckDb ? SemiJoins::of : UnaryOperator.identity();
      RelNode bySets = GroupingSetsState.stateAggregate(aggregate, builder, form);
      if (bySets != null) {
        return bySets;
      }
      return AggregateState.of(aggregate).stateAggregate(builder, form.apply(aggregate.getInput()));
    }
    if (!view.target().countsBagRows()) {
      return view.plan();
    }
    builder.push(view.plan());
    return builder
        .aggregate(
            builder.groupKey(builder.fields()), builder.countStar(AggregateState.COUNT_COLUMN))
        .build();
  }

  static String readSql(MaintainedView view, String storedTable) {
    SqlTarget target = view.target();
    Aggregate aggregate = view.aggregate();
    if (aggregate == null && !target.countsBagRows()) {
      return "SELECT * FROM " + storedTable;
    }
    if (aggregate == null) {
      return countedBagRows(target, view.plan().getRowType().getFieldNames(), storedTable);
    }
    AggregateState state = AggregateState.of(aggregate);
    RelBuilder builder = IvmRelBuilders.withSchemaOf(view.plan());
    RelNode stored =
        builder
            .transientScan(STATE, state.stateAggregate(builder, aggregate.getInput()).getRowType())
            .build();
    List<String> names = aggregate.getRowType().getFieldNames();
    RelNode values =
        builder
            .push(state.values(builder, stored, names))
            .convert(aggregate.getRowType(), true)
            .build();
    RelNode read = view.plan() == aggregate ? values : replace(view.plan(), aggregate, values);
    return "WITH "
        + target.quote(STATE)
        + " AS (SELECT * FROM "
        + storedTable
        + ") "
        + target.unparser().toSql(read);
  }

  /**
   * Each stored row of a counted bag as many times as its count: joined with the numbers up to the
   * largest count, made by a recursive query; Spark SQL (which has none before 4.1) explodes a
   * sequence instead.
   */
  private static String countedBagRows(SqlTarget target, List<String> columns, String table) {
    String selected =
        columns.stream().map(c -> "d." + target.quote(c)).collect(Collectors.joining(", "));
    if (target.dialect().getDatabaseProduct() == SqlDialect.DatabaseProduct.SPARK) {
      return "SELECT "
          + selected
          + " FROM "
          + table
          + " AS d LATERAL VIEW explode(sequence(1, d."
          + target.quote(AggregateState.COUNT_COLUMN)
          + ")) "
          + target.quote(COPIES);
    }
    String n = target.quote("_ivm_n");
    String count = target.quote(AggregateState.COUNT_COLUMN);
    String copies = target.quote(COPIES);
    return "WITH RECURSIVE "
        + copies
        + "("
        + n
        + ") AS (SELECT 1 FROM (VALUES (1)) AS "
        + target.quote("_ivm_one")
        + "("
        + target.quote("x")
        + ") UNION ALL SELECT "
        + n
        + " + 1 FROM "
        + copies
        + " WHERE "
        + n
        + " < (SELECT MAX("
        + count
        + ") FROM "
        + table
        + ")) SELECT "
        + selected
        + " FROM "
        + table
        + " AS d JOIN "
        + copies
        + " AS c ON c."
        + n
        + " <= d."
        + count;
  }

  static Map<MergeStrategy, List<String>> standardMerges(
      MaintainedView view, DeltaProgram delta, StoredView stored) {
    if (stored.keepsDelta()) {
      throw new IllegalArgumentException("a standard SQL target keeps no view delta (keepsDelta)");
    }
    SqlTarget target = view.target();
    StandardMerge merges = new StandardMerge(target::quote);
    Aggregate aggregate = view.aggregate();
    ImmutableMap.Builder<MergeStrategy, ImmutableList<String>> statements = ImmutableMap.builder();
    if (aggregate == null) {
      RelBuilder builder = IvmRelBuilders.create(delta.plan().getCluster());
      RelNode named = MaintainedView.withDeltaColumnNames(builder, delta.plan());
      String merge =
          merges.countedBag(
              stored.table(),
              stored.columns(),
              target.unparser().toSql(Consolidation.consolidate(builder, named)));
      statements.put(MergeStrategy.BAG_COUNTED, ImmutableList.of(merge));
      statements.put(MergeStrategy.BAG_APPEND, ImmutableList.of(merge));
    } else {
      AggregateState state = AggregateState.of(aggregate);
      String deltaSql = target.unparser().toSql(delta.plan());
      if (state.foldsInserts()) {
        statements.put(
            MergeStrategy.GROUP_MERGE,
            ImmutableList.of(merges.groups(stored.table(), state, deltaSql, true)));
        statements.put(
            MergeStrategy.GROUP_APPEND,
            ImmutableList.of(merges.groups(stored.table(), state, deltaSql, false)));
      }
      if (state.hasMinMax()) {
        statements.put(
            MergeStrategy.GROUP_RECOMPUTE,
            ImmutableList.of(
                merges.recompute(
                    stored.table(),
                    state,
                    target.unparser().toSql(recomputedGroups(aggregate, state, delta.plan())))));
      }
    }
    return Collections.unmodifiableMap(view.monotoneOnly(statements.buildOrThrow()));
  }

  /**
   * One row per group {@code delta} (a view delta, its keys first) touches: its keys, then its
   * state computed from the aggregate's input (NULL for a group left without rows). Without GROUP
   * BY, the one group's state.
   */
  private static RelNode recomputedGroups(
      Aggregate aggregate, AggregateState state, RelNode delta) {
    RelBuilder builder = IvmRelBuilders.create(aggregate.getCluster());
    if (state.keys().isEmpty()) {
      return state.stateAggregate(builder, aggregate.getInput());
    }
    int keys = state.keys().size();
    RelNode touched =
        builder.push(delta).project(builder.fields().subList(0, keys)).distinct().build();
    // the input's rows in the touched groups: joined NULL-safely with their keys
    builder.push(aggregate.getInput()).push(touched);
    List<Integer> groupColumns = aggregate.getGroupSet().asList();
    builder.join(JoinRelType.INNER, keysEqual(builder, groupColumns, keys));
    int inputFields = aggregate.getInput().getRowType().getFieldCount();
    builder.project(
        builder.fields().subList(0, inputFields),
        aggregate.getInput().getRowType().getFieldNames(),
        true);
    RelNode recomputed = state.stateAggregate(builder, builder.build());
    // every touched group, with its recomputed state or NULLs
    builder.push(touched).push(recomputed);
    builder.join(
        JoinRelType.LEFT,
        keysEqual(builder, java.util.stream.IntStream.range(0, keys).boxed().toList(), keys));
    List<RexNode> columns = new ArrayList<>(builder.fields().subList(0, keys));
    columns.addAll(builder.fields().subList(2 * keys, builder.fields().size()));
    return builder.project(columns, state.columnNames(), true).build();
  }

  /**
   * Column {@code left.get(i)} of the join's left input is NULL-safely equal to its right's {@code
   * i}.
   */
  private static List<RexNode> keysEqual(RelBuilder builder, List<Integer> left, int keys) {
    List<RexNode> same = new ArrayList<>();
    for (int i = 0; i < keys; i++) {
      same.add(
          builder.call(
              SqlStdOperatorTable.IS_NOT_DISTINCT_FROM,
              builder.field(2, 0, left.get(i)),
              builder.field(2, 1, i)));
    }
    return same;
  }

  /** {@code rel} with {@code target} (somewhere below it, through single inputs) replaced. */
  private static RelNode replace(RelNode rel, RelNode target, RelNode replacement) {
    if (rel == target) {
      return replacement;
    }
    if (rel.getInputs().size() != 1) {
      throw new IllegalStateException("the aggregate is not below " + rel.getRelTypeName());
    }
    return rel.copy(rel.getTraitSet(), List.of(replace(rel.getInput(0), target, replacement)));
  }
}
