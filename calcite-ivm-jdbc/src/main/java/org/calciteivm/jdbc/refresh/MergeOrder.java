package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.function.UnaryOperator;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.rules.merge.GroupMerge;

/**
 * The order in which the MERGE of {@link MergeStrategy#GROUP_RECOMPUTE} (a change with deletes to a
 * view with MIN or MAX) takes the touched groups: as the change gives them, or in the order of the
 * stored rows they update ({@link GroupMerge#inStoredOrder}).
 *
 * <p>DuckDB updates rows that reach it out of their stored order one at a time, and its MERGE
 * updates in the source's order when it probes the source, as it plans it when the source (here a
 * temporary table, whose size it knows) is about as large as the stored table: the MIN/MAX view of
 * 10,000 groups after a delete of 1% of TPC-H SF 1's orders refreshed in 406 ms with the change as
 * given, 87 ms in stored order. For a smaller change DuckDB probes the stored table, in order
 * already, and ordering the source only costs a join with the stored keys.
 *
 * <p>The change's rows bound the groups it touches from above: a change of at least {@link
 * #MIN_CHANGE_ROWS} rows, and at least as many as the view stores (counted before the merge), to a
 * view of at least {@link #MIN_STORED_ROWS} rows is merged in stored order. Out of order, a smaller
 * change or a smaller table costs little.
 */
public final class MergeOrder {
  /** The fewest change rows for which a refresh counts the stored rows to choose the order. */
  public static final long MIN_CHANGE_ROWS = 1024;

  /** The fewest stored rows (one vector of DuckDB's) for which the order is worth a join. */
  public static final long MIN_STORED_ROWS = 2048;

  private MergeOrder() {}

  /**
   * Whether the statements of {@code merge} hold a MERGE whose order may be chosen: {@link
   * MergeStrategy#GROUP_RECOMPUTE}'s, whose source is the temporary table of the touched groups,
   * whose size DuckDB knows exactly. The MERGE of {@link MergeStrategy#GROUP_MERGE} reads the view
   * delta's query, which DuckDB has probed the stored table for in every change measured (1% and
   * 10% of TPC-H SF 1's orders: Q3, Q10, {@code customer_orders}, {@code agg_of_agg}), where the
   * order only added its join (3–30 ms).
   */
  public static boolean applies(MergeStrategy merge) {
    return merge == MergeStrategy.GROUP_RECOMPUTE;
  }

  /** The rule, for EXPLAIN REFRESH. */
  public static String explanation() {
    return "(the MERGE of GROUP_RECOMPUTE, for a change of at least "
        + MIN_CHANGE_ROWS
        + " rows, and at least as many as the view stores, counted first, if that is at least "
        + MIN_STORED_ROWS
        + ", takes its source in the order of the stored rows: SELECT v.* FROM (source) AS v"
        + " LEFT JOIN the stored table AS d ON the keys ORDER BY d.rowid)";
  }

  /**
   * How the statements of {@code choice} are to be run for a change of {@code changeRows} rows to
   * {@code view}: as they are, or with their MERGE's source in stored order.
   */
  static UnaryOperator<String> of(
      RefreshSteps steps, ViewEntry view, RefreshProgram.Choice choice, long changeRows)
      throws SQLException {
    if (!applies(choice.merge()) || changeRows < MIN_CHANGE_ROWS) {
      return UnaryOperator.identity();
    }
    long[] stored = {0};
    steps.query(
        "count the view's stored rows, to choose the order of its MERGE",
        "SELECT count(*) FROM " + view.dataTable(),
        rs -> stored[0] = rs.getLong(1));
    if (stored[0] < MIN_STORED_ROWS || changeRows < stored[0]) {
      return UnaryOperator.identity();
    }
    String dataTable = view.dataTable();
    return sql -> {
      String ordered = GroupMerge.inStoredOrder(sql, dataTable);
      return ordered == null ? sql : ordered;
    };
  }
}
