package org.calciteivm.cli;

import java.io.PrintWriter;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Set;
import org.calciteivm.jdbc.sql.ParsedStatement;
import org.calciteivm.jdbc.sql.ParsedStatement.WriteKind;
import org.calciteivm.jdbc.sql.SqlToken;
import org.calciteivm.jdbc.sql.StatementParser;

/**
 * Prints result sets as tab-separated lines: the column labels, then one line per row, with SQL
 * NULL as {@code NULL} and every other value as the driver's {@link ResultSet#getString}.
 *
 * <p>A statement that changes rows prints one line, its kind and its update count, tab-separated:
 * {@code INSERT\t3}, {@code UPDATE}, {@code DELETE}, {@code TRUNCATE}, {@code COPY}, {@code MERGE},
 * and {@code REFRESH\t12} for {@code REFRESH MATERIALIZED VIEW}, whose count is the captured change
 * rows it consumed. Other statements (DDL, {@code SET}, transaction control) print nothing: their
 * update count means nothing (DuckDB says -1 for DDL, Avatica's server 0).
 */
final class ResultPrinter {
  /** The verbs that name a statement that changes rows. */
  private static final Set<String> VERBS =
      Set.of("INSERT", "UPDATE", "DELETE", "TRUNCATE", "COPY", "MERGE");

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

  /**
   * Prints the update count of {@code sql}, which returned no result set, if it is a statement that
   * changes rows.
   */
  void printCount(String sql, int updateCount) {
    String kind = countedKind(sql);
    if (kind == null || updateCount < 0) {
      return;
    }
    emit(new StringBuilder(kind).append('\t').append(updateCount));
    out.flush();
  }

  /** The label of a statement whose update count is printed, or null for other statements. */
  private static String countedKind(String sql) {
    ParsedStatement parsed;
    try {
      parsed = StatementParser.parse(sql);
    } catch (SQLException e) {
      // It ran, so the driver could read it; a statement this parser cannot frame prints nothing.
      return null;
    }
    if (parsed instanceof ParsedStatement.RefreshMaterializedView) {
      return "REFRESH";
    }
    if (!(parsed instanceof ParsedStatement.Write write)) {
      return null;
    }
    if (write.kind() != WriteKind.UNCAPTURABLE) {
      return write.kind().name();
    }
    // COPY ... FROM, MERGE INTO, INSERT OR REPLACE, WITH ... UPDATE: named by their verb.
    return write.tokens().stream()
        .filter(token -> token.kind() == SqlToken.Kind.WORD)
        .map(token -> token.text().toUpperCase(Locale.ROOT))
        .filter(VERBS::contains)
        .findFirst()
        .orElse("UPDATE COUNT");
  }

  // println would flush on every row: the tool's PrintWriter auto-flushes.
  private void emit(StringBuilder line) {
    line.append('\n');
    out.write(line.toString());
    line.setLength(0);
  }
}
