package org.calciteivm.rules.api;

import java.util.List;

/**
 * What a view's stored table holds beyond the view's own columns, and how it is read.
 *
 * <ul>
 *   <li>An aggregate view stores one row per group: the group keys ({@link #keys()}, named {@code
 *       k1..kn}, in the order of the view's {@code GROUP BY}), then the hidden {@link #columns()}:
 *       {@code _ivm_count}, the group's row count (a group exists while it is positive), and per
 *       aggregate its state ({@code ai_sum} and {@code ai_count} for {@code SUM} and {@code AVG},
 *       with {@code ai_nan}, {@code ai_posinf} and {@code ai_neginf} for a sum of floating-point
 *       values, the counts of its NaNs and infinities, which {@code ai_sum} leaves out, {@code
 *       ai_count} for {@code COUNT}, the current extreme and how many rows hold it ({@code ai_min}
 *       and {@code ai_min_count}) for {@code MIN} and {@code MAX}, ...). A sum or count that an
 *       earlier column already holds is stored once, under the earlier column's name: the count of
 *       a {@code SUM} over a never-NULL argument is {@code _ivm_count}, and {@code AVG(x)} beside
 *       {@code SUM(x)} has no columns of its own. The view's values are computed from them by
 *       {@link MaintainedView#readSql}.
 *   <li>A view without aggregate on a {@linkplain SqlTarget#countsBagRows() standard target} stores
 *       each distinct row once: its columns ({@link #keys()}, the view's column names) and {@code
 *       _ivm_count}, its number of copies.
 *   <li>A view without aggregate on DuckDB stores its rows, one per copy: no keys, no hidden
 *       columns.
 * </ul>
 *
 * @param keys the columns that identify a stored row, first in the stored table
 * @param columns the hidden columns after them, in order
 * @param calls per aggregate call of the view, in order, the names of the hidden columns its value
 *     is computed from, in its kind's order (for {@code SUM} and {@code AVG} the sum, then the
 *     non-null count), which may be columns an earlier call or the row count holds; none for a view
 *     without aggregate
 */
public record StateLayout(List<String> keys, List<Column> columns, List<List<String>> calls) {

  public StateLayout {
    keys = List.copyOf(keys);
    columns = List.copyOf(columns);
    calls = calls.stream().map(List::copyOf).toList();
  }

  /** How a hidden column takes a change. */
  public enum Kind {
    /** A count: the stored value plus the change. */
    COUNT,
    /**
     * A sum: the stored value plus the change, NULL counting as 0 (its count says if it is NULL).
     */
    SUM,
    /** A minimum: the smaller of both, only when nothing was deleted. */
    MIN,
    /** A maximum: the larger of both, only when nothing was deleted. */
    MAX,
    /** How many rows hold the minimum: merged from the minimum's change (NULL: unknown). */
    MIN_COUNT,
    /** How many rows hold the maximum: merged from the maximum's change (NULL: unknown). */
    MAX_COUNT,
    /** A value only a recompute of its group writes. */
    RECOMPUTED
  }

  /**
   * A hidden column of the stored state.
   *
   * @param name its name in the stored table
   * @param kind how a change is merged into it
   * @param aggregate the position (0-based) among the view's aggregate calls of the first aggregate
   *     it belongs to (later ones may read it too), or -1 for the row count {@code _ivm_count}
   * @param call that aggregate as Calcite writes it ({@code SUM($2)}), or {@code COUNT()} for the
   *     row count
   */
  public record Column(String name, Kind kind, int aggregate, String call) {}

  /** The names of every column of the stored table, keys first. */
  public List<String> columnNames() {
    return java.util.stream.Stream.concat(keys.stream(), columns.stream().map(Column::name))
        .toList();
  }
}
