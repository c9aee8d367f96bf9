package org.calciteivm.cli;

import java.io.PrintWriter;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;

/**
 * Prints result sets as tab-separated lines: the column labels, then one line per row, with SQL
 * NULL as {@code NULL} and every other value as the driver's {@link ResultSet#getString}.
 */
final class ResultPrinter {
  private final PrintWriter out;

  ResultPrinter(PrintWriter out) {
    this.out = out;
  }

  /** Prints all rows of {@code rs} (not closing it) and flushes the output. */
  void print(ResultSet rs) throws SQLException {
    ResultSetMetaData metaData = rs.getMetaData();
    int columns = metaData.getColumnCount();
    StringBuilder line = new StringBuilder();
    for (int i = 1; i <= columns; i++) {
      if (i > 1) {
        line.append('\t');
      }
      line.append(metaData.getColumnLabel(i));
    }
    emit(line);
    while (rs.next()) {
      for (int i = 1; i <= columns; i++) {
        if (i > 1) {
          line.append('\t');
        }
        String value = rs.getString(i);
        line.append(value == null ? "NULL" : value);
      }
      emit(line);
    }
    out.flush();
  }

  // println would flush on every row: the tool's PrintWriter auto-flushes.
  private void emit(StringBuilder line) {
    line.append('\n');
    out.write(line.toString());
    line.setLength(0);
  }
}
