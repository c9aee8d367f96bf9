package org.calciteivm.jdbc.catalog;

import com.google.common.collect.ImmutableList;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.ZSets;

/**
 * Starts and stops the tracking of a relation (a base table, or the user view of a materialized
 * view that others read): its row in {@code _ivm.tables} and its change log, the delta table with
 * the captured columns, the weight and the epoch.
 */
public final class TrackedTables {
  private TrackedTables() {}

  /**
   * Starts tracking {@code relation}: registers it and creates its empty delta table, which
   * captures the columns named in {@code columns}.
   */
  public static TrackedTable track(Connection connection, Relation relation, Set<String> columns)
      throws SQLException {
    int id = IvmCatalog.nextId(connection, IvmCatalog.TABLES, "table_id");
    try (PreparedStatement s =
        connection.prepareStatement("INSERT INTO " + IvmCatalog.TABLES + " VALUES (?, ?, ?, 0)")) {
      s.setInt(1, id);
      s.setString(2, relation.schema());
      s.setString(3, relation.name());
      s.executeUpdate();
    }
    ImmutableList<String> captured =
        relation.columns().stream()
            .map(Column::name)
            .filter(columns::contains)
            .collect(ImmutableList.toImmutableList());
    TrackedTable table = new TrackedTable(id, relation, captured);
    createDeltaTable(connection, table.deltaTable(), relation, captured);
    return table;
  }

  /**
   * Makes {@code table} capture the columns named in {@code columns} too. Rows captured before have
   * NULL there; only views that consumed them already read them (a new view starts after them), and
   * those views do not read the new columns.
   */
  public static TrackedTable captureColumns(
      Connection connection, TrackedTable table, Set<String> columns) throws SQLException {
    List<String> captured = new ArrayList<>(table.capturedColumns());
    for (Column column : table.relation().columns()) {
      if (columns.contains(column.name()) && !table.captures(column.name())) {
        captured.add(column.name());
      }
    }
    // rebuilt rather than altered: ALTER TABLE ... ADD COLUMN needs a type name, and DuckDB
    // describes no column's collation
    rebuild(connection, table, captured);
    return new TrackedTable(table.id(), table.relation(), ImmutableList.copyOf(captured));
  }

  /**
   * Rebuilds the delta table of {@code table}, with its rows, if its relation is a table that
   * declares a collation: earlier builds made delta tables from the catalog's type names, which
   * leave collations out, so a {@code VARCHAR COLLATE NOCASE} key was captured case-sensitively.
   * (Cheaper than telling which columns lost theirs, and done only when an earlier build's catalog
   * is brought up to date.)
   */
  public static void keepCollations(Connection connection, TrackedTable table) throws SQLException {
    if (!table.relation().isTable()) {
      return;
    }
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT count(*) FROM duckdb_tables() WHERE schema_name = ? AND table_name = ?"
                + " AND contains(sql, ' COLLATE ')")) {
      s.setString(1, table.relation().schema());
      s.setString(2, table.relation().name());
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        if (rs.getLong(1) > 0) {
          rebuild(connection, table, table.capturedColumns());
        }
      }
    }
  }

  /**
   * Replaces the delta table of {@code table} by one that captures {@code captured} (its captured
   * columns, then any new ones), typed as the relation's columns, with the rows it held: NULL in
   * the new columns.
   */
  private static void rebuild(Connection connection, TrackedTable table, List<String> captured)
      throws SQLException {
    String name = IvmNames.deltaTable(table.id(), table.relation().name());
    String rebuilt = IvmNames.qualified(IvmNames.SCHEMA, name + "_rebuilt");
    String weight = IvmNames.quote(ZSets.WEIGHT_COLUMN);
    String epoch = IvmNames.quote(IvmNames.EPOCH_COLUMN);
    createDeltaTable(connection, rebuilt, table.relation(), captured);
    String copied =
        captured.stream()
            .map(c -> table.captures(c) ? IvmNames.quote(c) + ", " : "NULL, ")
            .collect(Collectors.joining());
    try (Statement s = connection.createStatement()) {
      s.execute(
          "INSERT INTO "
              + rebuilt
              + " SELECT "
              + copied
              + weight
              + ", "
              + epoch
              + " FROM "
              + table.deltaTable());
      s.execute("DROP TABLE " + table.deltaTable());
      s.execute("ALTER TABLE " + rebuilt + " RENAME TO " + IvmNames.quote(name));
    }
  }

  /**
   * Creates the empty delta table {@code name} with the columns {@code captured} of {@code
   * relation}, then the weight and the epoch. Created from a query rather than from type names so
   * that DuckDB gives each column its relation's type whole, collation included: a {@code VARCHAR
   * COLLATE NOCASE} key captured without its collation would split one group of the view into
   * several in the change.
   */
  private static void createDeltaTable(
      Connection connection, String name, Relation relation, List<String> captured)
      throws SQLException {
    String weight = IvmNames.quote(ZSets.WEIGHT_COLUMN);
    try (Statement s = connection.createStatement()) {
      s.execute(
          "CREATE TABLE "
              + name
              + " AS SELECT "
              + captured.stream().map(c -> IvmNames.quote(c) + ", ").collect(Collectors.joining())
              + "CAST(NULL AS BIGINT) AS "
              + weight
              + ", CAST(NULL AS BIGINT) AS "
              + IvmNames.quote(IvmNames.EPOCH_COLUMN)
              + " FROM "
              + relation.qualifiedName()
              + " WITH NO DATA");
      s.execute("ALTER TABLE " + name + " ALTER COLUMN " + weight + " SET NOT NULL");
    }
  }

  /** Stops tracking {@code table}: drops its delta table and forgets it. */
  public static void untrack(Connection connection, TrackedTable table) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute("DROP TABLE " + table.deltaTable());
      s.execute("DELETE FROM " + IvmCatalog.TABLES + " WHERE table_id = " + table.id());
    }
  }
}
