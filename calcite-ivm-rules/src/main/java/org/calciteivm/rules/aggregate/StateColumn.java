package org.calciteivm.rules.aggregate;

/**
 * A column of an aggregate view's stored state, and how a change is merged into it.
 *
 * @param name the column's name in the stored table
 * @param kind what it holds
 */
public record StateColumn(String name, Kind kind) {

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
    /** A value only a recompute of its group writes: a merge leaves it as it is. */
    RECOMPUTED;

    /**
     * The SQL of the merged value, given SQL for the stored value and for its change; standard SQL
     * (engines' LEAST and GREATEST differ on NULLs: a NULL extreme is one over no value).
     */
    public String merged(String stored, String change) {
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
        case RECOMPUTED -> stored;
      };
    }

    /** The SQL of the value of a new group, given SQL for its change. */
    public String initial(String change) {
      return this == COUNT ? "coalesce(" + change + ", 0)" : change;
    }
  }
}
