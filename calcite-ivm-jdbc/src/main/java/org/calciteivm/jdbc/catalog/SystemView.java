package org.calciteivm.jdbc.catalog;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.calciteivm.core.IvmNames;

/**
 * The system view {@code main.ivm_views} ({@link IvmNames#SYSTEM_VIEW}): one row per materialized
 * view with its definition, its refresh statistics and the change rows waiting for it. A plain
 * DuckDB view over calcite-ivm's catalog tables and delta tables, so any client, prepared statement
 * or remote connection reads it like any view.
 *
 * <p>Hidden views (intermediate states a view keeps for its subqueries) have no row: a user's view
 * lists the base tables its hidden views read, with their pending rows, as its own, and the number
 * of its hidden views with their rows and estimated bytes (the space its maintenance costs: rows
 * times the columns' widths, 16 bytes per string or nested value, DuckDB's size of a string before
 * compression). {@code reads_views} lists the materialized views among its inputs. {@code refresh}
 * says when the view is refreshed ({@link RefreshTiming}); a scheduled view has its next refresh
 * and the error of its last one if it failed.
 *
 * <p>It names every delta table, so it is replaced in the transaction of every change of the set of
 * tracked tables (CREATE and DROP MATERIALIZED VIEW).
 */
public final class SystemView {
  private SystemView() {}

  /** Creates or replaces the system view to match the tracked tables of the catalog. */
  public static void replace(Connection connection) throws SQLException {
    if (DuckDbCatalog.read(connection)
        .find("main", IvmNames.SYSTEM_VIEW)
        .filter(Relation::isTable)
        .isPresent()) {
      throw new SQLException(
          "a table named "
              + IvmNames.SYSTEM_VIEW
              + " exists in the schema main; calcite-ivm keeps its system view under that name:"
              + " rename the table first (ALTER TABLE "
              + IvmNames.SYSTEM_VIEW
              + " RENAME TO ...)",
          "42P07");
    }
    List<String> changeLogs = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT table_id, table_name FROM "
                    + IvmNames.qualified(IvmNames.SCHEMA, "tables")
                    + " ORDER BY 1")) {
      while (rs.next()) {
        changeLogs.add(
            "SELECT "
                + rs.getInt(1)
                + " AS table_id, "
                + IvmNames.quote(IvmNames.EPOCH_COLUMN)
                + " AS epoch FROM "
                + IvmNames.qualified(
                    IvmNames.SCHEMA, IvmNames.deltaTable(rs.getInt(1), rs.getString(2))));
      }
    }
    if (changeLogs.isEmpty()) {
      changeLogs.add("SELECT NULL::INTEGER AS table_id, NULL::BIGINT AS epoch WHERE false");
    }
    try (Statement s = connection.createStatement()) {
      s.execute(sql(String.join(" UNION ALL ", changeLogs)));
    }
  }

  /** A view's name in the catalog table aliased {@code alias}, qualified unless it is in main. */
  private static String displayName(String alias) {
    return "CASE WHEN "
        + alias
        + ".schema_name = 'main' THEN "
        + alias
        + ".view_name ELSE "
        + alias
        + ".schema_name || '.' || "
        + alias
        + ".view_name END";
  }

  private static String sql(String changeLogs) {
    String catalog = IvmNames.quote(IvmNames.SCHEMA) + ".";
    return String.join(
        "\n",
        "CREATE OR REPLACE VIEW main." + IvmNames.quote(IvmNames.SYSTEM_VIEW) + " AS",
        "WITH RECURSIVE served(view_id, user_view_id) AS (",
        "  SELECT view_id, view_id FROM " + catalog + "views WHERE owner_view_id IS NULL",
        "  UNION ALL",
        "  SELECT h.view_id, s.user_view_id FROM " + catalog + "views h",
        "  JOIN served s ON h.owner_view_id = s.view_id),",
        "pending AS (",
        "  SELECT i.view_id, i.table_id, count(d.table_id) AS change_rows",
        "  FROM " + catalog + "view_inputs i",
        "  LEFT JOIN (" + changeLogs + ") d",
        "    ON d.table_id = i.table_id AND (d.epoch IS NULL OR d.epoch > i.watermark)",
        "  GROUP BY i.view_id, i.table_id),",
        "inputs AS (",
        "  SELECT s.user_view_id AS view_id, p.table_id, max(p.change_rows) AS change_rows,",
        "    CASE WHEN t.schema_name = 'main' THEN t.table_name",
        "    ELSE t.schema_name || '.' || t.table_name END AS base_table",
        "  FROM pending p JOIN served s USING (view_id) JOIN "
            + catalog
            + "tables t USING (table_id)",
        "  WHERE t.schema_name <> " + IvmNames.literal(IvmNames.SCHEMA),
        "  GROUP BY ALL),",
        "widths AS (",
        "  SELECT table_name, sum(CASE",
        "    WHEN data_type IN ('BOOLEAN', 'TINYINT', 'UTINYINT') THEN 1",
        "    WHEN data_type IN ('SMALLINT', 'USMALLINT') THEN 2",
        "    WHEN data_type IN ('INTEGER', 'UINTEGER', 'DATE', 'FLOAT') THEN 4",
        "    WHEN data_type LIKE 'DECIMAL%' THEN CASE WHEN numeric_precision <= 4 THEN 2",
        "      WHEN numeric_precision <= 9 THEN 4 WHEN numeric_precision <= 18 THEN 8 ELSE 16 END",
        "    WHEN data_type IN ('BIGINT', 'UBIGINT', 'DOUBLE', 'TIMESTAMP', 'TIME') THEN 8",
        "    ELSE 16 END) AS width",
        "  FROM duckdb_columns() WHERE schema_name = " + IvmNames.literal(IvmNames.SCHEMA),
        "  GROUP BY table_name),",
        "states AS (",
        "  SELECT s.user_view_id AS view_id, count(*) AS states,",
        "    sum(t.estimated_size)::BIGINT AS state_rows,",
        "    sum(t.estimated_size * w.width)::BIGINT AS state_bytes",
        "  FROM served s JOIN " + catalog + "views h ON h.view_id = s.view_id",
        "  JOIN duckdb_tables() t ON t.schema_name = " + IvmNames.literal(IvmNames.SCHEMA),
        "    AND t.table_name = 'view_' || h.view_id || '_' || h.view_name",
        "  JOIN widths w ON w.table_name = t.table_name",
        "  WHERE h.owner_view_id IS NOT NULL",
        "  GROUP BY 1)",
        "SELECT "
            + displayName("v")
            + " AS name, v.query, list(i.base_table ORDER BY i.table_id) AS base_tables,",
        "  v.strategy, v.refresh_timing AS refresh, sc.next_refresh_at, sc.last_error,",
        "  sc.last_error_at, v.hidden_columns, v.created_at, v.last_refresh_at, v.refresh_count,",
        "  v.last_refresh_ms, v.last_refresh_mode, v.last_merge_ms,",
        "  map(list(i.base_table ORDER BY i.table_id), list(i.change_rows ORDER BY i.table_id))",
        "    AS pending_rows,",
        "  sum(i.change_rows)::BIGINT AS pending_rows_total,",
        "  coalesce(any_value(st.states), 0)::INTEGER AS intermediate_states,",
        "  coalesce(any_value(st.state_rows), 0) AS intermediate_rows,",
        "  coalesce(any_value(st.state_bytes), 0) AS intermediate_bytes,",
        "  coalesce(list(i.base_table ORDER BY i.table_id) FILTER (WHERE r.view_id IS NOT NULL),",
        "    []) AS reads_views",
        "FROM " + catalog + "views v JOIN inputs i USING (view_id)",
        "LEFT JOIN " + catalog + "views r ON r.owner_view_id IS NULL",
        "  AND lower(i.base_table) = lower(" + displayName("r") + ")",
        "LEFT JOIN states st ON st.view_id = v.view_id",
        "LEFT JOIN " + catalog + "schedules sc ON sc.view_id = v.view_id",
        "GROUP BY ALL",
        "ORDER BY name");
  }
}
