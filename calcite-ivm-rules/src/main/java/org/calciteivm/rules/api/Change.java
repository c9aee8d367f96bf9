package org.calciteivm.rules.api;

import com.google.common.collect.ImmutableSet;
import java.util.List;
import org.calciteivm.core.JoinStrategy;

/**
 * What changed since the view was last brought up to date, and how joins are to be expanded.
 *
 * @param changedTables the qualified names of the base tables whose delta relation may hold rows
 *     (the others are read only as current states; their deltas are taken as empty)
 * @param insertOnlyTables those of them whose delta rows all have a positive weight (declared
 *     foreign keys then prove some join terms empty)
 * @param joins the join expansion: {@code INCLUSION_EXCLUSION} or {@code TELESCOPING}
 */
public record Change(
    ImmutableSet<List<String>> changedTables,
    ImmutableSet<List<String>> insertOnlyTables,
    JoinStrategy joins) {

  public Change {
    if (joins == JoinStrategy.AUTO) {
      throw new IllegalArgumentException("choose INCLUSION_EXCLUSION or TELESCOPING, not AUTO");
    }
    if (!changedTables.containsAll(insertOnlyTables)) {
      throw new IllegalArgumentException("an insert-only table must be among the changed tables");
    }
  }

  /** A change to {@code tables}, not known to be insert-only, joins expanded by {@code joins}. */
  public static Change of(JoinStrategy joins, List<List<String>> tables) {
    return new Change(ImmutableSet.copyOf(tables), ImmutableSet.of(), joins);
  }
}
