package org.calciteivm.jdbc;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The rows of a query as a bag the tests compare: each row rendered as text, sorted. */
public final class TestRows {
  private TestRows() {}

  /** The rows of {@code sql} on {@code c}, each its values joined by {@code |}, sorted. */
  public static List<String> of(Connection c, String sql) throws SQLException {
    try (Statement statement = c.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      return of(rs);
    }
  }

  /** The rows of {@code rs}, each its values joined by {@code |}, sorted. */
  public static List<String> of(ResultSet rs) throws SQLException {
    List<String> rows = new ArrayList<>();
    int columns = rs.getMetaData().getColumnCount();
    while (rs.next()) {
      StringBuilder row = new StringBuilder();
      for (int i = 1; i <= columns; i++) {
        row.append(rs.getString(i)).append('|');
      }
      rows.add(row.toString());
    }
    Collections.sort(rows);
    return rows;
  }
}
