package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.sql.SQLException;
import java.util.List;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.jdbc.IvmSetting;
import org.calciteivm.jdbc.IvmSettings;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What a refresh of one view runs, compiled once per view and reused until the view is dropped.
 *
 * <p>A refresh finds which base tables have a pending change and whether it has only inserts,
 * {@linkplain #choose chooses} how to apply it, and runs the statements of that choice. Those
 * depend on the set of changed tables (a join term with an empty delta is left out), so they are
 * compiled once for each set and kept ({@link StoredDeltas}).
 *
 * @param viewName the view's name
 * @param strategy the merge strategy the view's shape needs
 * @param hiddenColumns the columns of the stored view that users do not see
 * @param scannedTableIds the table id of each scan of the view, in join order (a self-join reads
 *     one table twice)
 * @param deltas the delta programs, per set of changed tables and join strategy
 * @param fullRefresh the statements that recompute the view's stored content from its query
 * @param costs what the view's past refreshes cost, from which {@code auto} chooses
 */
public record RefreshProgram(
    String viewName,
    MergeStrategy strategy,
    ImmutableList<String> hiddenColumns,
    ImmutableList<Integer> scannedTableIds,
    StoredDeltas deltas,
    ImmutableList<String> fullRefresh,
    RefreshCosts costs) {

  /**
   * What is known about the pending change when a refresh starts.
   *
   * @param changedTableIds the base tables with captured change rows to apply
   * @param insertOnlyTableIds those of them whose change rows all have a positive weight
   * @param deleteOnlyTableIds those of them whose change rows all have a negative weight
   */
  public record PendingChange(
      ImmutableSet<Integer> changedTableIds,
      ImmutableSet<Integer> insertOnlyTableIds,
      ImmutableSet<Integer> deleteOnlyTableIds) {

    /** A pending change none of whose tables is known to be delete-only. */
    public PendingChange(
        ImmutableSet<Integer> changedTableIds, ImmutableSet<Integer> insertOnlyTableIds) {
      this(changedTableIds, insertOnlyTableIds, ImmutableSet.of());
    }

    /** Whether every pending change row has a positive weight. */
    public boolean insertOnly() {
      return insertOnlyTableIds.containsAll(changedTableIds);
    }
  }

  /**
   * The compiled delta of a view for one set of changed tables.
   *
   * @param joins the join expansion used
   * @param terms the terms of the join expansion, one line each, for EXPLAIN (empty without join)
   * @param pruned the terms left out because declared keys prove them empty, for EXPLAIN
   * @param deltaPlan the delta plan, as Calcite explains it, for EXPLAIN
   * @param negativeWeightsPossible whether the view delta may have rows of negative weight even
   *     when every change is an insert (then the append path consolidates it first)
   * @param statements for each merge strategy this view can use, the statements that apply it
   */
  public record Delta(
      JoinStrategy joins,
      ImmutableList<String> terms,
      ImmutableList<String> pruned,
      String deltaPlan,
      boolean negativeWeightsPossible,
      ImmutableMap<MergeStrategy, ImmutableList<String>> statements) {

    /** The statements that apply the view delta under {@code chosen}. */
    public List<String> statementsFor(MergeStrategy chosen) {
      ImmutableList<String> list = statements.get(chosen);
      if (list == null) {
        throw new IllegalStateException("no program for " + chosen);
      }
      return list;
    }
  }

  /**
   * How one refresh applies its change.
   *
   * @param delta the delta program, or null for a recompute
   * @param merge the merge strategy, {@link MergeStrategy#FULL_RECOMPUTE} for a recompute
   * @param statements the statements that apply it
   */
  public record Choice(@Nullable Delta delta, MergeStrategy merge, List<String> statements) {}

  /**
   * Chooses how to bring the view up to date for {@code pending}, of {@code changeRows} change rows
   * in all: incremental or full, as {@code ivm_refresh_mode} says; for {@code auto} full when
   * {@link RefreshCosts#estimate} says it saves at least a fifth and 2 ms, incremental otherwise
   * and while either cost is unknown. This is, with {@link #incremental}, the only place the choice
   * is made.
   */
  public Choice choose(PendingChange pending, long changeRows, IvmSettings settings)
      throws SQLException {
    if (fullRefreshCheaper(pending, changeRows, settings)) {
      return recompute();
    }
    return incremental(pending, settings);
  }

  /** Recomputes the view, whatever is pending. */
  public Choice recompute() {
    return new Choice(null, MergeStrategy.FULL_RECOMPUTE, fullRefresh);
  }

  /** Whether {@link #choose} recomputes the view for {@code pending}. */
  public boolean fullRefreshCheaper(PendingChange pending, long changeRows, IvmSettings settings) {
    switch (settings.refreshMode()) {
      case FULL:
        return true;
      case INCREMENTAL:
        return false;
      default:
        return costs.recomputeCheaper(incrementalMerge(pending, settings), changeRows);
    }
  }

  /**
   * Applies {@code pending} incrementally: its delta program and merge strategy.
   *
   * <p>The join expansion is the setting's, or for {@code auto}: inclusion-exclusion when at most
   * one scan of the view has changed (both expansions are then the same single term), telescoping
   * otherwise ({@code k} terms instead of {@code 2^k - 1}, each reading at most as much as the
   * matching inclusion-exclusion term plus the small deltas of its previous states).
   *
   * <p>The append-only fast paths need every pending change to be an insert and their setting to be
   * on. A view of filters, projections and inner joins is monotone, so an insert-only change can
   * only add rows to it, and an aggregate state only grows; MIN and MAX then move only towards the
   * new values.
   */
  public Choice incremental(PendingChange pending, IvmSettings settings) throws SQLException {
    Delta delta = deltas.compile(pending, joinStrategy(pending, settings));
    MergeStrategy merge = incrementalMerge(pending, settings);
    if (!delta.statements().containsKey(merge)) {
      // its aggregates cannot fold even an insert in (median, ...): touched groups are recomputed
      merge = strategy;
    }
    return new Choice(delta, merge, delta.statementsFor(merge));
  }

  /** The merge strategy that applies {@code pending} incrementally. */
  public MergeStrategy incrementalMerge(PendingChange pending, IvmSettings settings) {
    boolean insertOnly = pending.insertOnly();
    MergeStrategy merge;
    switch (strategy) {
      case BAG_COUNTED:
        merge =
            insertOnly && settings.isEnabled(IvmSetting.SKIP_PROJECTION_DELETE)
                ? MergeStrategy.BAG_APPEND
                : MergeStrategy.BAG_COUNTED;
        break;
      case GROUP_RECOMPUTE:
        merge =
            insertOnly && settings.isEnabled(IvmSetting.MINMAX_INCREMENTAL)
                ? groupMerge(true, settings)
                : MergeStrategy.GROUP_RECOMPUTE;
        break;
      case GROUP_MERGE:
        merge = groupMerge(insertOnly, settings);
        break;
      default:
        throw new IllegalStateException("a view's own strategy cannot be " + strategy);
    }
    return merge;
  }

  /** The join expansion for {@code pending}: the setting, with {@code auto} resolved. */
  public JoinStrategy joinStrategy(PendingChange pending, IvmSettings settings) {
    JoinStrategy requested = settings.joinStrategy();
    if (requested != JoinStrategy.AUTO) {
      return requested;
    }
    long changedScans =
        scannedTableIds.stream().filter(pending.changedTableIds()::contains).count();
    return changedScans > 1 ? JoinStrategy.TELESCOPING : JoinStrategy.INCLUSION_EXCLUSION;
  }

  private static MergeStrategy groupMerge(boolean insertOnly, IvmSettings settings) {
    return insertOnly && settings.isEnabled(IvmSetting.SKIP_AGGREGATE_DELETE)
        ? MergeStrategy.GROUP_APPEND
        : MergeStrategy.GROUP_MERGE;
  }
}
