package org.calciteivm.core;

/**
 * How a consolidated view delta is applied to the stored view. A view stores the strategy its shape
 * needs; a refresh may pick a cheaper one when the pending changes allow it.
 */
public enum MergeStrategy {
  /**
   * Bag view (projections and filters): net inserts are fanned out with {@code generate_series},
   * net deletes remove exactly that many copies of the tuple.
   */
  BAG_COUNTED,
  /**
   * Append-only fast path of {@link #BAG_COUNTED}: every pending change is an insert, so the delta
   * rows are appended without consolidation or delete.
   */
  BAG_APPEND
}
