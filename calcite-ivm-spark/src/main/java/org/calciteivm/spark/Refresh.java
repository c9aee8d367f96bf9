package org.calciteivm.spark;

import java.util.List;
import org.calciteivm.core.MergeStrategy;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What a refresh of a view did.
 *
 * @param view the view
 * @param changedTables the base tables with new snapshots since the view's watermarks, which the
 *     refresh consumed; empty if the view was up to date
 * @param merge how the change was merged ({@code null} if nothing changed, or for a full refresh)
 * @param full whether the view was recomputed from its query instead
 * @param millis how long the refresh took
 * @param planMillis of which planning the view and reading the snapshots and watermarks
 * @param changesMillis of which creating the changelog views and deriving the delta
 * @param mergeMillis of which the MERGE (or the recompute), Spark's job and Iceberg's commit
 */
public record Refresh(
    String view,
    List<List<String>> changedTables,
    @Nullable MergeStrategy merge,
    boolean full,
    long millis,
    long planMillis,
    long changesMillis,
    long mergeMillis) {

  public Refresh {
    changedTables = List.copyOf(changedTables);
  }
}
