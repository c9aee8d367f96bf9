package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableMap;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.calciteivm.jdbc.CaptureLedger;
import org.calciteivm.jdbc.CapturedChange;
import org.calciteivm.jdbc.IvmConnection;
import org.calciteivm.jdbc.IvmDatabase;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.ChangeLogs;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * How a refresh learns its pending change: the base tables with captured rows the view has not
 * consumed, how many, and the signs of their weights (which decide the join terms and the merge
 * strategy). Either a query of the view's change logs ({@link ChangeLogs#pendingChangesSql}), run
 * inside the refresh's transaction, or, where they tell it, the writes this JVM registered since
 * the view's last refresh ({@link #counted}), which costs no statement.
 */
public final class PendingChanges {
  private PendingChanges() {}

  /**
   * A base table with captured rows the refreshing view has not consumed: a row of {@link
   * ChangeLogs#pendingChangesSql}, or its estimate from this JVM's counts ({@link #counted}).
   */
  record Input(int tableId, long rows, long minWeight, long maxWeight) {}

  /**
   * Where a refresh finds its pending change.
   *
   * @param sql the query of it, run inside the refresh's transaction
   * @param since the marks the view's last refresh in a transaction of its own began from, if it
   *     had one in this JVM: the change may be counted from them ({@link #counted})
   * @param snapshotTaken whether the refresh's transaction has taken its snapshot already
   */
  record Source(String sql, @Nullable List<CaptureLedger.Mark> since, boolean snapshotTaken) {}

  /** Where a refresh of {@code view} that runs where {@code in} says finds its pending change. */
  static Source source(IvmConnection connection, ViewEntry view, RefreshExecutor.In in)
      throws SQLException {
    IvmDatabase database = connection.database();
    String sql = ChangeLogs.pendingChangesSql(view.id(), inputs(database.catalog(), view));
    if (!connection.inTransaction() || in != RefreshExecutor.In.OWN_OR_CLIENT_TRANSACTION) {
      return new Source(
          sql,
          database.lastRefreshed(view.id()),
          in == RefreshExecutor.In.GRAPH_TRANSACTION_SNAPSHOT_TAKEN);
    }
    // inside an auto-commit write that maintains the view, whose statement took the snapshot
    List<CaptureLedger.Mark> since = connection.countedSince(view.id());
    return new Source(sql, since, since != null);
  }

  /**
   * The pending change of {@code view}, per base table that changed, from the writes registered
   * after {@code since} (the marks its last refresh began from); null where they cannot tell it,
   * and then the refresh queries it.
   *
   * <p>They tell it when every such write's rows are known ({@link CaptureLedger#since}) and each
   * base table that changed is read by this view alone: its refresh deletes every row of that
   * table's change log it sees, so the deletes count what it consumed exactly. The writes may hold
   * more than the refresh's snapshot sees (a write still open, or rolled back), with signs its rows
   * do not have, never less, provided every write the snapshot sees was registered when they were
   * read: that only costs a merge that finds less to do than planned. A table whose writes captured
   * no row has no change.
   */
  static @Nullable Map<Integer, Input> counted(
      CatalogSnapshot catalog,
      ViewEntry view,
      List<CaptureLedger.Mark> since,
      CaptureLedger ledger) {
    List<Integer> tableIds = view.inputTableIds();
    if (since.size() != tableIds.size()) {
      return null;
    }
    Map<Integer, Input> pending = new LinkedHashMap<>();
    for (int i = 0; i < tableIds.size(); i++) {
      int tableId = tableIds.get(i);
      CapturedChange change = ledger.since(tableId, since.get(i));
      if (change == null) {
        return null;
      }
      if (change.rows() == 0) {
        continue;
      }
      if (catalog.viewsReading(tableId).size() > 1) {
        return null;
      }
      pending.put(
          tableId,
          new Input(tableId, change.rows(), change.deletes() ? -1 : 1, change.inserts() ? 1 : -1));
    }
    return pending;
  }

  /**
   * The base tables of {@code view} with captured rows the view has not consumed, and how many
   * (their changes may still cancel out when consolidated), queried.
   */
  public static ImmutableMap<Integer, Long> rows(IvmConnection connection, ViewEntry view)
      throws SQLException {
    CatalogSnapshot catalog = connection.database().catalog();
    ImmutableMap.Builder<Integer, Long> rows = ImmutableMap.builder();
    new RefreshSteps(connection.refreshStatements(), catalog, false)
        .pending(ChangeLogs.pendingChangesSql(view.id(), inputs(catalog, view)))
        .forEach((table, input) -> rows.put(table, input.rows()));
    return rows.buildOrThrow();
  }

  private static List<TrackedTable> inputs(CatalogSnapshot catalog, ViewEntry view) {
    List<TrackedTable> inputs = new ArrayList<>();
    view.inputTableIds().forEach(id -> inputs.add(catalog.trackedTable(id)));
    return inputs;
  }
}
