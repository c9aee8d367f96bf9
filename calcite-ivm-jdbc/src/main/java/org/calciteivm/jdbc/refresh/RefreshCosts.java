package org.calciteivm.jdbc.refresh;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.jdbc.catalog.RefreshStatistics.Cost;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What a view's past refreshes cost, per merge strategy ({@link MergeStrategy#FULL_RECOMPUTE} for a
 * recompute): the change rows of the last refresh of each kind and how long its merge took. Kept in
 * the catalog ({@code _ivm.views.refresh_costs}, written by each refresh's own transaction), so it
 * survives a restart; {@code CREATE MATERIALIZED VIEW} records its population as the first
 * recompute (which is no price for a view that writes its change, {@link #ofChangeWriter}).
 *
 * <p>{@link #estimate} scales a merge's time with the change rows: the work of a merge is the
 * change's rows (and, for a join, the rows they meet), while a recompute reads the whole input
 * whatever the change. Both err the safe way for {@code auto}: a change much larger than the last
 * looks expensive to merge, and the recompute's cost is re-measured each time it is chosen.
 */
public final class RefreshCosts {
  private final Map<MergeStrategy, Cost> costs = new HashMap<>();

  /** The costs as the catalog holds them (the refreshes write them only when they move). */
  private final Map<MergeStrategy, Cost> stored = new HashMap<>();

  /**
   * The rows of change an incremental refresh of this view wrote per change row it consumed, the
   * last time it wrote its change in this process; 1 until then.
   */
  private double changeWrittenPerRow = 1;

  /** Costs read from the catalog. */
  public RefreshCosts(Map<MergeStrategy, Cost> costs) {
    this.costs.putAll(costs);
    this.stored.putAll(costs);
  }

  /**
   * The costs read from the catalog of a view whose refreshes write its change, that other views
   * read: its population by CREATE is no price of its recompute, which also writes every row before
   * and after as its change (a hidden view of 460,000 per-(group, value) counts at SF 1: populated
   * in about 50 ms, recomputed with its change in 700 ms), so it is left out and {@code auto}
   * merges until a recompute is measured.
   */
  static RefreshCosts ofChangeWriter(Map<MergeStrategy, Cost> costs) {
    RefreshCosts result = new RefreshCosts(costs);
    Cost recompute = result.costs.get(MergeStrategy.FULL_RECOMPUTE);
    if (recompute != null && recompute.changeRows() == 0) {
      result.costs.remove(MergeStrategy.FULL_RECOMPUTE);
    }
    return result;
  }

  /**
   * Whether a refresh that merged {@code changeRows} rows with {@code merge} in {@code millis} must
   * write its cost into the catalog: when none is stored for {@code merge}, or the stored one's
   * rows or time differ from these by more than a quarter. Writing the cost rewrites the view's
   * catalog row (DuckDB updates a row with a MAP column as a delete and an insert: 2–4 ms with the
   * commit, against about 1 ms for the refresh's other statistics), and {@code auto}'s estimates
   * are rough anyway. If it must, the cost counts as stored from now on (should the refresh's
   * transaction roll back, the catalog keeps an older cost, which only makes an estimate after a
   * restart less fresh).
   */
  public synchronized boolean mustStore(MergeStrategy merge, long changeRows, double millis) {
    Cost old = stored.get(merge);
    if (old != null
        && within(old.changeRows(), changeRows, 1.25)
        && within(old.millis(), millis, 1.25)) {
      return false;
    }
    stored.put(merge, new Cost(changeRows, millis));
    return true;
  }

  private static boolean within(double a, double b, double factor) {
    return a <= b * factor && b <= a * factor;
  }

  /**
   * The time {@code auto} keeps of a refresh that merged {@code changeRows} rows with {@code merge}
   * in {@code millis}: a merge at most 1.5 times as long per change row as the last merge of a
   * change of about its size (within twice or half its rows). While {@code auto} recomputes, the
   * merge is not measured again, so one slow merge (the machine busy, a checkpoint) kept as it was
   * would switch {@code auto} to recomputing for good: at SF 1 a TPC-H Q3 merge of 7,326 rows took
   * 57 ms once between 19 and 27 ms, and the next three refreshes recomputed in 60–67 ms where a
   * merge takes about 25. A lasting slowdown still shows, by half again per refresh. A recompute is
   * kept as it was: it is measured again each time it is chosen.
   */
  public synchronized double remembered(MergeStrategy merge, long changeRows, double millis) {
    Cost last = costs.get(merge);
    if (merge == MergeStrategy.FULL_RECOMPUTE
        || last == null
        || !within(last.changeRows(), changeRows, 2)) {
      return millis;
    }
    return Math.min(
        millis, 1.5 * last.millis() * Math.max(1, changeRows) / Math.max(1, last.changeRows()));
  }

  /** Records a refresh that committed, as {@link #remembered} keeps its time. */
  public synchronized void record(MergeStrategy merge, long changeRows, double millis) {
    costs.put(merge, new Cost(changeRows, remembered(merge, changeRows, millis)));
  }

  /** The last refresh that merged with {@code merge}, or null. */
  public synchronized @Nullable Cost last(MergeStrategy merge) {
    return costs.get(merge);
  }

  /**
   * The estimated time of a merge with {@code merge} of {@code changeRows} rows, or null if no
   * refresh merged so: proportional to the rows, from the last such refresh; a recompute costs what
   * the last one did.
   */
  public synchronized @Nullable Double estimate(MergeStrategy merge, long changeRows) {
    Cost cost = costs.get(merge);
    if (cost == null) {
      return null;
    }
    if (merge == MergeStrategy.FULL_RECOMPUTE) {
      return cost.millis();
    }
    return cost.millis() * changeRows / Math.max(1, cost.changeRows());
  }

  /**
   * Whether {@code auto} recomputes rather than merging {@code changeRows} rows with {@code
   * incremental}: when the estimated recompute saves at least a fifth and 2 ms, since estimates are
   * rough and a few milliseconds either way are not worth a recompute that reads every input row;
   * never while either cost is unknown.
   *
   * <p>One exception explores: while the only recompute measured is the view's population by CREATE
   * (a cold start that also made the read view, so a rough price: at SF 1 TPC-H Q4's took 252 ms
   * where a warm recompute takes 32 ms), a merge estimated at a fifth of it or more recomputes
   * once, so that the next choice compares two measured refreshes.
   *
   * <p>A merge is estimated only from a change at least half as large: a merge's time has a fixed
   * part, so scaling a small change's time up overestimates a large one, and while {@code auto}
   * recomputes the merge is not measured again. A change more than twice the last merged one is
   * therefore merged, which measures the merge at its size.
   */
  public synchronized boolean recomputeCheaper(MergeStrategy incremental, long changeRows) {
    Cost lastMerge = costs.get(incremental);
    if (lastMerge == null || changeRows > 2 * Math.max(1, lastMerge.changeRows())) {
      return false;
    }
    Double merge = estimate(incremental, changeRows);
    Double recompute = estimate(MergeStrategy.FULL_RECOMPUTE, changeRows);
    if (merge == null || recompute == null || merge <= 2.0) {
      return false;
    }
    if (costs.get(MergeStrategy.FULL_RECOMPUTE).changeRows() == 0) {
      return merge >= 0.2 * recompute;
    }
    return recompute < 0.8 * merge && merge - recompute > 2.0;
  }

  /**
   * Records that an incremental refresh consumed {@code consumed} rows and wrote {@code written}.
   */
  public synchronized void changeWritten(long consumed, long written) {
    if (consumed > 0) {
      changeWrittenPerRow = (double) written / consumed;
    }
  }

  /**
   * The estimated rows of change an incremental refresh of {@code consumed} change rows writes for
   * the views that read this one, from the last one that wrote its change.
   */
  public synchronized long changeWritten(long consumed) {
    return Math.round(consumed * changeWrittenPerRow);
  }

  /** The costs, for EXPLAIN. */
  @Override
  public synchronized String toString() {
    StringBuilder text = new StringBuilder();
    costs.forEach(
        (merge, cost) ->
            text.append(text.length() == 0 ? "" : ", ")
                .append(
                    String.format(
                        Locale.ROOT,
                        "%s %d rows in %.3f ms",
                        merge,
                        cost.changeRows(),
                        cost.millis())));
    return text.length() == 0 ? "none yet" : text.toString();
  }
}
