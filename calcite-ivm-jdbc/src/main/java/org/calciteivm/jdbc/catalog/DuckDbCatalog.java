package org.calciteivm.jdbc.catalog;

import com.google.common.collect.ImmutableList;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.calciteivm.core.IvmNames;

/**
 * The user's tables and views of a DuckDB database, read from DuckDB's own catalog functions
 * (rather than JDBC metadata, which loses types). calcite-ivm's internal schema is left out, but
 * for the user views of hidden materialized views ({@link IvmNames#hiddenView}), which the views
 * that own them read.
 */
public final class DuckDbCatalog {
  private final ImmutableList<Relation> relations;

  private DuckDbCatalog(List<Relation> relations) {
    this.relations = ImmutableList.copyOf(relations);
  }

  /** Reads the catalog of the connection's current database, as of its transaction. */
  public static DuckDbCatalog read(Connection connection) throws SQLException {
    String sql =
        "SELECT c.schema_name, c.table_name, t.table_name IS NOT NULL AS is_table,"
            + " c.column_name, c.data_type, c.column_default, c.is_nullable"
            + " FROM duckdb_columns() c"
            + " LEFT JOIN duckdb_tables() t ON t.database_name = c.database_name"
            + "  AND t.schema_name = c.schema_name AND t.table_name = c.table_name"
            + " WHERE c.database_name = current_database() AND (c.schema_name <> ?"
            + "  OR (t.table_name IS NULL AND starts_with(c.table_name, ?)))"
            + " ORDER BY c.schema_name, c.table_name, c.column_index";
    Map<List<String>, List<Column>> columns = new LinkedHashMap<>();
    Map<List<String>, Boolean> isTable = new LinkedHashMap<>();
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, IvmNames.SCHEMA);
      statement.setString(2, IvmNames.HIDDEN_VIEW_PREFIX);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          List<String> key = List.of(rs.getString(1), rs.getString(2));
          isTable.put(key, rs.getBoolean(3));
          columns
              .computeIfAbsent(key, k -> new ArrayList<>())
              .add(new Column(rs.getString(4), rs.getString(5), rs.getString(6), rs.getBoolean(7)));
        }
      }
    }
    Map<List<String>, List<Relation.ForeignKey>> foreignKeys = readForeignKeys(connection);
    Map<List<String>, ImmutableList<String>> primaryKeys = readPrimaryKeys(connection);
    List<Relation> relations = new ArrayList<>();
    columns.forEach(
        (key, cols) ->
            relations.add(
                new Relation(
                    key.get(0),
                    key.get(1),
                    isTable.get(key),
                    ImmutableList.copyOf(cols),
                    ImmutableList.copyOf(foreignKeys.getOrDefault(key, List.of())),
                    primaryKeys.getOrDefault(key, ImmutableList.of()))));
    return new DuckDbCatalog(relations);
  }

  private static Map<List<String>, List<Relation.ForeignKey>> readForeignKeys(Connection connection)
      throws SQLException {
    Map<List<String>, List<Relation.ForeignKey>> foreignKeys = new LinkedHashMap<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT schema_name, table_name, constraint_column_names, referenced_table,"
                + " referenced_column_names FROM duckdb_constraints()"
                + " WHERE database_name = current_database() AND schema_name <> ?"
                + " AND constraint_type = 'FOREIGN KEY' ORDER BY constraint_index"); ) {
      statement.setString(1, IvmNames.SCHEMA);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          foreignKeys
              .computeIfAbsent(List.of(rs.getString(1), rs.getString(2)), k -> new ArrayList<>())
              .add(
                  new Relation.ForeignKey(
                      names(rs.getArray(3)), rs.getString(4), names(rs.getArray(5))));
        }
      }
    }
    return foreignKeys;
  }

  private static Map<List<String>, ImmutableList<String>> readPrimaryKeys(Connection connection)
      throws SQLException {
    Map<List<String>, ImmutableList<String>> primaryKeys = new LinkedHashMap<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT schema_name, table_name, constraint_column_names FROM duckdb_constraints()"
                + " WHERE database_name = current_database() AND schema_name <> ?"
                + " AND constraint_type = 'PRIMARY KEY'")) {
      statement.setString(1, IvmNames.SCHEMA);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          primaryKeys.put(List.of(rs.getString(1), rs.getString(2)), names(rs.getArray(3)));
        }
      }
    }
    return primaryKeys;
  }

  private static ImmutableList<String> names(Array array) throws SQLException {
    ImmutableList.Builder<String> names = ImmutableList.builder();
    for (Object name : (Object[]) array.getArray()) {
      names.add(String.valueOf(name));
    }
    return names.build();
  }

  /** The column names of any table, internal ones included, in order. */
  public static List<String> columnNames(Connection connection, String schema, String table)
      throws SQLException {
    return new ArrayList<>(columnTypes(connection, schema, table).keySet());
  }

  /**
   * DuckDB's spelling of the type of each column of {@code schema.table} (any schema, the internal
   * one included), by name in the table's order; empty if there is no such relation.
   */
  public static Map<String, String> columnTypes(Connection connection, String schema, String table)
      throws SQLException {
    Map<String, String> types = new LinkedHashMap<>();
    try (PreparedStatement statement =
        connection.prepareStatement(
            "SELECT column_name, data_type FROM duckdb_columns()"
                + " WHERE database_name = current_database()"
                + " AND schema_name = ? AND table_name = ? ORDER BY column_index")) {
      statement.setString(1, schema);
      statement.setString(2, table);
      try (ResultSet rs = statement.executeQuery()) {
        while (rs.next()) {
          types.put(rs.getString(1), rs.getString(2));
        }
      }
    }
    return types;
  }

  /** Every relation, ordered by schema and name. */
  public ImmutableList<Relation> relations() {
    return relations;
  }

  /** Finds a relation by schema and name, ignoring case as DuckDB does. */
  public Optional<Relation> find(String schema, String name) {
    return relations.stream()
        .filter(r -> r.schema().equalsIgnoreCase(schema) && r.name().equalsIgnoreCase(name))
        .findFirst();
  }

  /** The schema of this database named {@code name} (ignoring case), as DuckDB names it. */
  public static Optional<String> schemaNamed(Connection connection, String name)
      throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT schema_name FROM duckdb_schemas() WHERE database_name = current_database()"
                + " AND lower(schema_name) = lower(?) ORDER BY schema_name = ? DESC LIMIT 1")) {
      s.setString(1, name);
      s.setString(2, name);
      try (ResultSet rs = s.executeQuery()) {
        return rs.next() ? Optional.of(rs.getString(1)) : Optional.empty();
      }
    }
  }

  /** Lower-case key of a relation name, for case-insensitive maps. */
  public static String key(String schema, String name) {
    return schema.toLowerCase(Locale.ROOT) + "." + name.toLowerCase(Locale.ROOT);
  }
}
