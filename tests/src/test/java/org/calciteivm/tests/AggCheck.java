package org.calciteivm.tests;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link ViewCheck} for aggregate views whose SUM or AVG over DOUBLE values may differ from a
 * recompute in the last bits.
 *
 * <p>Tolerance: a maintained SUM adds the changes in another order than a recompute does, and
 * floating-point addition is not associative, so SUM and AVG over DOUBLE values are compared after
 * {@code round(x, 9)}; so is AVG over DECIMAL values, which the README documents as possibly
 * differing from DuckDB's in the last bit. Everything else (COUNT, MIN, MAX, SUM of integers and
 * DECIMALs, AVG of integers), the column names and the column types are compared exactly. The
 * values generated here are small (sums of at most a few hundred values below 10^3), where a double
 * resolves better than 10^-10, so a few ulps of difference survive the rounding only when a value
 * lies right at a rounding boundary; then the rows are compared once more, sorted, each approximate
 * value within a relative 1e-9 (absolute 1e-9 below 1) of the other.
 */
final class AggCheck {
  private static final double TOLERANCE = 1e-9;

  private AggCheck() {}

  /**
   * Throws an {@link AssertionError} naming {@code where} unless every hidden view that {@code
   * view} keeps holds the rows of its own query, DOUBLE columns (sums whose partials add up in
   * another order) within the tolerance.
   */
  static void assertHiddenViewsMatch(Connection connection, String view, String where)
      throws SQLException {
    for (ViewCheck.HiddenView hidden : ViewCheck.hiddenViews(connection, view)) {
      List<Boolean> approximate = new ArrayList<>();
      for (String[] column : columns(connection, "DESCRIBE " + hidden.query())) {
        approximate.add(column[1].equals("DOUBLE") || column[1].equals("FLOAT"));
      }
      assertMatches(
          connection,
          hidden.name(),
          hidden.query(),
          approximate,
          where + ", hidden view of " + view);
    }
  }

  /**
   * Throws an {@link AssertionError} naming {@code where} unless {@code view} holds the rows of
   * {@code query}, exactly in the columns where {@code approximate} is false and within the
   * tolerance in the others.
   */
  static void assertMatches(
      Connection connection, String view, String query, List<Boolean> approximate, String where)
      throws SQLException {
    if (!approximate.contains(true)) {
      ViewCheck.assertMatches(connection, view, query, where);
      return;
    }
    List<String[]> expectedColumns = columns(connection, "DESCRIBE " + query);
    List<String[]> actualColumns = columns(connection, "DESCRIBE SELECT * FROM " + view);
    if (!render(expectedColumns).equals(render(actualColumns))) {
      throw new AssertionError(
          String.format(
              "%s: materialized view %s has columns %s but its query gives %s%n  query: %s",
              where, view, render(actualColumns), render(expectedColumns), query));
    }
    List<String> rounded = new ArrayList<>();
    List<String> order = new ArrayList<>();
    for (int i = 0; i < expectedColumns.size(); i++) {
      String name = quote(expectedColumns.get(i)[0]);
      rounded.add(approximate.get(i) ? "round(" + name + ", 9) AS " + name : name);
      if (!approximate.get(i)) {
        order.add(name);
      }
    }
    for (int i = 0; i < expectedColumns.size(); i++) {
      if (approximate.get(i)) {
        order.add(quote(expectedColumns.get(i)[0]));
      }
    }
    String select = "SELECT " + String.join(", ", rounded) + " FROM ";
    String recompute = select + "(" + query + "\n) q";
    String stored = select + view;
    try {
      ViewCheck.assertMatches(connection, "(" + stored + ")", recompute, where);
    } catch (AssertionError roundedDiffers) {
      String sorted = " ORDER BY " + String.join(", ", order) + " NULLS FIRST";
      if (!withinTolerance(
          connection,
          "SELECT * FROM (" + query + "\n) q" + sorted,
          "SELECT * FROM " + view + sorted,
          approximate)) {
        throw roundedDiffers;
      }
    }
  }

  /** Compares two sorted results row by row: approximate columns within the tolerance. */
  private static boolean withinTolerance(
      Connection connection, String expectedSql, String actualSql, List<Boolean> approximate)
      throws SQLException {
    List<List<Object>> expected = values(connection, expectedSql);
    List<List<Object>> actual = values(connection, actualSql);
    if (expected.size() != actual.size()) {
      return false;
    }
    for (int row = 0; row < expected.size(); row++) {
      for (int column = 0; column < approximate.size(); column++) {
        Object e = expected.get(row).get(column);
        Object a = actual.get(row).get(column);
        if (e == null || a == null || !approximate.get(column)) {
          if (e == null ? a != null : !e.equals(a)) {
            return false;
          }
        } else {
          double x = ((Number) e).doubleValue();
          double y = ((Number) a).doubleValue();
          if (Math.abs(x - y) > TOLERANCE * Math.max(1, Math.max(Math.abs(x), Math.abs(y)))) {
            return false;
          }
        }
      }
    }
    return true;
  }

  private static List<List<Object>> values(Connection connection, String sql) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet resultSet = statement.executeQuery(sql)) {
      int columnCount = resultSet.getMetaData().getColumnCount();
      while (resultSet.next()) {
        List<Object> row = new ArrayList<>();
        for (int i = 1; i <= columnCount; i++) {
          row.add(resultSet.getObject(i));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  /** Name and type of each column as {@code DESCRIBE} lists them. */
  private static List<String[]> columns(Connection connection, String describe)
      throws SQLException {
    List<String[]> columns = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet resultSet = statement.executeQuery(describe)) {
      while (resultSet.next()) {
        columns.add(
            new String[] {resultSet.getString("column_name"), resultSet.getString("column_type")});
      }
    }
    return columns;
  }

  private static List<String> render(List<String[]> columns) {
    return columns.stream().map(c -> c[0] + " " + c[1]).toList();
  }

  private static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }
}
