package org.calciteivm.rules.api;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.core.analysis.ViewAnalyzer;
import org.calciteivm.rules.IvmRelBuilders;
import org.calciteivm.rules.aggregate.AggregateState;
import org.calciteivm.rules.consolidate.Consolidation;
import org.calciteivm.rules.delta.DeltaContext;
import org.calciteivm.rules.delta.DeltaDerivation;
import org.calciteivm.rules.delta.JoinTerms;
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

  MaintainedView(String name, RelNode plan, ViewAnalyzer.Analysis analysis) {
    this.name = name;
    this.plan = plan;
    this.analysis = analysis;
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

  /** What the analysis found: base tables, columns read, merge strategy, aggregate. */
  public ViewAnalyzer.Analysis analysis() {
    return analysis;
  }

  /** The qualified names of the tables the view reads. */
  public ImmutableList<List<String>> baseTables() {
    return analysis.baseTables();
  }

  /** Per base table, the columns the view reads: only their changes need to be captured. */
  public ImmutableMap<List<String>, ImmutableSet<String>> usedColumns() {
    return analysis.usedColumns();
  }

  /** The view's aggregate, or null for a view without one. */
  public @Nullable Aggregate aggregate() {
    return analysis.aggregate();
  }

  /** The names of the hidden state columns an aggregate view stores after its group keys. */
  public ImmutableList<String> stateColumns() {
    Aggregate aggregate = analysis.aggregate();
    return aggregate == null
        ? ImmutableList.of()
        : AggregateState.of(aggregate).state().stream()
            .map(AggregateState.StateColumn::name)
            .collect(ImmutableList.toImmutableList());
  }

  /** The delta program for {@code change}. */
  public DeltaProgram delta(Change change) {
    Set<String> pruned = new LinkedHashSet<>();
    DeltaContext context =
        new DeltaContext(
            table -> change.changedTables().contains(table.getQualifiedName()),
            table -> change.insertOnlyTables().contains(table.getQualifiedName()),
            pruned::add);
    List<JoinTerms.Leaf> leaves = JoinTerms.leaves(plan, context);
    ImmutableList<String> terms =
        leaves.size() > 1
            ? ImmutableList.copyOf(JoinTerms.describe(leaves, change.joins()))
            : ImmutableList.of();
    Aggregate aggregate = analysis.aggregate();
    RelNode delta =
        DeltaDerivation.derive(aggregate == null ? plan : aggregate, change.joins(), context);
    RelNode consolidated =
        aggregate == null
            ? Consolidation.consolidate(IvmRelBuilders.create(delta.getCluster()), delta)
            : delta;
    return new DeltaProgram(
        change.joins(),
        delta,
        consolidated,
        terms,
        ImmutableList.copyOf(pruned),
        JoinTerms.negativeWeightsPossible(leaves));
  }
}
