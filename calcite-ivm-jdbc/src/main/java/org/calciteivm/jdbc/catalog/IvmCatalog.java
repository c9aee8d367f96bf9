package org.calciteivm.jdbc.catalog;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.core.ZSets;
import org.calciteivm.jdbc.DuckDbTransactions;

/**
 * calcite-ivm's catalog tables in the database file, in the schema {@link IvmNames#SCHEMA}, and the
 * statements that read and change them. Every change runs inside the caller's transaction, so the
 * catalog commits or rolls back with the data it describes.
 *
 * <ul>
 *   <li>{@code tables}: tracked base tables and the last epoch a refresh sealed their deltas to;
 *   <li>{@code views}: materialized views, their query, strategy and hidden columns, and the
 *       statistics of their last refresh;
 *   <li>{@code view_inputs}: per view and base table, the epoch up to which the view has consumed
 *       the table's delta (its watermark);
 *   <li>{@code schedules}: per scheduled view ({@link RefreshTiming}), when the scheduler refreshes
 *       it next and the error of its last refresh if it failed. Only the scheduler writes it after
 *       its refreshes (besides CREATE, ALTER and DROP), so it never conflicts with them.
 * </ul>
 */
public final class IvmCatalog {
  static final String TABLES = IvmNames.qualified(IvmNames.SCHEMA, "tables");
  static final String VIEWS = IvmNames.qualified(IvmNames.SCHEMA, "views");
  static final String INPUTS = IvmNames.qualified(IvmNames.SCHEMA, "view_inputs");
  static final String SCHEDULES = IvmNames.qualified(IvmNames.SCHEMA, "schedules");
  private static final String IDS = IvmNames.qualified(IvmNames.SCHEMA, "ids");

  /** The columns of {@code views} added after its first release, with their definitions. */
  private static final List<String> ADDED_VIEW_COLUMNS =
      List.of(
          "hidden_columns VARCHAR[]",
          "last_refresh_at TIMESTAMP",
          "refresh_count BIGINT NOT NULL DEFAULT 0",
          "last_refresh_ms DOUBLE",
          "scanned_table_ids INTEGER[]",
          "full_refresh_sql VARCHAR[]",
          "refresh_costs " + RefreshStatistics.COSTS_TYPE,
          "last_refresh_mode VARCHAR",
          "last_merge_ms DOUBLE",
          "owner_view_id INTEGER",
          "refresh_timing VARCHAR NOT NULL DEFAULT 'deferred'",
          "refresh_interval_ms BIGINT NOT NULL DEFAULT 0",
          "schema_name VARCHAR NOT NULL DEFAULT 'main'",
          "unique_columns INTEGER[]");

  /** The columns of {@code view_inputs} added after its first release. */
  private static final List<String> ADDED_INPUT_COLUMNS = List.of("columns_read VARCHAR[]");

  private IvmCatalog() {}

  /**
   * Prepares the catalog of a database the driver opens, in one transaction: creates it if it is
   * absent (so that {@code ivm_views} exists, empty, before the first materialized view), brings a
   * catalog made by an earlier version up to date (the columns of {@code views} it lacks, the table
   * of stored programs, the system view, delta tables that lost collations), and deletes the
   * refresh programs other builds of calcite-ivm stored. Writes nothing when there is nothing to
   * do, and nothing to a read-only database. A user table named {@code ivm_views} is left alone
   * (CREATE MATERIALIZED VIEW then says what to do).
   */
  public static void open(Connection connection) throws SQLException {
    if (isReadOnly(connection)) {
      return;
    }
    boolean exists = exists(connection);
    List<String> missing = new ArrayList<>();
    if (exists) {
      missing.addAll(missingColumns(connection, VIEWS, "views", ADDED_VIEW_COLUMNS));
      missing.addAll(missingColumns(connection, INPUTS, "view_inputs", ADDED_INPUT_COLUMNS));
    }
    boolean programs =
        exists && !DuckDbCatalog.columnNames(connection, IvmNames.SCHEMA, "programs").isEmpty();
    if (programs) {
      missing.addAll(
          missingColumns(
              connection, StoredPrograms.TABLE, "programs", StoredPrograms.ADDED_COLUMNS));
    }
    Optional<Relation> systemView =
        DuckDbCatalog.read(connection).find("main", IvmNames.SYSTEM_VIEW);
    boolean otherBuilds = programs && StoredPrograms.hasOtherBuilds(connection);
    boolean pendingViewsMissing = exists && missing.isEmpty() && missingPendingViews(connection);
    boolean schedules =
        exists && !DuckDbCatalog.columnNames(connection, IvmNames.SCHEMA, "schedules").isEmpty();
    if (exists
        && missing.isEmpty()
        && programs
        && schedules
        && systemView.isPresent()
        && !otherBuilds
        && !pendingViewsMissing) {
      return;
    }
    boolean autoCommit = connection.getAutoCommit();
    connection.setAutoCommit(false);
    try (Statement s = connection.createStatement()) {
      ensureExists(connection);
      for (String alteration : missing) {
        s.execute(alteration);
      }
      StoredPrograms.forgetOtherBuilds(connection);
      if (exists) {
        // made by another build, or before there were pending views: (re)made as this one makes
        CatalogSnapshot catalog = load(connection);
        for (TrackedTable table : catalog.trackedTables()) {
          TrackedTables.keepCollations(connection, table);
          ChangeLogs.createPendingViews(connection, table);
        }
        ExtremeCounts.addMissing(connection, catalog);
      }
      boolean olderSystemView = !missing.isEmpty() || !schedules;
      if (systemView.isEmpty() || (olderSystemView && !systemView.get().isTable())) {
        SystemView.replace(connection);
      }
      DuckDbTransactions.commit(connection);
    } catch (SQLException e) {
      DuckDbTransactions.rollback(connection);
      throw e;
    } finally {
      connection.setAutoCommit(autoCommit);
    }
  }

  /** The ALTER TABLE statements that add the columns of {@code added} {@code table} lacks. */
  private static List<String> missingColumns(
      Connection connection, String table, String name, List<String> added) throws SQLException {
    List<String> present = DuckDbCatalog.columnNames(connection, IvmNames.SCHEMA, name);
    List<String> missing = new ArrayList<>();
    for (String column : added) {
      if (!present.contains(column.split(" ")[0])) {
        missing.add("ALTER TABLE " + table + " ADD COLUMN " + column);
      }
    }
    return missing;
  }

  /** {@code definitions} as they follow a table's first columns in CREATE TABLE. */
  private static String columnDefinitions(List<String> definitions) {
    return definitions.stream().map(d -> ", " + d).collect(Collectors.joining());
  }

  /** Whether some view lacks the pending view of one of its base tables. */
  private static boolean missingPendingViews(Connection connection) throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT count(*) FROM "
                + INPUTS
                + " i WHERE NOT EXISTS (SELECT 1 FROM duckdb_views() v"
                + " WHERE v.database_name = current_database() AND v.schema_name = ?"
                + " AND v.view_name = 'pending_' || i.view_id || '_' || i.table_id)")) {
      s.setString(1, IvmNames.SCHEMA);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0;
      }
    }
  }

  /** Whether the database of {@code connection} is read-only. */
  public static boolean isReadOnly(Connection connection) throws SQLException {
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT readonly FROM duckdb_databases() WHERE database_name = current_database()")) {
      return rs.next() && rs.getBoolean(1);
    }
  }

  /** Creates the catalog schema and tables if they do not exist. */
  public static void ensureExists(Connection connection) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute("CREATE SCHEMA IF NOT EXISTS " + IvmNames.quote(IvmNames.SCHEMA));
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + TABLES
              + " (table_id INTEGER NOT NULL, schema_name VARCHAR NOT NULL,"
              + " table_name VARCHAR NOT NULL, epoch BIGINT NOT NULL)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + VIEWS
              + " (view_id INTEGER NOT NULL, view_name VARCHAR NOT NULL, query VARCHAR NOT NULL,"
              + " strategy VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL"
              + columnDefinitions(ADDED_VIEW_COLUMNS)
              + ")");
      s.execute(StoredPrograms.createSql());
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + INPUTS
              + " (view_id INTEGER NOT NULL, table_id INTEGER NOT NULL,"
              + " watermark BIGINT NOT NULL"
              + columnDefinitions(ADDED_INPUT_COLUMNS)
              + ")");
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + SCHEDULES
              + " (view_id INTEGER NOT NULL, next_refresh_at TIMESTAMP NOT NULL,"
              + " last_error VARCHAR, last_error_at TIMESTAMP)");
      s.execute(
          "CREATE TABLE IF NOT EXISTS "
              + IDS
              + " (kind VARCHAR NOT NULL, last_id INTEGER NOT NULL)");
    }
  }

  /** Reads the catalog; an empty one if calcite-ivm was never used on this database. */
  public static CatalogSnapshot load(Connection connection) throws SQLException {
    if (!exists(connection)) {
      return CatalogSnapshot.empty();
    }
    DuckDbCatalog duckDb = DuckDbCatalog.read(connection);
    List<TrackedTable> tables = new ArrayList<>();
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT table_id, schema_name, table_name FROM " + TABLES + " ORDER BY 1")) {
      while (rs.next()) {
        String schema = rs.getString(2);
        String name = rs.getString(3);
        Relation relation =
            duckDb
                .find(schema, name)
                .orElseThrow(
                    () ->
                        new SQLException(
                            "calcite-ivm catalog is inconsistent: tracked table "
                                + schema
                                + "."
                                + name
                                + " does not exist"));
        int id = rs.getInt(1);
        List<String> captured =
            new ArrayList<>(
                DuckDbCatalog.columnNames(
                    connection, IvmNames.SCHEMA, IvmNames.deltaTable(id, relation.name())));
        captured.remove(ZSets.WEIGHT_COLUMN);
        captured.remove(IvmNames.EPOCH_COLUMN);
        tables.add(new TrackedTable(id, relation, ImmutableList.copyOf(captured)));
      }
    }
    Map<Integer, List<Integer>> inputs = new LinkedHashMap<>();
    Map<Integer, Map<Integer, ImmutableSet<String>>> columnsRead = new HashMap<>();
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT view_id, table_id, columns_read FROM " + INPUTS + " ORDER BY 1, 2")) {
      while (rs.next()) {
        inputs.computeIfAbsent(rs.getInt(1), k -> new ArrayList<>()).add(rs.getInt(2));
        Array read = rs.getArray(3);
        if (read != null) {
          ImmutableSet.Builder<String> names = ImmutableSet.builder();
          for (Object column : (Object[]) read.getArray()) {
            names.add((String) column);
          }
          columnsRead
              .computeIfAbsent(rs.getInt(1), k -> new HashMap<>())
              .put(rs.getInt(2), names.build());
        }
      }
    }
    record Row(
        int id,
        String name,
        String schema,
        String query,
        MergeStrategy strategy,
        Integer owner,
        RefreshTiming timing) {}
    Map<Integer, Row> rows = new LinkedHashMap<>();
    // a read-only file of an earlier version is not upgraded: its views are deferred
    List<String> viewColumns = DuckDbCatalog.columnNames(connection, IvmNames.SCHEMA, "views");
    boolean timed = viewColumns.contains("refresh_timing");
    boolean schemas = viewColumns.contains("schema_name");
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT view_id, view_name, query, strategy, owner_view_id, "
                    + (timed ? "refresh_timing, refresh_interval_ms" : "'deferred', 0")
                    + (schemas ? ", schema_name" : ", 'main'")
                    + " FROM "
                    + VIEWS
                    + " ORDER BY 1")) {
      while (rs.next()) {
        int owner = rs.getInt(5);
        Integer ownerViewId = rs.wasNull() ? null : owner;
        rows.put(
            rs.getInt(1),
            new Row(
                rs.getInt(1),
                rs.getString(2),
                rs.getString(8),
                rs.getString(3),
                MergeStrategy.valueOf(rs.getString(4)),
                ownerViewId,
                RefreshTiming.stored(rs.getString(6), rs.getLong(7))));
      }
    }
    Set<Integer> owners =
        rows.values().stream().map(Row::owner).filter(Objects::nonNull).collect(Collectors.toSet());
    List<ViewEntry> views = new ArrayList<>();
    for (Row row : rows.values()) {
      int id = row.id();
      // the user's view at the top of the owners (not registered yet while CREATE makes its nodes)
      String served = null;
      for (Row owner = rows.get(row.owner()); owner != null; owner = rows.get(owner.owner())) {
        served = ViewEntry.displayName(owner.schema(), owner.name());
      }
      views.add(
          new ViewEntry(
              id,
              row.name(),
              row.owner() == null ? row.schema() : IvmNames.SCHEMA,
              row.query(),
              row.strategy(),
              ImmutableList.copyOf(inputs.getOrDefault(id, List.of())),
              // a view created before the columns were recorded has none: it is planned
              inputs.getOrDefault(id, List.of()).size()
                      == columnsRead.getOrDefault(id, Map.of()).size()
                  ? ImmutableMap.copyOf(columnsRead.getOrDefault(id, Map.of()))
                  : null,
              row.owner(),
              served,
              owners.contains(id),
              row.timing()));
    }
    return new CatalogSnapshot(tables, views);
  }

  private static boolean exists(Connection connection) throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database()"
                + " AND schema_name = ? AND table_name = 'views'")) {
      s.setString(1, IvmNames.SCHEMA);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0;
      }
    }
  }

  /**
   * A new view id, for a view that needs its id before it is registered: one that splits its query
   * names its hidden views after it.
   */
  public static int newViewId(Connection connection) throws SQLException {
    return nextId(connection, VIEWS, "view_id");
  }

  /**
   * Registers view {@code id} ({@link #newViewId}), whose stored table has the hidden columns
   * {@code hiddenColumns}, and its inputs, each with watermark {@code watermarks[i]} and the
   * columns of it the view reads, {@code columnsRead[i]}. A hidden view names the view that owns
   * it, {@code ownerViewId}; a user's view has none (null). {@code uniqueColumns} are the positions
   * of columns of the view no two of its rows agree on (NULL equal to NULL), empty if none is
   * known.
   */
  public static void addView(
      Connection connection,
      int id,
      String schema,
      String name,
      String query,
      Integer ownerViewId,
      MergeStrategy strategy,
      List<String> hiddenColumns,
      List<Integer> tableIds,
      List<Long> watermarks,
      List<? extends Collection<String>> columnsRead,
      List<Integer> uniqueColumns)
      throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "INSERT INTO "
                + VIEWS
                + " (view_id, view_name, query, strategy, created_at, hidden_columns,"
                + " owner_view_id, schema_name, unique_columns) VALUES (?, ?, ?, ?,"
                + " timezone('UTC', current_timestamp), "
                + listLiteral(hiddenColumns)
                + ", ?, ?, "
                + uniqueColumns.stream()
                    .map(String::valueOf)
                    .collect(Collectors.joining(", ", "[", "]::INTEGER[]"))
                + ")")) {
      s.setInt(1, id);
      s.setString(2, name);
      s.setString(3, query);
      s.setString(4, strategy.name());
      if (ownerViewId == null) {
        s.setNull(5, Types.INTEGER);
      } else {
        s.setInt(5, ownerViewId);
      }
      s.setString(6, schema);
      s.executeUpdate();
    }
    try (Statement s = connection.createStatement()) {
      for (int i = 0; i < tableIds.size(); i++) {
        s.execute(
            "INSERT INTO "
                + INPUTS
                + " (view_id, table_id, watermark, columns_read) VALUES ("
                + id
                + ", "
                + tableIds.get(i)
                + ", "
                + watermarks.get(i)
                + ", "
                + listLiteral(List.copyOf(columnsRead.get(i)))
                + ")");
      }
    }
  }

  /** Forgets a view, its inputs, its schedule and its stored programs. */
  public static void removeView(Connection connection, int viewId) throws SQLException {
    StoredPrograms.forget(connection, List.of(viewId));
    try (Statement s = connection.createStatement()) {
      s.execute("DELETE FROM " + SCHEDULES + " WHERE view_id = " + viewId);
      s.execute("DELETE FROM " + INPUTS + " WHERE view_id = " + viewId);
      s.execute("DELETE FROM " + VIEWS + " WHERE view_id = " + viewId);
    }
  }

  /**
   * A new id for a row of {@code table}. Ids are never reused, not even after the row with the
   * highest one is removed: connections keep temporary tables named after a table's id (capture
   * stages), which must not be taken for another table's. The counter is a catalog row, so it moves
   * in the caller's transaction; a database from before the counter starts from the highest id.
   */
  static int nextId(Connection connection, String table, String column) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute(
          "INSERT INTO "
              + IDS
              + " SELECT '"
              + column
              + "', coalesce(max("
              + column
              + "), 0) FROM "
              + table
              + " WHERE NOT EXISTS (SELECT 1 FROM "
              + IDS
              + " WHERE kind = '"
              + column
              + "')");
      try (ResultSet rs =
          s.executeQuery(
              "UPDATE "
                  + IDS
                  + " SET last_id = last_id + 1 WHERE kind = '"
                  + column
                  + "' RETURNING last_id")) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  /** {@code names} as a DuckDB {@code VARCHAR[]} literal. */
  private static String listLiteral(List<String> names) {
    return names.stream()
        .map(IvmNames::literal)
        .collect(Collectors.joining(", ", "[", "]::VARCHAR[]"));
  }
}
