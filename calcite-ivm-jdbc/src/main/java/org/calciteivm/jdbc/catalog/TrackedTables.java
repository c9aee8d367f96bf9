package org.calciteivm.jdbc.catalog;

import com.google.common.collect.ImmutableList;
import java.sql.Connection;
import java.sql.PreparedStatement;
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
    String definitions =
        relation.columns().stream()
            .filter(c -> columns.contains(c.name()))
            .map(c -> IvmNames.quote(c.name()) + " " + c.dataType() + ", ")
            .collect(Collectors.joining());
    try (Statement s = connection.createStatement()) {
      s.execute(
          "CREATE TABLE "
              + table.deltaTable()
              + " ("
              + definitions
              + IvmNames.quote(ZSets.WEIGHT_COLUMN)
              + " BIGINT NOT NULL, "
              + IvmNames.quote(IvmNames.EPOCH_COLUMN)
              + " BIGINT)");
    }
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
    try (Statement s = connection.createStatement()) {
      for (Column column : table.relation().columns()) {
        if (columns.contains(column.name()) && !table.captures(column.name())) {
          s.execute(
              "ALTER TABLE "
                  + table.deltaTable()
                  + " ADD COLUMN "
                  + IvmNames.quote(column.name())
                  + " "
                  + column.dataType());
          captured.add(column.name());
        }
      }
    }
    return new TrackedTable(table.id(), table.relation(), ImmutableList.copyOf(captured));
  }

  /** Stops tracking {@code table}: drops its delta table and forgets it. */
  public static void untrack(Connection connection, TrackedTable table) throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute("DROP TABLE " + table.deltaTable());
      s.execute("DELETE FROM " + IvmCatalog.TABLES + " WHERE table_id = " + table.id());
    }
  }
}
