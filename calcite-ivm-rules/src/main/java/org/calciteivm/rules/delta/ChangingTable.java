package org.calciteivm.rules.delta;

import java.util.List;

/**
 * A base table whose changes are available as a delta relation.
 *
 * <p>The delta relation has the table's columns followed by the weight column (see {@link
 * ChangeOf#weightedRowType}), holds the change since the view was last refreshed (it need not be
 * consolidated: a row inserted and deleted again may appear twice, with weights +1 and -1), and
 * must be reachable in the same Calcite schema under {@link #deltaTableName()}. The table itself
 * must hold its current state, after the change: previous states are derived from it. A scanned
 * table that does not implement this interface is taken as unchanged: its delta is empty.
 */
public interface ChangingTable {
  /** The qualified name of this table's delta relation in the schema the view is planned in. */
  List<String> deltaTableName();
}
