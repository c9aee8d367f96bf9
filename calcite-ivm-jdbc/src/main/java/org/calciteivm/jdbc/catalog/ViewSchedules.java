package org.calciteivm.jdbc.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * When views are refreshed, in the catalog: each view's {@link RefreshTiming} (columns of {@code
 * views}) and, per scheduled view, its next refresh and last error (the table {@code schedules}).
 * Every statement runs in the caller's transaction.
 */
public final class ViewSchedules {
  private ViewSchedules() {}

  /**
   * Sets when view {@code viewId} is refreshed; a scheduled view is refreshed next one interval
   * from now, and its last error is forgotten.
   */
  public static void setTiming(Connection connection, int viewId, RefreshTiming timing)
      throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "UPDATE "
                + IvmCatalog.VIEWS
                + " SET refresh_timing = ?, refresh_interval_ms = ? WHERE view_id = ?")) {
      s.setString(1, timing.text());
      s.setLong(2, timing.intervalMillis());
      s.setInt(3, viewId);
      s.executeUpdate();
    }
    try (Statement s = connection.createStatement()) {
      s.execute("DELETE FROM " + IvmCatalog.SCHEDULES + " WHERE view_id = " + viewId);
    }
    if (timing.isScheduled()) {
      try (PreparedStatement s =
          connection.prepareStatement(
              "INSERT INTO "
                  + IvmCatalog.SCHEDULES
                  + " (view_id, next_refresh_at) VALUES (?, timezone('UTC', current_timestamp)"
                  + " + to_milliseconds(?))")) {
        s.setInt(1, viewId);
        s.setLong(2, timing.intervalMillis());
        s.executeUpdate();
      }
    }
  }

  /**
   * Records the end of a scheduled refresh of view {@code viewId}: the next one is due {@code
   * nextInMillis} from now, and it failed with {@code error} (null if it succeeded, which forgets
   * the last error). Runs in the caller's transaction.
   */
  public static void recordScheduledRefresh(
      Connection connection, int viewId, long nextInMillis, String error) throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "UPDATE "
                + IvmCatalog.SCHEDULES
                + " SET next_refresh_at = timezone('UTC', current_timestamp) + to_milliseconds(?),"
                + " last_error = CAST(? AS VARCHAR), last_error_at = CASE WHEN ? IS NULL THEN NULL"
                + " ELSE timezone('UTC', current_timestamp) END WHERE view_id = ?")) {
      s.setLong(1, nextInMillis);
      s.setString(2, error);
      s.setString(3, error);
      s.setInt(4, viewId);
      s.executeUpdate();
    }
  }

  /**
   * Per scheduled view, how many milliseconds from now its next refresh is due (negative if it is
   * overdue), as the catalog of {@code connection} records it.
   */
  public static Map<Integer, Long> scheduledRefreshesDue(Connection connection)
      throws SQLException {
    Map<Integer, Long> due = new HashMap<>();
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT view_id, epoch_ms(next_refresh_at)"
                    + " - epoch_ms(timezone('UTC', current_timestamp)) FROM "
                    + IvmCatalog.SCHEDULES)) {
      while (rs.next()) {
        due.put(rs.getInt(1), rs.getLong(2));
      }
    }
    return due;
  }
}
