package org.calciteivm.jdbc.sql;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.calciteivm.jdbc.sql.SqlToken.Kind;

/**
 * Splits DuckDB SQL text into tokens.
 *
 * <p>It knows only what is needed to find statement boundaries and the few keywords that the driver
 * acts on: comments, string literals (including dollar-quoted ones), quoted identifiers, numbers,
 * words and symbols. Everything else in a statement is passed on to DuckDB as written.
 */
public final class SqlLexer {
  private final String sql;
  private int pos;

  private SqlLexer(String sql) {
    this.sql = sql;
  }

  /** Returns the tokens of {@code sql}; fails on an unterminated string, identifier or comment. */
  public static List<SqlToken> tokenize(String sql) throws SQLException {
    return new SqlLexer(sql).run();
  }

  private List<SqlToken> run() throws SQLException {
    List<SqlToken> tokens = new ArrayList<>();
    while (true) {
      skipSpaceAndComments();
      if (pos >= sql.length()) {
        return tokens;
      }
      tokens.add(next());
    }
  }

  private void skipSpaceAndComments() throws SQLException {
    while (pos < sql.length()) {
      char c = sql.charAt(pos);
      if (Character.isWhitespace(c)) {
        pos++;
      } else if (sql.startsWith("--", pos)) {
        int eol = sql.indexOf('\n', pos);
        pos = eol < 0 ? sql.length() : eol + 1;
      } else if (sql.startsWith("/*", pos)) {
        int close = sql.indexOf("*/", pos + 2);
        if (close < 0) {
          throw new SQLException("unterminated comment in SQL starting at offset " + pos);
        }
        pos = close + 2;
      } else {
        return;
      }
    }
  }

  private SqlToken next() throws SQLException {
    int start = pos;
    char c = sql.charAt(pos);
    if (c == '\'') {
      pos = closingQuote('\'', pos + 1, "string literal");
      return token(Kind.STRING, start);
    }
    if ((c == 'E' || c == 'e') && pos + 1 < sql.length() && sql.charAt(pos + 1) == '\'') {
      pos = closingEscapedQuote(pos + 2);
      return token(Kind.STRING, start);
    }
    if (c == '"') {
      pos = closingQuote('"', pos + 1, "quoted identifier");
      return token(Kind.QUOTED_IDENTIFIER, start);
    }
    if (c == '$') {
      String tag = dollarTag();
      if (tag != null) {
        int close = sql.indexOf(tag, pos + tag.length());
        if (close < 0) {
          throw new SQLException("unterminated dollar-quoted string starting at offset " + start);
        }
        pos = close + tag.length();
        return token(Kind.STRING, start);
      }
    }
    if (c == ';') {
      pos++;
      return token(Kind.SEMICOLON, start);
    }
    if (Character.isDigit(c)
        || (c == '.' && pos + 1 < sql.length() && Character.isDigit(sql.charAt(pos + 1)))) {
      while (pos < sql.length()
          && (Character.isLetterOrDigit(sql.charAt(pos))
              || sql.charAt(pos) == '.'
              || sql.charAt(pos) == '_')) {
        pos++;
      }
      return token(Kind.NUMBER, start);
    }
    if (Character.isLetter(c) || c == '_') {
      while (pos < sql.length()
          && (Character.isLetterOrDigit(sql.charAt(pos))
              || sql.charAt(pos) == '_'
              || sql.charAt(pos) == '$')) {
        pos++;
      }
      return token(Kind.WORD, start);
    }
    pos++;
    return token(Kind.SYMBOL, start);
  }

  /** Returns the offset just past the quote that closes a literal opened before {@code from}. */
  private int closingQuote(char quote, int from, String what) throws SQLException {
    int i = from;
    while (i < sql.length()) {
      if (sql.charAt(i) == quote) {
        if (i + 1 < sql.length() && sql.charAt(i + 1) == quote) {
          i += 2; // a doubled quote stands for one quote character
          continue;
        }
        return i + 1;
      }
      i++;
    }
    throw new SQLException("unterminated " + what + " in SQL starting at offset " + (from - 1));
  }

  /** Like {@link #closingQuote} for {@code E'...'} strings, where a backslash escapes. */
  private int closingEscapedQuote(int from) throws SQLException {
    int i = from;
    while (i < sql.length()) {
      char c = sql.charAt(i);
      if (c == '\\') {
        i += 2;
      } else if (c == '\'') {
        if (i + 1 < sql.length() && sql.charAt(i + 1) == '\'') {
          i += 2;
          continue;
        }
        return i + 1;
      } else {
        i++;
      }
    }
    throw new SQLException("unterminated string literal in SQL starting at offset " + (from - 2));
  }

  /** The tag ({@code $$} or {@code $name$}) of a dollar-quoted string starting here, or null. */
  private String dollarTag() {
    int i = pos + 1;
    while (i < sql.length() && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) {
      i++;
    }
    if (i < sql.length() && sql.charAt(i) == '$') {
      String tag = sql.substring(pos, i + 1);
      // "$1" is a positional parameter, not a tag
      return tag.length() > 2 && Character.isDigit(tag.charAt(1)) ? null : tag;
    }
    return null;
  }

  private SqlToken token(Kind kind, int start) {
    return new SqlToken(kind, sql.substring(start, pos), start, pos);
  }
}
