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
 * lists the base tables its hidden views read, with their pending rows, as its own.
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
        "  GROUP BY ALL)",
        "SELECT v.view_name AS name, v.query, list(i.base_table ORDER BY i.table_id) AS base_tables,",
        "  v.strategy, v.hidden_columns, v.created_at, v.last_refresh_at, v.refresh_count,",
        "  v.last_refresh_ms, v.last_refresh_mode, v.last_merge_ms,",
        "  map(list(i.base_table ORDER BY i.table_id), list(i.change_rows ORDER BY i.table_id))",
        "    AS pending_rows,",
        "  sum(i.change_rows)::BIGINT AS pending_rows_total",
        "FROM " + catalog + "views v JOIN inputs i USING (view_id)",
        "GROUP BY ALL",
        "ORDER BY name");
  }
}
