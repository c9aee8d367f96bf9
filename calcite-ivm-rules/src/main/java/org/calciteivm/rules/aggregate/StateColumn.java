package org.calciteivm.rules.aggregate;

import java.util.function.UnaryOperator;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A column of an aggregate view's stored state, and how a change is merged into it.
 *
 * @param name the column's name in the stored table
 * @param kind what it holds
 * @param extreme for a count of the rows at a MIN or MAX ({@link Kind#MIN_COUNT}, {@link
 *     Kind#MAX_COUNT}), the name of that extreme's column; null for the other kinds
 */
public record StateColumn(String name, Kind kind, @Nullable String extreme) {

  /** A column whose merge reads only its own stored value and change. */
  public StateColumn(String name, Kind kind) {
    this(name, kind, null);
  }

  /**
   * The SQL of the merged value, given the SQL of a column's stored value ({@code stored}) and of
   * its change ({@code change}) by the column's name; standard SQL.
   */
  public String merged(UnaryOperator<String> stored, UnaryOperator<String> change) {
    if (extreme == null) {
      return kind.merged(stored.apply(name), change.apply(name));
    }
    // the change carries the extreme of its rows of positive weight with their count at it, then
    // the extreme of its rows of negative weight with theirs (ExtremeAggregate); a new extreme's
    // count is its inserted rows less the deleted ones at the same value (a join expansion's
    // cancelled rows), the stored extreme's its count plus both
    String storedExtreme = stored.apply(extreme);
    String inserted = change.apply(extreme);
    return "CASE WHEN "
        + inserted
        + " IS NOT NULL AND ("
        + storedExtreme
        + " IS NULL OR "
        + inserted
        + (kind == Kind.MIN_COUNT ? " < " : " > ")
        + storedExtreme
        + ") THEN "
        + netAt(inserted, change)
        + " ELSE "
        + stored.apply(name)
        + " + CASE WHEN "
        + inserted
        + " = "
        + storedExtreme
        + " THEN "
        + change.apply(name)
        + " ELSE 0 END - "
        + deletedAt(storedExtreme, change)
        + " END";
  }

  /** The SQL of the value of a new group, given the SQL of a column's change by its name. */
  public String initial(UnaryOperator<String> change) {
    if (extreme != null) {
      return "coalesce(" + netAt(change.apply(extreme), change) + ", 0)";
    }
    return kind == Kind.COUNT ? "coalesce(" + change.apply(name) + ", 0)" : change.apply(name);
  }

  /** The change's inserted rows at the value {@code value} less its deleted rows there. */
  private String netAt(String value, UnaryOperator<String> change) {
    return change.apply(name) + " - " + deletedAt(value, change);
  }

  /** The change's deleted rows at the value {@code value}: its deleted count if it is there. */
  private String deletedAt(String value, UnaryOperator<String> change) {
    String deleted = change.apply(extreme + ExtremeAggregate.DELETED);
    String deletedCount = change.apply(extreme + ExtremeAggregate.DELETED + ExtremeAggregate.COUNT);
    return "CASE WHEN " + deleted + " = " + value + " THEN " + deletedCount + " ELSE 0 END";
  }

  /**
   * A linear measure of a group's rows that the state of several aggregates may need: {@code
   * SUM(x)} and {@code AVG(x)} both keep the sum of {@code x} and the count of its non-null values,
   * {@code COUNT(x)} that count, and where {@code x} is never NULL that count is the group's row
   * count. The stored state keeps each once; every refresh writes every stored column, so a column
   * less is a cost less.
   */
  public enum Measure {
    /** The count of the rows where the aggregate's arguments are all non-null. */
    COUNT,
    /** The sum of the aggregate's first argument (of its finite values, if floating-point). */
    SUM,
    /**
     * How many of the rows have a NaN as the aggregate's first argument ({@link SpecialValues}).
     */
    NAN_COUNT,
    /** How many of the rows have +infinity as the aggregate's first argument. */
    POSITIVE_INFINITY_COUNT,
    /** How many of the rows have -infinity as the aggregate's first argument. */
    NEGATIVE_INFINITY_COUNT
  }

  /** What a state column holds, which decides how a change is merged into it. */
  public enum Kind {
    /** A count: merged by addition; a group's new count starts at zero. */
    COUNT,
    /** A sum: merged by addition, NULL as zero (a matching count says whether it is NULL). */
    SUM,
    /** A minimum: the smaller of both, only when nothing was deleted. */
    MIN,
    /** A maximum: the larger of both, only when nothing was deleted. */
    MAX,
    /**
     * A lower bound of how many rows hold the group's minimum; NULL if unknown (a view stored
     * before such counts were kept). Merged from the minimum's change, see {@link
     * StateColumn#merged}.
     */
    MIN_COUNT,
    /** A lower bound of how many rows hold the group's maximum; as {@link #MIN_COUNT}. */
    MAX_COUNT,
    /** A value only a recompute of its group writes: a merge leaves it as it is. */
    RECOMPUTED;

    /**
     * The SQL of the merged value, given SQL for the stored value and for its change; standard SQL
     * (engines' LEAST and GREATEST differ on NULLs: a NULL extreme is one over no value). The
     * counts of an extreme read other columns: {@link StateColumn#merged}.
     */
    String merged(String stored, String change) {
      return switch (this) {
        case COUNT -> stored + " + coalesce(" + change + ", 0)";
        case SUM -> "coalesce(" + stored + ", 0) + coalesce(" + change + ", 0)";
        case MIN, MAX ->
            "CASE WHEN "
                + change
                + " IS NULL THEN "
                + stored
                + " WHEN "
                + stored
                + " IS NULL OR "
                + change
                + (this == MIN ? " < " : " > ")
                + stored
                + " THEN "
                + change
                + " ELSE "
                + stored
                + " END";
        case MIN_COUNT, MAX_COUNT ->
            throw new IllegalStateException("a count of an extreme merges with its extreme");
        case RECOMPUTED -> stored;
      };
    }
  }
}
