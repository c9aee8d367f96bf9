package org.calciteivm.rules.api;

import java.util.List;
import java.util.Set;
import org.calciteivm.core.JoinStrategy;

/**
 * What changed since the view was last brought up to date, and how joins are to be expanded.
 *
 * @param changedTables the qualified names of the base tables whose delta relation may hold rows
 *     (the others are read only as current states; their deltas are taken as empty)
 * @param insertOnlyTables those of them whose delta rows all have a positive weight (declared
 *     foreign keys then prove some join terms empty)
 * @param joins the join expansion: {@code INCLUSION_EXCLUSION}, {@code TELESCOPING}, or {@code
 *     AUTO}: the library chooses, telescoping (one term per changed input) when several of the
 *     view's tables changed, inclusion-exclusion (which then reads no previous state) otherwise
 */
public record Change(
    Set<List<String>> changedTables, Set<List<String>> insertOnlyTables, JoinStrategy joins) {

  public Change {
    changedTables = Set.copyOf(changedTables);
    insertOnlyTables = Set.copyOf(insertOnlyTables);
    if (!changedTables.containsAll(insertOnlyTables)) {
      throw new IllegalArgumentException("an insert-only table must be among the changed tables");
    }
  }

  /** A change to {@code tables}, not known to be insert-only, joins expanded by {@code joins}. */
  public static Change of(JoinStrategy joins, List<List<String>> tables) {
    return new Change(Set.copyOf(tables), Set.of(), joins);
  }

  /**
   * The expansion {@link #joins()} stands for when {@code changedScans} of the view's tables
   * changed.
   */
  JoinStrategy resolvedJoins(long changedScans) {
    if (joins != JoinStrategy.AUTO) {
      return joins;
    }
    return changedScans > 1 ? JoinStrategy.TELESCOPING : JoinStrategy.INCLUSION_EXCLUSION;
  }
}
