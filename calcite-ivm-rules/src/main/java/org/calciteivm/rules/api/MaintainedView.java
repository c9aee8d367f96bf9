package org.calciteivm.rules.api;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.core.ZSets;
import org.calciteivm.rules.IvmMetadata;
import org.calciteivm.rules.IvmRelBuilders;
import org.calciteivm.rules.aggregate.AggregateState;
import org.calciteivm.rules.analysis.RecomputedPartitions;
import org.calciteivm.rules.analysis.RowKeys;
import org.calciteivm.rules.analysis.ViewAnalyzer;
import org.calciteivm.rules.consolidate.Consolidation;
import org.calciteivm.rules.delta.DeltaContext;
import org.calciteivm.rules.delta.DeltaDerivation;
import org.calciteivm.rules.delta.JoinTerms;
import org.calciteivm.rules.merge.BagMerge;
import org.calciteivm.rules.merge.GroupMerge;
import org.calciteivm.rules.merge.PartitionMerge;
import org.calciteivm.rules.sql.SqlUnparser;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A view that can be maintained incrementally: its plan, what it reads, what it stores, and its
 * {@linkplain #delta delta program} for any change. Made by {@link IvmCompiler}.
 *
 * <p>A view without aggregate stores its rows as a bag. An aggregate view stores one row per group:
 * the group keys and the hidden state of {@link #stateColumns()} (a row count, and a sum and a
 * non-NULL count per SUM or AVG, ...), from which its aggregates are computed when it is read.
 *
 * <p>Instances are immutable, but the Calcite objects they hold are not safe for use by several
 * threads at once: compile one delta at a time per view.
 */
public final class MaintainedView {
  private final String name;
  private final RelNode plan;
  private final ViewAnalyzer.Analysis analysis;
  private final RelCollation order;
  private final SqlTarget target;
  private final SqlUnparser unparser;
  private final DeltaRelations deltaRelations;

  MaintainedView(
      String name,
      RelNode plan,
      ViewAnalyzer.Analysis analysis,
      RelCollation order,
      SqlTarget target,
      DeltaRelations deltaRelations) {
    this.name = name;
    this.plan = plan;
    this.analysis = analysis;
    this.order = order;
    this.target = target;
    this.unparser = target.unparser();
    this.deltaRelations = deltaRelations;
  }

  /** The database this view's SQL is written for. */
  public SqlTarget target() {
    return target;
  }

  /**
   * The view's {@code ORDER BY} (without {@code LIMIT}), on its output columns: not part of what is
   * maintained (a view is a bag), but the order in which its rows are read; empty if none.
   */
  public RelCollation order() {
    return order;
  }

  /**
   * The {@code ORDER BY} clause that reads the view's rows in {@link #order()}, by column position
   * with explicit directions and NULL orders (DuckDB SQL, with a leading space), or the empty
   * string.
   */
  public String orderBySql() {
    if (order.getFieldCollations().isEmpty()) {
      return "";
    }
    List<String> keys = new ArrayList<>();
    for (RelFieldCollation key : order.getFieldCollations()) {
      keys.add(
          (key.getFieldIndex() + 1)
              + (key.getDirection().isDescending() ? " DESC" : " ASC")
              + (key.nullDirection == RelFieldCollation.NullDirection.FIRST
                  ? " NULLS FIRST"
                  : " NULLS LAST"));
    }
    return " ORDER BY " + String.join(", ", keys);
  }

  /** The view's name. */
  public String name() {
    return name;
  }

  /** The view's logical plan, normalized (filters above joins moved into the join conditions). */
  public RelNode plan() {
    return plan;
  }

  /**
   * How the stored view is merged: one of the view's own strategies (see {@link MergeStrategy}).
   */
  public MergeStrategy strategy() {
    return analysis.strategy();
  }

  /**
   * What the analysis found: base tables, columns read, merge strategy, aggregate. An internal type
   * the calcite-ivm driver reads; the methods of this class give the same facts.
   */
  public ViewAnalyzer.Analysis analysis() {
    return analysis;
  }

  /** The qualified names of the tables the view reads. */
  public List<List<String>> baseTables() {
    return analysis.baseTables();
  }

  /** Per base table, the columns the view reads: only their changes need to be captured. */
  public Map<List<String>, Set<String>> usedColumns() {
    return Collections.unmodifiableMap(analysis.usedColumns());
  }

  /** The view's aggregate, or null for a view without one. */
  public @Nullable Aggregate aggregate() {
    return analysis.aggregate();
  }

  /** The names of the hidden columns the view stores after its keys ({@link #stateLayout()}). */
  public List<String> stateColumns() {
    return stateLayout().columns().stream().map(StateLayout.Column::name).toList();
  }

  /** What the stored table holds: keys and hidden columns, and which aggregate each belongs to. */
  public StateLayout stateLayout() {
    return StoredForms.layout(this);
  }

  /**
   * The delta program for {@code change}, on any thread.
   *
   * @throws IllegalArgumentException if {@code change} names a table the view does not read or that
   *     has no delta relation, or a changed table's delta relation is missing or has another row
   *     type than the table's columns followed by the weight ({@link DeltaRelations#rowType})
   */
  public DeltaProgram delta(Change change) {
    for (List<String> table : change.changedTables()) {
      if (!analysis.baseTables().contains(table)) {
        throw new IllegalArgumentException(
            "the change names table "
                + table
                + ", which view "
                + name
                + " does not read; its tables are "
                + analysis.baseTables()
                + " (qualified names, as baseTables() gives them)");
      }
    }
    List<List<String>> withoutDelta = DeltaRules.withoutDelta(plan, change, deltaRelations);
    if (!withoutDelta.isEmpty()) {
      throw new IllegalArgumentException(
          "the change names "
              + withoutDelta
              + ", which have no delta relation (tables implementing ChangingTable, or named by"
              + " the compiler's DeltaRelations, have one)");
    }
    IvmMetadata.onThisThread(plan.getCluster());
    DeltaContext context = DeltaRules.context(change, deltaRelations);
    JoinStrategy joins = DeltaRules.joins(plan, change);
    Aggregate aggregate = analysis.aggregate();
    RecomputedPartitions partitions = analysis.partitions();
    // an aggregate view derives the change of its state; a view kept by recomputing partitions the
    // change of its partitioned inputs, whose partition keys say what to recompute
    RelNode root =
        aggregate != null
            ? aggregate
            : partitions != null ? PartitionMerge.touchedPartitions(partitions) : plan;
    DeltaDerivation derivation = DeltaDerivation.of(root, joins, context);
    RelNode delta = derivation.plan();
    RelNode consolidated =
        aggregate == null
            ? Consolidation.consolidate(IvmRelBuilders.create(delta.getCluster()), delta)
            : delta;
    return new DeltaProgram(
        joins,
        delta,
        consolidated,
        JoinTerms.of(plan, delta),
        derivation.prunedTerms(),
        JoinTerms.negativeWeightsPossible(plan, context),
        target);
  }

  /**
   * The query whose result is the view's stored content on the current data, laid out as {@link
   * #stateLayout()} says: its rows (on DuckDB), its distinct rows and their counts (a view without
   * aggregate on a standard target), or one row per group of keys and state (an aggregate view).
   */
  public String storedContentSql() {
    return unparser.toSql(storedContentPlan());
  }

  /** The plan of {@link #storedContentSql()}, for engines that run plans rather than SQL. */
  public RelNode storedContentPlan() {
    return StoredForms.storedContent(this);
  }

  /**
   * The query that reads the view from its stored state in {@code storedTable} (SQL, quoted and
   * qualified as needed): the view's columns, its aggregates computed from their state, a counted
   * bag's rows repeated by their counts; without the view's {@code ORDER BY} ({@link
   * #orderBySql()}). Aggregates are cast to the types the view's plan gives them.
   */
  public String readSql(String storedTable) {
    return StoredForms.readSql(this, storedTable);
  }

  /**
   * The statements that apply {@code delta} to the view stored in {@code stored}, for each merge
   * strategy this view can use with it (see {@link MergeStrategy} for what each needs of the
   * change), in the target's SQL. Run them in one transaction, after the delta relations are filled
   * and before the base tables change again.
   *
   * <p>On a standard target: {@code BAG_COUNTED} (and {@code BAG_APPEND}, the same MERGE) for a
   * view without aggregate; {@code GROUP_MERGE}, {@code GROUP_APPEND} and, for MIN, MAX and the
   * aggregates that are always recomputed, {@code GROUP_RECOMPUTE} for an aggregate view.
   */
  public Map<MergeStrategy, List<String>> mergeStatements(DeltaProgram delta, StoredView stored) {
    if (target.merges() == SqlTarget.Merges.STANDARD) {
      return StoredForms.standardMerges(this, delta, stored);
    }
    return Collections.unmodifiableMap(duckDbMergeStatements(delta, stored));
  }

  private ImmutableMap<MergeStrategy, ImmutableList<String>> duckDbMergeStatements(
      DeltaProgram delta, StoredView stored) {
    Aggregate aggregate = analysis.aggregate();
    String deltaTable = IvmNames.quote(stored.deltaTable());
    RecomputedPartitions partitions = analysis.partitions();
    if (partitions != null) {
      return ImmutableMap.of(
          MergeStrategy.BAG_COUNTED,
          PartitionMerge.statements(
              plan,
              partitions,
              delta.plan(),
              stored.table(),
              stored.columns(),
              stored.deltaTable(),
              RowKeys.of(plan)));
    }
    if (aggregate == null) {
      RelBuilder builder = IvmRelBuilders.create(delta.plan().getCluster());
      RelNode named = withDeltaColumnNames(builder, delta.plan());
      String consolidatedSql = unparser.toSql(Consolidation.consolidate(builder, named));
      return monotoneOnly(
          ImmutableMap.of(
              MergeStrategy.BAG_COUNTED,
              BagMerge.counted(
                  stored.table(), stored.columns(), deltaTable, consolidatedSql, RowKeys.of(plan)),
              MergeStrategy.BAG_APPEND,
              delta.negativeWeightsPossible() || stored.keepsDelta()
                  ? BagMerge.appendConsolidated(
                      stored.table(), stored.columns().size(), deltaTable, consolidatedSql)
                  : BagMerge.append(
                      stored.table(), stored.columns().size(), unparser.toSql(named))));
    }
    AggregateState state = AggregateState.of(aggregate);
    String deltaSql = unparser.toSql(delta.plan());
    ImmutableMap.Builder<MergeStrategy, ImmutableList<String>> statements = ImmutableMap.builder();
    // a view whose aggregates cannot fold a change in has no merge that does
    List<MergeStrategy> folding =
        state.foldsInserts()
            ? List.of(MergeStrategy.GROUP_MERGE, MergeStrategy.GROUP_APPEND)
            : List.of();
    for (MergeStrategy merge : folding) {
      boolean deleteEmptyGroups = merge == MergeStrategy.GROUP_MERGE;
      statements.put(
          merge,
          stored.keepsDelta()
              ? ImmutableList.<String>builder()
                  .add(GroupMerge.createDeltaTable(deltaTable, deltaSql))
                  .addAll(
                      GroupMerge.merge(
                          stored.table(), state, "SELECT * FROM " + deltaTable, deleteEmptyGroups))
                  .build()
              : GroupMerge.merge(stored.table(), state, deltaSql, deleteEmptyGroups));
    }
    if (state.hasMinMax()) {
      // the groups to recompute: a temporary table of the view delta's row type
      String recomputedTable = stored.deltaTable() + "_recomputed";
      statements.put(
          MergeStrategy.GROUP_RECOMPUTE,
          GroupMerge.recompute(
              stored.table(),
              state,
              deltaTable,
              IvmNames.quote(recomputedTable),
              deltaSql,
              unparser.toSql(
                  touchedGroupsState(aggregate, state, delta.plan().getRowType(), recomputedTable)),
              !stored.keepsDelta()));
    }
    return monotoneOnly(statements.buildOrThrow());
  }

  /**
   * {@code statements} without the merges that hold only for a monotone view, if this view is not
   * one ({@link ViewAnalyzer.Analysis#monotone()}): appending an insert-only change, and folding it
   * into MIN and MAX, assume that inserts only add rows, which an outer join's padded rows
   * contradict. A refresh that finds no statements for the merge it would choose takes the view's
   * own strategy.
   */
  ImmutableMap<MergeStrategy, ImmutableList<String>> monotoneOnly(
      ImmutableMap<MergeStrategy, ImmutableList<String>> statements) {
    if (analysis.monotone()) {
      return statements;
    }
    ImmutableMap.Builder<MergeStrategy, ImmutableList<String>> kept = ImmutableMap.builder();
    statements.forEach(
        (merge, list) -> {
          boolean fold =
              merge == MergeStrategy.GROUP_MERGE
                  && analysis.strategy() == MergeStrategy.GROUP_RECOMPUTE;
          if (merge != MergeStrategy.BAG_APPEND && merge != MergeStrategy.GROUP_APPEND && !fold) {
            kept.put(merge, list);
          }
        });
    return kept.buildOrThrow();
  }

  /**
   * The state of some groups computed from the base data: the aggregate's input joined
   * (NULL-safely) with the keys in {@code deltaTable}, a table of the view delta's row type with
   * one row per group.
   */
  private static RelNode touchedGroupsState(
      Aggregate aggregate, AggregateState state, RelDataType deltaType, String deltaTable) {
    RelBuilder builder = IvmRelBuilders.withSchemaOf(aggregate);
    if (state.keys().isEmpty()) {
      return state.stateAggregate(builder, aggregate.getInput());
    }
    builder.push(aggregate.getInput());
    // the delta table has one row per group, its keys first: each row of the input joins once (a
    // semi-join's SQL left the input's key unqualified, so that a key column named like the
    // table's ("k1") matched itself and every group was recomputed)
    IvmRelBuilders.joinKeysIn(builder, aggregate.getGroupSet().asList(), deltaTable, deltaType);
    int inputFields = aggregate.getInput().getRowType().getFieldCount();
    // constants stay constants, not columns of the joined input: an argument such as the 0.25 of
    // quantile_cont(x, 0.25) must be a constant in DuckDB
    List<RexNode> columns = new ArrayList<>(builder.fields().subList(0, inputFields));
    if (aggregate.getInput() instanceof Project project) {
      for (int i = 0; i < inputFields; i++) {
        if (project.getProjects().get(i) instanceof RexLiteral literal) {
          columns.set(i, literal);
        }
      }
    }
    builder.project(columns, aggregate.getInput().getRowType().getFieldNames(), true);
    return state.stateAggregate(builder, builder.build());
  }

  /** Renames a delta plan's columns to {@code c1..cn} and the weight, as the merge expects. */
  static RelNode withDeltaColumnNames(RelBuilder builder, RelNode delta) {
    int columns = delta.getRowType().getFieldCount() - 1;
    List<String> names = new ArrayList<>();
    for (int i = 0; i < columns; i++) {
      names.add(BagMerge.deltaColumn(i));
    }
    names.add(ZSets.WEIGHT_COLUMN);
    return builder.push(delta).project(builder.fields(), names, true).build();
  }
}
