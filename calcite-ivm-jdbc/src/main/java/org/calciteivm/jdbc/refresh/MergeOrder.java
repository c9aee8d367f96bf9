package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.rules.merge.GroupMerge;

/**
 * The order in which the MERGE of an aggregate view takes the groups a change touches: as the
 * change gives them, or in the order of the stored rows they update ({@link
 * GroupMerge#inStoredOrder}).
 *
 * <p>DuckDB updates rows that reach it out of their stored order one at a time, and its MERGE
 * updates in the source's order when it probes the source, which it plans when it estimates the
 * source at least as large as the stored table. For a smaller source it probes the stored table, in
 * order already, and ordering the source only costs a join with the stored keys and a sort.
 * Measured at TPC-H SF 1: the MIN/MAX view (10,000 groups) after a delete of 1% of the orders
 * refreshed in 406 ms with the change as given, 87 ms in stored order; {@code customer_orders}
 * (150,000 groups) after a delete of 10% of the orders in 1.1–1.6 s as given (DuckDB estimated its
 * source at 208,018 rows, reading a change table of 135,000 pending rows that it estimated at
 * 270,000: rows already consumed and deleted count until a checkpoint), 85–150 ms in stored order,
 * against 70–100 ms when DuckDB had probed the stored table itself.
 *
 * <p>The decision: for {@link MergeStrategy#GROUP_RECOMPUTE}, whose source is a temporary table of
 * the touched groups (whose size DuckDB knows), when the change's rows are at least the stored rows
 * (counted); for the MERGE of {@link MergeStrategy#GROUP_MERGE} and {@link
 * MergeStrategy#GROUP_APPEND}, whose source is the view delta's query over the change tables, when
 * DuckDB's estimates of those tables ({@code duckdb_tables().estimated_size}, one catalog query)
 * add up to at least its estimate of the stored table. That sum overstates DuckDB's estimate of a
 * source that filters or joins, so it orders some sources DuckDB would not have probed: the join
 * and the sort then cost 5–10 ms at 5,000 touched groups (measured on the MIN/MAX view and {@code
 * customer_orders} at 0.1%), 18 ms for TPC-H Q3 at 10% (asking DuckDB for its plan with EXPLAIN
 * costs 6–20 ms, as much). Hence only for a change of at least {@link #MIN_CHANGE_ROWS} rows: a
 * smaller change to one table touches at most that many groups, which cost at most about 0.1 s out
 * of order (about 14 µs a row), and DuckDB seldom estimates it as large as the view; and only for a
 * view of at least {@link #MIN_STORED_ROWS} rows.
 */
public final class MergeOrder {
  /** The fewest change rows for which a refresh looks at the estimates to choose the order. */
  public static final long MIN_CHANGE_ROWS = 8192;

  /** The fewest stored rows (one vector of DuckDB's) for which the order is worth a join. */
  public static final long MIN_STORED_ROWS = 2048;

  private MergeOrder() {}

  /** A table whose change the refresh reads, and how many change rows it has pending. */
  record Input(TrackedTable table, long rows) {}

  /** Whether the statements of {@code merge} hold a MERGE of groups whose order may be chosen. */
  public static boolean applies(MergeStrategy merge) {
    return merge == MergeStrategy.GROUP_RECOMPUTE
        || merge == MergeStrategy.GROUP_MERGE
        || merge == MergeStrategy.GROUP_APPEND;
  }

  /** The rule, for EXPLAIN REFRESH. */
  public static String explanation() {
    return "(the MERGE of an aggregate view, for a change of at least "
        + MIN_CHANGE_ROWS
        + " rows to a view of at least "
        + MIN_STORED_ROWS
        + " rows, takes its source in the order of the stored rows when DuckDB would likely probe"
        + " the source: DuckDB's estimates of the change tables add up to at least its estimate"
        + " of the stored table (GROUP_RECOMPUTE: the change's rows at least the stored rows);"
        + " SELECT v.* FROM (source) AS v LEFT JOIN the stored table AS d ON the keys"
        + " ORDER BY d.rowid)";
  }

  /**
   * How the statements of {@code choice} are to be run for a change of {@code changeRows} rows,
   * read from the change tables of {@code inputs}, to {@code view}: as they are, or with their
   * MERGE's source in stored order.
   */
  static UnaryOperator<String> of(
      RefreshSteps steps,
      ViewEntry view,
      RefreshProgram.Choice choice,
      long changeRows,
      List<Input> inputs)
      throws SQLException {
    if (!applies(choice.merge()) || changeRows < MIN_CHANGE_ROWS) {
      return UnaryOperator.identity();
    }
    String dataTable = view.dataTable();
    if (choice.statements().stream()
        .allMatch(s -> GroupMerge.inStoredOrder(s, dataTable) == null)) {
      return UnaryOperator.identity(); // no MERGE of groups by their keys: no GROUP BY
    }
    boolean recompute = choice.merge() == MergeStrategy.GROUP_RECOMPUTE;
    long[] rows = {0, changeRows};
    if (recompute) {
      steps.query(
          "count the view's stored rows, to choose the order of its MERGE",
          "SELECT count(*) FROM " + dataTable,
          rs -> rows[0] = rs.getLong(1));
    } else {
      String stored = IvmNames.viewDataTable(view.id(), view.name());
      Map<String, Long> pending = new TreeMap<>();
      for (Input input : inputs) {
        pending.merge(
            IvmNames.deltaTable(input.table().id(), input.table().relation().name()),
            input.rows(),
            Long::sum);
      }
      StringBuilder tables = new StringBuilder(IvmNames.literal(stored));
      for (String table : pending.keySet()) {
        tables.append(", ").append(IvmNames.literal(table));
      }
      // estimated_size leaves out rows the refresh's own transaction wrote (the change of a view
      // below, in a graph's refresh), which DuckDB's planner counts: each change table counts as at
      // least its pending rows
      Map<String, Long> estimates = new HashMap<>(pending);
      steps.query(
          "estimate the stored rows and the change tables' rows, to choose the order of the MERGE",
          "SELECT table_name, estimated_size FROM duckdb_tables()"
              + " WHERE database_name = current_database() AND schema_name = "
              + IvmNames.literal(IvmNames.SCHEMA)
              + " AND table_name IN ("
              + tables
              + ")",
          rs -> estimates.merge(rs.getString(1), rs.getLong(2), Math::max));
      rows[0] = estimates.getOrDefault(stored, 0L);
      rows[1] = pending.keySet().stream().mapToLong(estimates::get).sum();
    }
    long storedRows = rows[0];
    long sourceRows = rows[1];
    boolean ordered = storedRows >= MIN_STORED_ROWS && sourceRows >= storedRows;
    steps.record(
        String.format(
            "the MERGE takes its source %s: %s %,d, %s %,d",
            ordered ? "in stored order" : "as it comes",
            recompute ? "stored rows" : "stored rows estimated at",
            storedRows,
            recompute ? "change rows" : "the change tables' rows estimated at",
            sourceRows),
        "",
        System.nanoTime());
    if (!ordered) {
      return UnaryOperator.identity();
    }
    return sql -> {
      String inOrder = GroupMerge.inStoredOrder(sql, dataTable);
      return inOrder == null ? sql : inOrder;
    };
  }
}
