package org.calciteivm.core;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.List;

/**
 * What a refresh of one view runs, compiled once per view and reused until the view is dropped.
 *
 * <p>A refresh first materializes the consolidated pending change of every base table ({@link
 * Input#materializeSql()}, with the view's watermark and the sealed epoch as parameters), then runs
 * the statements of the merge strategy it {@linkplain #choose chooses} for that refresh.
 *
 * @param viewName the view's name
 * @param strategy the merge strategy the view's shape needs
 * @param deltaPlan the delta plan, as Calcite explains it, for EXPLAIN
 * @param hiddenColumns the columns of the stored view that users do not see
 * @param inputs one entry per base table
 * @param statements for each strategy this view can use, the statements that apply its delta
 */
public record RefreshProgram(
    String viewName,
    MergeStrategy strategy,
    String deltaPlan,
    ImmutableList<String> hiddenColumns,
    ImmutableList<Input> inputs,
    ImmutableMap<MergeStrategy, ImmutableList<String>> statements) {

  /**
   * A base table of the view.
   *
   * @param tableId the tracked table's id
   * @param pendingTable the temporary table that receives its consolidated pending change
   * @param materializeSql creates {@code pendingTable}; parameters: the view's watermark, then the
   *     epoch sealed by this refresh
   */
  public record Input(int tableId, String pendingTable, String materializeSql) {}

  /** What is known about the pending change when a refresh starts. */
  public record PendingChange(long rows, boolean insertOnly) {}

  /**
   * Chooses the merge strategy of one refresh. This is the only place the choice is made. The
   * append-only fast paths need every pending change to be an insert and their setting to be on: a
   * filter, projection or aggregate cannot turn an insert into a delete, so the view's change is
   * insert-only too.
   */
  public MergeStrategy choose(PendingChange pending, IvmSettings settings) {
    boolean insertOnly = pending.insertOnly();
    switch (strategy) {
      case BAG_COUNTED:
        return insertOnly && settings.isEnabled(IvmSetting.SKIP_PROJECTION_DELETE)
            ? MergeStrategy.BAG_APPEND
            : MergeStrategy.BAG_COUNTED;
      case GROUP_RECOMPUTE:
        if (!insertOnly || !settings.isEnabled(IvmSetting.MINMAX_INCREMENTAL)) {
          return MergeStrategy.GROUP_RECOMPUTE;
        }
        // MIN and MAX only grow towards new values: fold them like the invertible aggregates
        return groupMerge(insertOnly, settings);
      case GROUP_MERGE:
        return groupMerge(insertOnly, settings);
      default:
        throw new IllegalStateException("a view's own strategy cannot be " + strategy);
    }
  }

  private static MergeStrategy groupMerge(boolean insertOnly, IvmSettings settings) {
    return insertOnly && settings.isEnabled(IvmSetting.SKIP_AGGREGATE_DELETE)
        ? MergeStrategy.GROUP_APPEND
        : MergeStrategy.GROUP_MERGE;
  }

  /** The statements that apply the view delta under {@code chosen}. */
  public List<String> statementsFor(MergeStrategy chosen) {
    ImmutableList<String> list = statements.get(chosen);
    if (list == null) {
      throw new IllegalStateException("view " + viewName + " has no program for " + chosen);
    }
    return list;
  }
}
