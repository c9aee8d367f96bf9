package org.calciteivm.cli.bench;

/**
 * One measured change cycle of the benchmark: a change of one kind and size applied to the base
 * tables of one view, then the view refreshed under one {@code ivm_refresh_mode} and compared with
 * a recompute. Under the {@code immediate} {@link #timing} the write itself brings the view up to
 * date, so its time includes the view's maintenance and the refresh after it finds nothing pending.
 *
 * @param view the view's short name ({@code q1}, {@code join}, ...)
 * @param kind the kind of change ({@code insert}, {@code append}, {@code delete}, {@code update},
 *     {@code update_key}, {@code update_one})
 * @param deltaFraction the size of the change as a fraction of the orders ({@code 0.001} = 0.1%)
 * @param requestedMode the {@code ivm_refresh_mode} the cycle ran under: {@code auto}, {@code
 *     incremental} or {@code full}
 * @param timing the view's refresh timing ({@link Timing}): {@code deferred} (brought up to date by
 *     the refresh) or {@code immediate} (by the captured write)
 * @param rep the repetition, from 1 (a warm-up cycle is not recorded)
 * @param changedRows base-table rows the change inserted, deleted or updated, over all tables
 * @param capturedDmlMillis the change's DML through the calcite-ivm driver (captured; under {@code
 *     immediate}, with the view's maintenance)
 * @param plainDmlMillis the same DML on plain DuckDB (a copy of the database without views)
 * @param refreshMillis {@code REFRESH MATERIALIZED VIEW} after the change
 * @param mergeMillis the part of the refresh spent in its merge or recompute statements, as {@code
 *     ivm_views.last_merge_ms} reports it; 0 if the refresh found nothing pending
 * @param mode what the refresh did, as {@code ivm_views.last_refresh_mode} reports it: {@code
 *     incremental} or {@code full}; {@value #NO_REFRESH} if it found nothing pending (a change of
 *     columns the view does not read is not captured for it)
 * @param recomputeMillis the view's query recomputed from scratch ({@code CREATE OR REPLACE TABLE
 *     ... AS}) on the same data
 * @param noopRefreshMillis a refresh with no pending change, right after the measured one
 * @param peakMemoryBytes DuckDB's memory in use after the refresh plus the JVM heap in use
 * @param correct whether the view equalled its recompute as a bag after the refresh
 */
public record Measurement(
    String view,
    String kind,
    double deltaFraction,
    String requestedMode,
    String timing,
    int rep,
    long changedRows,
    double capturedDmlMillis,
    double plainDmlMillis,
    double refreshMillis,
    double mergeMillis,
    String mode,
    double recomputeMillis,
    double noopRefreshMillis,
    long peakMemoryBytes,
    boolean correct) {

  /**
   * The {@link #mode} of a refresh that found nothing pending, and so neither merged nor
   * recomputed.
   */
  public static final String NO_REFRESH = "none";

  /** How many times faster the refresh is than the recompute. */
  public double speedup() {
    return recomputeMillis / refreshMillis;
  }

  /** Changed base rows applied to the view per second of refresh. */
  public double rowsPerSecond() {
    return changedRows / (refreshMillis / 1000.0);
  }

  /** The captured DML's time relative to the plain DML's. */
  public double captureOverhead() {
    return capturedDmlMillis / plainDmlMillis;
  }

  /**
   * What the captured DML took beyond the plain DML: captured − plain, in ms (under {@code
   * immediate}, the capture and the view's maintenance).
   */
  public double captureCostMillis() {
    return capturedDmlMillis - plainDmlMillis;
  }

  /**
   * The refresh's time outside its merge or recompute statements (the statements around the merge,
   * the commit, the round trip): refresh time − merge time; NaN if the merge time is unknown.
   */
  public double overheadMillis() {
    return refreshMillis - mergeMillis;
  }
}
