package org.calciteivm.core;

/**
 * How a consolidated view delta is applied to the stored view. A view stores the strategy its shape
 * needs; a refresh may pick a cheaper one when the pending changes allow it, or recompute the view
 * (the driver's {@code RefreshProgram.choose}).
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
  BAG_APPEND,
  /**
   * Aggregate view whose aggregates are all invertible (SUM, COUNT, AVG, DISTINCT): the change of
   * every group's state is merged into it with one MERGE; a group whose row count reaches zero is
   * deleted.
   */
  GROUP_MERGE,
  /**
   * Append-only fast path of {@link #GROUP_MERGE}: no group can lose rows, so the MERGE has no
   * delete branch; MIN and MAX fold with LEAST and GREATEST.
   */
  GROUP_APPEND,
  /**
   * Aggregate view with MIN or MAX and a change that deletes: MIN and MAX cannot be inverted, so
   * every group the change touches is recomputed from the base table; other groups stay.
   */
  GROUP_RECOMPUTE,
  /**
   * Any view, when recomputing it is cheaper than applying its change (setting {@code
   * ivm_refresh_mode}): the stored content, hidden state included, is computed again from the
   * view's query as {@code CREATE MATERIALIZED VIEW} computed it; the change logs are consumed as
   * by the other strategies.
   */
  FULL_RECOMPUTE
}
