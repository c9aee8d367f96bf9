package org.calciteivm.jdbc.refresh;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A column of a query's result as DuckDB describes it.
 *
 * @param name its name, unique in the result
 * @param type DuckDB's spelling of its type
 */
record DescribedColumn(String name, String type) {

  /**
   * The names and types DuckDB gives the columns of {@code query}, names made unique as {@code
   * CREATE TABLE ... AS} makes them ({@code a}, {@code a_1}, ...).
   */
  static List<DescribedColumn> describe(Connection connection, String query) throws SQLException {
    List<DescribedColumn> columns = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    try (Statement s = connection.createStatement();
        ResultSet rs = s.executeQuery("DESCRIBE " + query)) {
      while (rs.next()) {
        String name = rs.getString("column_name");
        String unique = name;
        for (int suffix = 1; !seen.add(unique.toLowerCase(Locale.ROOT)); suffix++) {
          unique = name + "_" + suffix;
        }
        columns.add(new DescribedColumn(unique, rs.getString("column_type")));
      }
    }
    return columns;
  }
}
