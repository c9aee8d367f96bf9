package org.calciteivm.jdbc.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.Map;
import org.calciteivm.core.MergeStrategy;

/**
 * What each view's refreshes are recorded as in its catalog row: when it was last refreshed, how
 * often, how long the last refresh and its merge took, whether it was incremental or full, and per
 * merge strategy the change rows and merge time of the last refresh that used it (its {@code
 * refresh_costs}, from which {@code ivm_refresh_mode = auto} chooses). Written by each refresh in
 * its own transaction, so they never disagree with the view's contents and survive a restart.
 */
public final class RefreshStatistics {
  /** The type of {@code views.refresh_costs}. */
  static final String COSTS_TYPE = "MAP(VARCHAR, STRUCT(change_rows BIGINT, ms DOUBLE))";

  private RefreshStatistics() {}

  /**
   * Records, in the refreshing transaction, that view {@code viewId} was refreshed now. Parameters:
   * the milliseconds the refresh took up to this statement (its last before the commit), the mode
   * ({@code incremental} or {@code full}), the milliseconds of its merge, then for its cost the
   * merge strategy, the change rows and again the merge's milliseconds.
   */
  public static String recordedSql(int viewId) {
    return "UPDATE "
        + IvmCatalog.VIEWS
        + " SET last_refresh_at = timezone('UTC', current_timestamp),"
        + " refresh_count = refresh_count + 1, last_refresh_ms = ?, last_refresh_mode = ?,"
        + " last_merge_ms = ?, refresh_costs = "
        + costsUpdate()
        + " WHERE view_id = "
        + viewId;
  }

  /**
   * {@link #recordedSql} without the cost (the first three parameters only): for a refresh whose
   * cost is close to the stored one (see {@code RefreshCosts.mustStore}).
   */
  public static String recordedWithoutCostSql(int viewId) {
    return "UPDATE "
        + IvmCatalog.VIEWS
        + " SET last_refresh_at = timezone('UTC', current_timestamp),"
        + " refresh_count = refresh_count + 1, last_refresh_ms = ?, last_refresh_mode = ?,"
        + " last_merge_ms = ? WHERE view_id = "
        + viewId;
  }

  /**
   * Records the population of a new view by {@code CREATE MATERIALIZED VIEW} as the view's first
   * recompute, which {@code auto} compares merges with until a refresh recomputes it.
   */
  public static void recordCreation(Connection connection, int viewId, double millis)
      throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "UPDATE "
                + IvmCatalog.VIEWS
                + " SET refresh_costs = "
                + costsUpdate()
                + " WHERE view_id = ?")) {
      s.setString(1, MergeStrategy.FULL_RECOMPUTE.name());
      s.setLong(2, 0);
      s.setDouble(3, millis);
      s.setInt(4, viewId);
      s.executeUpdate();
    }
  }

  /** The change rows and merge time per merge strategy of view {@code viewId}'s refreshes. */
  public static Map<MergeStrategy, Cost> costs(Connection connection, int viewId)
      throws SQLException {
    Map<MergeStrategy, Cost> costs = new EnumMap<>(MergeStrategy.class);
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT k, c.change_rows, c.ms FROM (SELECT unnest(map_keys(refresh_costs)) AS k,"
                + " unnest(map_values(refresh_costs)) AS c FROM "
                + IvmCatalog.VIEWS
                + " WHERE view_id = ?)")) {
      s.setInt(1, viewId);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          costs.put(
              MergeStrategy.valueOf(rs.getString(1)), new Cost(rs.getLong(2), rs.getDouble(3)));
        }
      }
    }
    return costs;
  }

  /**
   * The change rows and merge time of one refresh.
   *
   * @param changeRows the change rows it consumed (0 for the population of a new view)
   * @param millis how long its merge or recompute took
   */
  public record Cost(long changeRows, double millis) {}

  /**
   * {@code refresh_costs} with the cost of one strategy replaced: parameters strategy, rows, ms.
   */
  private static String costsUpdate() {
    return "map_concat(coalesce(refresh_costs, MAP {}::"
        + COSTS_TYPE
        + "), MAP {?::VARCHAR: {'change_rows': ?::BIGINT, 'ms': ?::DOUBLE}})";
  }
}
