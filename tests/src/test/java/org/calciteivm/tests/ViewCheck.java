package org.calciteivm.tests;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The check that every refresh is followed by: the stored view equals a recompute of its query.
 *
 * <p>Rows are compared as bags with {@code EXCEPT ALL} in both directions inside DuckDB, so
 * duplicates count and NULLs compare equal. Column names and types are compared with what DuckDB
 * gives the query itself (after DuckDB's renaming of duplicate names, as {@code CREATE VIEW} does),
 * because {@code SELECT * FROM view} must show exactly the view's columns.
 */
final class ViewCheck {
  private static final int SHOWN_ROWS = 20;

  private ViewCheck() {}

  /**
   * Throws an {@link AssertionError} naming {@code where} unless {@code view} holds exactly the bag
   * of rows {@code query} returns now, with the same column names and types.
   */
  static void assertMatches(Connection connection, String view, String query, String where)
      throws SQLException {
    // A trailing "-- comment" in the query must not swallow the closing parenthesis.
    String recompute = "(" + query + "\n)";
    String stored = "(SELECT * FROM " + view + ")";
    List<String> missing = rows(connection, recompute + " EXCEPT ALL " + stored);
    List<String> extra = rows(connection, stored + " EXCEPT ALL " + recompute);
    if (!missing.isEmpty() || !extra.isEmpty()) {
      throw new AssertionError(
          String.format(
              "%s: materialized view %s differs from its query%n  query: %s%n"
                  + "  rows the view lacks:%s%n  rows the view has in excess:%s",
              where, view, query, show(missing), show(extra)));
    }
    List<Column> expectedColumns = deduplicated(columns(connection, "DESCRIBE " + query));
    List<Column> actualColumns = columns(connection, "DESCRIBE SELECT * FROM " + view);
    if (!expectedColumns.equals(actualColumns)) {
      throw new AssertionError(
          String.format(
              "%s: materialized view %s has columns %s but its query gives %s%n  query: %s",
              where, view, actualColumns, expectedColumns, query));
    }
  }

  /** A hidden view: its name, qualified, and its query (in _ivm.views). */
  record HiddenView(String name, String query) {}

  /**
   * The hidden views (intermediate states) that the materialized view {@code view} keeps, with
   * those their own hidden views keep, from the catalog.
   */
  static List<HiddenView> hiddenViews(Connection connection, String view) throws SQLException {
    List<HiddenView> hidden = new ArrayList<>();
    String sql =
        "WITH RECURSIVE owned(id) AS (SELECT view_id FROM _ivm.views WHERE owner_view_id IS NULL"
            + " AND lower(view_name) = lower(?) UNION ALL SELECT v.view_id FROM _ivm.views v"
            + " JOIN owned o ON v.owner_view_id = o.id)"
            + " SELECT view_name, query FROM _ivm.views"
            + " WHERE owner_view_id IS NOT NULL AND view_id IN (SELECT id FROM owned)"
            + " ORDER BY view_id";
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, view);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          hidden.add(
              new HiddenView(
                  "_ivm.\"" + rows.getString(1).replace("\"", "\"\"") + "\"", rows.getString(2)));
        }
      }
    }
    return hidden;
  }

  /**
   * Throws an {@link AssertionError} naming {@code where} unless every hidden view that {@code
   * view} keeps equals its own query run now over the base tables: every intermediate state, not
   * only the view on top.
   */
  static void assertHiddenViewsMatch(Connection connection, String view, String where)
      throws SQLException {
    for (HiddenView hidden : hiddenViews(connection, view)) {
      assertMatches(connection, hidden.name(), hidden.query(), where + ", hidden view of " + view);
    }
  }

  /** Runs {@code sql} and renders each row tab-separated, NULL as {@code NULL}. */
  static List<String> rows(Connection connection, String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet resultSet = statement.executeQuery(sql)) {
      int columnCount = resultSet.getMetaData().getColumnCount();
      while (resultSet.next()) {
        List<String> values = new ArrayList<>();
        for (int i = 1; i <= columnCount; i++) {
          String value = resultSet.getString(i);
          values.add(value == null ? "NULL" : value.isEmpty() ? "(empty)" : value);
        }
        rows.add(String.join("\t", values));
      }
    }
    return rows;
  }

  /** A column as {@code DESCRIBE} lists it. */
  private record Column(String name, String type) {
    @Override
    public String toString() {
      return name + " " + type;
    }
  }

  private static List<Column> columns(Connection connection, String describe) throws SQLException {
    List<Column> columns = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet resultSet = statement.executeQuery(describe)) {
      while (resultSet.next()) {
        columns.add(
            new Column(resultSet.getString("column_name"), resultSet.getString("column_type")));
      }
    }
    return columns;
  }

  /** Renames repeated column names as DuckDB does in views: {@code a, a} becomes {@code a, a_1}. */
  private static List<Column> deduplicated(List<Column> columns) {
    List<String> names = new ArrayList<>();
    List<Column> result = new ArrayList<>();
    for (Column column : columns) {
      String unique = column.name();
      for (int suffix = 1; names.contains(unique.toLowerCase(Locale.ROOT)); suffix++) {
        unique = column.name() + "_" + suffix;
      }
      names.add(unique.toLowerCase(Locale.ROOT));
      result.add(new Column(unique, column.type()));
    }
    return result;
  }

  private static String show(List<String> rows) {
    if (rows.isEmpty()) {
      return " none";
    }
    StringBuilder text = new StringBuilder();
    rows.stream().limit(SHOWN_ROWS).forEach(row -> text.append("\n    ").append(row));
    if (rows.size() > SHOWN_ROWS) {
      text.append("\n    ... ").append(rows.size() - SHOWN_ROWS).append(" more");
    }
    return text.toString();
  }
}
