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
 * @param inputs one entry per base table
 * @param statements for each strategy this view can use, the statements that apply its delta
 */
public record RefreshProgram(
    String viewName,
    MergeStrategy strategy,
    String deltaPlan,
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
   * Chooses the merge strategy of one refresh. This is the only place the choice is made: the
   * append-only fast path needs every pending change to be an insert and its setting to be on.
   */
  public MergeStrategy choose(PendingChange pending, IvmSettings settings) {
    if (strategy == MergeStrategy.BAG_COUNTED
        && pending.insertOnly()
        && settings.isEnabled(IvmSetting.SKIP_PROJECTION_DELETE)) {
      return MergeStrategy.BAG_APPEND;
    }
    return strategy;
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
