package org.calciteivm.rules.api;

import com.google.common.collect.ImmutableList;

/**
 * Where a view's rows are stored, as the merge statements name them.
 *
 * @param table the table that stores the view, as SQL (quoted and qualified as needed): its rows (a
 *     view without aggregate) or one row per group of keys and state (an aggregate view)
 * @param columns the stored table's column names, in order (unquoted)
 * @param deltaTable the name (unquoted, unqualified) of a temporary table the merge statements may
 *     create or replace to hold the view delta
 * @param keepsDelta whether the merge statements must leave the view delta in {@code deltaTable}
 *     for statements that run after them, such as those that derive the view's own change for the
 *     views that read it: for a view without aggregate its consolidated rows ({@code c1..cn} and
 *     the weight), for an aggregate view the change of each touched group's state (then the first
 *     statement creates the table, and the others read it)
 */
public record StoredView(
    String table, ImmutableList<String> columns, String deltaTable, boolean keepsDelta) {

  /** A stored view whose merge statements need not keep the view delta. */
  public StoredView(String table, ImmutableList<String> columns, String deltaTable) {
    this(table, columns, deltaTable, false);
  }
}
