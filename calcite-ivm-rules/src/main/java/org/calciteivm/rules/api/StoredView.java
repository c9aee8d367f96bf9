package org.calciteivm.rules.api;

import java.util.List;

/**
 * Where a view's rows are stored, as the merge statements name them.
 *
 * @param table the table that stores the view, as SQL (quoted and qualified as needed), laid out as
 *     {@link MaintainedView#stateLayout()} says
 * @param columns the view's column names in the stored table, in order (unquoted; for a view
 *     without aggregate, before {@code _ivm_count} on a standard target)
 * @param deltaTable the name (unquoted, unqualified) of a temporary table the merge statements may
 *     create or replace to hold the view delta (DuckDB only; standard merges use none)
 * @param keepsDelta whether the merge statements must leave the view delta in {@code deltaTable}
 *     for statements that run after them, such as those that derive the view's own change for the
 *     views that read it: for a view without aggregate its consolidated rows ({@code c1..cn} and
 *     the weight), for an aggregate view the change of each touched group's state (then the first
 *     statement creates the table, and the others read it). DuckDB only.
 */
public record StoredView(
    String table, List<String> columns, String deltaTable, boolean keepsDelta) {

  public StoredView {
    columns = List.copyOf(columns);
  }

  /** A stored view whose merge statements need not keep the view delta. */
  public StoredView(String table, List<String> columns, String deltaTable) {
    this(table, columns, deltaTable, false);
  }
}
