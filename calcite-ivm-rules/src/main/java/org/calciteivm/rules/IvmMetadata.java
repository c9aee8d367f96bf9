package org.calciteivm.rules;

import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.rel.metadata.JaninoRelMetadataProvider;
import org.apache.calcite.rel.metadata.RelMetadataQueryBase;

/**
 * Calcite's metadata on any thread. Calcite keeps the metadata handlers of a query in a thread
 * local that its planners set on the thread that plans; a view's delta programs are derived later,
 * often on another thread (whichever refreshes the view), where the rules' metadata queries would
 * fail ({@code NullPointerException: metadataHandlerProvider}).
 */
public final class IvmMetadata {
  private IvmMetadata() {}

  /**
   * Makes metadata queries work on the current thread for plans of {@code cluster}: installs the
   * handlers of the cluster's own metadata provider if the thread has none (a thread that planned
   * keeps its own).
   */
  public static void onThisThread(RelOptCluster cluster) {
    if (RelMetadataQueryBase.THREAD_PROVIDERS.get() == null) {
      RelMetadataQueryBase.THREAD_PROVIDERS.set(
          JaninoRelMetadataProvider.of(cluster.getMetadataProvider()));
    }
  }

  /** As {@link #onThisThread(RelOptCluster)}, with Calcite's default metadata. */
  public static void onThisThread() {
    if (RelMetadataQueryBase.THREAD_PROVIDERS.get() == null) {
      RelMetadataQueryBase.THREAD_PROVIDERS.set(JaninoRelMetadataProvider.DEFAULT);
    }
  }
}
