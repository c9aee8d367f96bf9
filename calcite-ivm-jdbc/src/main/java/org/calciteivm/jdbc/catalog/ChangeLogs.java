package org.calciteivm.jdbc.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.ZSets;

/**
 * The change logs of tracked tables ({@code _ivm."delta_<id>_<table>"}) as a refresh reads and
 * consumes them: which rows a view has not consumed yet, the epochs a reader seals them with, the
 * views' watermarks, and the deletion of consumed rows. See docs/ARCHITECTURE.md (Positions).
 */
public final class ChangeLogs {
  private ChangeLogs() {}

  /**
   * Seals the captured changes of {@code table} that are committed and visible to this transaction:
   * gives them the next epoch of the table and returns that epoch.
   *
   * <p>Positions are assigned here, by the reader, and not by writers: a writer's transaction that
   * commits after this one has its rows sealed by a later refresh, so no change can fall behind a
   * watermark that has moved past it. Two refreshes that seal the same table at once conflict on
   * the table's catalog row, and one of them retries.
   */
  public static long seal(Connection connection, TrackedTable table) throws SQLException {
    long epoch;
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery(nextEpochsSql(List.of(table.id())))) {
      if (!rs.next()) {
        throw new IllegalStateException("tracked table " + table.id() + " has no catalog row");
      }
      epoch = rs.getLong(2);
    }
    try (PreparedStatement s = connection.prepareStatement(sealSql(table))) {
      s.setLong(1, epoch);
      s.executeUpdate();
    }
    return epoch;
  }

  /**
   * The query that finds what view {@code viewId} has to consume: one row per base table among
   * {@code inputs} with captured rows the view has not consumed, with the columns {@code table_id},
   * {@code change_rows}, {@code min_weight} and {@code max_weight} (of those rows, not
   * consolidated: changes that cancel out still count). It reads the view's pending views, which
   * hold exactly those rows.
   */
  public static String pendingChangesSql(int viewId, List<TrackedTable> inputs) {
    String weight = IvmNames.quote(ZSets.WEIGHT_COLUMN);
    return inputs.stream()
        .map(
            table ->
                "SELECT "
                    + table.id()
                    + " AS table_id, count(*) AS change_rows, min("
                    + weight
                    + ") AS min_weight, max("
                    + weight
                    + ") AS max_weight FROM "
                    + table.pendingView(viewId)
                    + " HAVING count(*) > 0")
        .collect(Collectors.joining(" UNION ALL "));
  }

  /**
   * Creates or replaces the view {@link TrackedTable#pendingView}: the captured rows of {@code
   * table} that view {@code viewId} has not consumed (after its watermark, sealed or not yet), as a
   * Z-set (the table's columns and the weight). The delta plans of the view read the table's change
   * through it. It reads the watermark from the catalog, so a refresh runs no DDL; it is replaced
   * whenever the delta table's columns or the table's readers change.
   *
   * <p>When the view is the table's {@code soleReader}, every row of the delta table is one it has
   * not consumed (a refresh deletes what it consumed, and dropping the table's other readers
   * removed the rows up to its watermark), so the view reads the delta table without comparing
   * epochs: that filter, a join with the catalog, costs a few milliseconds per refresh.
   */
  public static String pendingViewSql(int viewId, TrackedTable table, boolean soleReader) {
    String epoch = IvmNames.quote(IvmNames.EPOCH_COLUMN);
    // a column no view reads is not captured: NULL of its type keeps the table's row type
    String columns =
        table.relation().columns().stream()
            .map(
                c ->
                    table.captures(c.name())
                        ? IvmNames.quote(c.name())
                        : "CAST(NULL AS " + c.dataType() + ") AS " + IvmNames.quote(c.name()))
            .map(c -> c + ", ")
            .collect(Collectors.joining());
    String view =
        "CREATE OR REPLACE VIEW "
            + table.pendingView(viewId)
            + " AS SELECT "
            + columns
            + IvmNames.quote(ZSets.WEIGHT_COLUMN)
            + " FROM "
            + table.deltaTable();
    if (soleReader) {
      return view;
    }
    return view
        + " WHERE "
        + epoch
        + " IS NULL OR "
        + epoch
        + " > (SELECT watermark FROM "
        + IvmCatalog.INPUTS
        + " WHERE view_id = "
        + viewId
        + " AND table_id = "
        + table.id()
        + ")";
  }

  /**
   * (Re)creates the pending views of {@code table} for every view that reads it, as the catalog
   * seen by {@code connection}'s transaction has them: after the table's delta columns or its
   * readers changed.
   */
  public static void createPendingViews(Connection connection, TrackedTable table)
      throws SQLException {
    List<Integer> readers = new ArrayList<>();
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT view_id FROM " + IvmCatalog.INPUTS + " WHERE table_id = ? ORDER BY view_id")) {
      s.setInt(1, table.id());
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          readers.add(rs.getInt(1));
        }
      }
    }
    try (Statement s = connection.createStatement()) {
      for (int viewId : readers) {
        s.execute(pendingViewSql(viewId, table, readers.size() == 1));
      }
    }
  }

  /** Drops the pending view of {@code table} for view {@code viewId}. */
  public static void dropPendingView(Connection connection, int viewId, TrackedTable table)
      throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute("DROP VIEW IF EXISTS " + table.pendingView(viewId));
    }
  }

  /**
   * Moves the epoch of each table in {@code tableIds} on by one; returns {@code table_id, epoch}.
   * The rows sealed next get that epoch (see {@link #seal(Connection, TrackedTable)}).
   */
  public static String nextEpochsSql(Collection<Integer> tableIds) {
    return "UPDATE "
        + IvmCatalog.TABLES
        + " SET epoch = epoch + 1 WHERE table_id IN ("
        + join(tableIds)
        + ") RETURNING table_id, epoch";
  }

  /**
   * Gives the captured rows of {@code table} that no refresh sealed yet the epoch given as its
   * parameter.
   */
  public static String sealSql(TrackedTable table) {
    String column = IvmNames.quote(IvmNames.EPOCH_COLUMN);
    return "UPDATE " + table.deltaTable() + " SET " + column + " = ? WHERE " + column + " IS NULL";
  }

  /**
   * Moves the watermarks of view {@code viewId} on the tables {@code tableIds}: the statement takes
   * the epoch each has consumed up to as its parameters, in the order of {@code tableIds}.
   */
  public static String advanceSql(int viewId, Collection<Integer> tableIds) {
    StringBuilder cases = new StringBuilder("CASE table_id");
    tableIds.forEach(table -> cases.append(" WHEN ").append(table).append(" THEN ?"));
    cases.append(" END");
    return "UPDATE "
        + IvmCatalog.INPUTS
        + " SET watermark = "
        + cases
        + " WHERE view_id = "
        + viewId
        + " AND table_id IN ("
        + join(tableIds)
        + ")";
  }

  /**
   * Removes every captured row of {@code table} this transaction sees: right after the only view
   * reading the table consumed them all.
   */
  public static String consumeAllSql(TrackedTable table) {
    return "DELETE FROM " + table.deltaTable();
  }

  private static String join(Collection<Integer> ids) {
    return ids.stream().map(String::valueOf).collect(Collectors.joining(", "));
  }

  /**
   * Removes the captured changes of {@code table} that every view reading it has consumed (all of
   * them if no view reads it any more).
   */
  public static void collectGarbage(Connection connection, TrackedTable table) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.executeUpdate(collectGarbageSql(table));
    }
  }

  /** The statement of {@link #collectGarbage}. */
  public static String collectGarbageSql(TrackedTable table) {
    return "DELETE FROM "
        + table.deltaTable()
        + " WHERE "
        + IvmNames.quote(IvmNames.EPOCH_COLUMN)
        + " <= (SELECT coalesce(min(watermark), 9223372036854775807) FROM "
        + IvmCatalog.INPUTS
        + " WHERE table_id = "
        + table.id()
        + ")";
  }
}
