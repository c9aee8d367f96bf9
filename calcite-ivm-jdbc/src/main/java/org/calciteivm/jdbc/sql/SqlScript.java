package org.calciteivm.jdbc.sql;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** A SQL text split into statements at top-level semicolons. */
public final class SqlScript {
  private SqlScript() {}

  /**
   * Splits {@code script} into its statements, each trimmed and without its terminating semicolon;
   * statements that hold only comments or whitespace are dropped. Semicolons inside strings, quoted
   * identifiers and comments do not split.
   */
  public static List<String> split(String script) throws SQLException {
    List<String> statements = new ArrayList<>();
    int start = -1;
    int end = -1;
    for (SqlToken token : SqlLexer.tokenize(script)) {
      if (token.kind() == SqlToken.Kind.SEMICOLON) {
        if (start >= 0) {
          statements.add(script.substring(start, end));
        }
        start = -1;
      } else {
        if (start < 0) {
          start = token.start();
        }
        end = token.end();
      }
    }
    if (start >= 0) {
      statements.add(script.substring(start, end));
    }
    return statements;
  }
}
