package org.calciteivm.rules.frontend;

import org.apache.calcite.sql.parser.SqlParser;

/**
 * DuckDB's lambdas ({@code lambda x, y: body}, its only spelling since 2.0) in the spelling
 * Calcite's parser reads ({@code (x, y) -> body}), for parsing only: the query's text keeps
 * DuckDB's spelling (DuckDB reads it, and refuses Calcite's), and the SQL written back for DuckDB
 * spells lambdas its way ({@code org.calciteivm.rules.sql.DuckDbLambdas}).
 *
 * <p>The head {@code lambda x, y:} is replaced by {@code (x, y)->} padded with spaces to the same
 * length, so that every other position in the text stays where it was: rewrites of the query that
 * edit it by the positions of a parse still find their places.
 */
public final class LambdaSyntax {
  private LambdaSyntax() {}

  /** A parser of {@code sql} under {@code config}, with DuckDB's lambdas read as Calcite's. */
  public static SqlParser parser(String sql, SqlParser.Config config) {
    return SqlParser.create(forCalcite(sql), config);
  }

  /** {@code sql} with each lambda head in Calcite's spelling; {@code sql} if it has none. */
  public static String forCalcite(String sql) {
    StringBuilder text = null;
    int i = 0;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (c == '\'' || c == '"') {
        i = closing(sql, i, c);
      } else if (sql.startsWith("--", i)) {
        int end = sql.indexOf('\n', i);
        i = end < 0 ? sql.length() : end;
      } else if (sql.startsWith("/*", i)) {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? sql.length() : end + 2;
      } else if (isWordStart(c) && (i == 0 || !isWordPart(sql.charAt(i - 1)))) {
        int end = wordEnd(sql, i);
        int colon = sql.substring(i, end).equalsIgnoreCase("lambda") ? headEnd(sql, end) : -1;
        if (colon >= 0) {
          String parameters = sql.substring(end, colon).strip();
          String head = "(" + parameters + ")->";
          if (text == null) {
            text = new StringBuilder(sql);
          }
          text.replace(i, colon + 1, head + " ".repeat(colon + 1 - i - head.length()));
          i = colon + 1;
        } else {
          i = end;
        }
      } else {
        i++;
      }
    }
    return text == null ? sql : text.toString();
  }

  /**
   * Where the colon that ends a lambda's parameters after position {@code at} is (names separated
   * by commas, then {@code :} but not {@code ::}), or -1 if none does.
   */
  private static int headEnd(String sql, int at) {
    int i = at;
    while (true) {
      i = skipSpaces(sql, i);
      if (i < sql.length() && sql.charAt(i) == '"') {
        i = closing(sql, i, '"');
      } else if (i < sql.length() && isWordStart(sql.charAt(i))) {
        i = wordEnd(sql, i);
      } else {
        return -1;
      }
      i = skipSpaces(sql, i);
      if (i < sql.length() && sql.charAt(i) == ',') {
        i++;
      } else if (i < sql.length()
          && sql.charAt(i) == ':'
          && (i + 1 == sql.length() || sql.charAt(i + 1) != ':')) {
        return i;
      } else {
        return -1;
      }
    }
  }

  /** The position after the quoted text that opens with {@code quote} at {@code at}. */
  private static int closing(String sql, int at, char quote) {
    int i = at + 1;
    while (i < sql.length()) {
      if (sql.charAt(i) == quote) {
        if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
          i += 2;
          continue;
        }
        return i + 1;
      }
      i++;
    }
    return sql.length();
  }

  private static int skipSpaces(String sql, int at) {
    int i = at;
    while (i < sql.length() && Character.isWhitespace(sql.charAt(i))) {
      i++;
    }
    return i;
  }

  private static int wordEnd(String sql, int at) {
    int i = at;
    while (i < sql.length() && isWordPart(sql.charAt(i))) {
      i++;
    }
    return i;
  }

  private static boolean isWordStart(char c) {
    return Character.isLetter(c) || c == '_';
  }

  private static boolean isWordPart(char c) {
    return Character.isLetterOrDigit(c) || c == '_' || c == '$';
  }
}
