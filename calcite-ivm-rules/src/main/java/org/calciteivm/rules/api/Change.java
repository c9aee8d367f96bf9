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
 * @param deleteOnlyTables those of them whose delta rows all have a negative weight (declared
 *     foreign keys prove other join terms empty)
 * @param joins the join expansion: {@code INCLUSION_EXCLUSION}, {@code TELESCOPING}, or {@code
 *     AUTO}: the library chooses, telescoping (one term per changed input) when several of the
 *     view's tables changed, inclusion-exclusion (which then reads no previous state) otherwise
 */
public record Change(
    Set<List<String>> changedTables,
    Set<List<String>> insertOnlyTables,
    Set<List<String>> deleteOnlyTables,
    JoinStrategy joins) {

  public Change {
    changedTables = Set.copyOf(changedTables);
    insertOnlyTables = Set.copyOf(insertOnlyTables);
    deleteOnlyTables = Set.copyOf(deleteOnlyTables);
    if (!changedTables.containsAll(insertOnlyTables)
        || !changedTables.containsAll(deleteOnlyTables)) {
      throw new IllegalArgumentException(
          "an insert-only or delete-only table must be among the changed tables");
    }
    if (insertOnlyTables.stream().anyMatch(deleteOnlyTables::contains)) {
      throw new IllegalArgumentException(
          "a changed table cannot be both insert-only and delete-only");
    }
  }

  /** A change none of whose tables is known to be delete-only. */
  public Change(
      Set<List<String>> changedTables, Set<List<String>> insertOnlyTables, JoinStrategy joins) {
    this(changedTables, insertOnlyTables, Set.of(), joins);
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
