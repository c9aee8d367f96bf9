package org.calciteivm.jdbc.sql;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/** Reads the tokens of one statement from left to right. */
public final class TokenCursor {
  private final SqlStatement statement;
  private final String sql;
  private final List<SqlToken> tokens;
  private int index;

  /** A cursor at the first token of {@code statement}. */
  public TokenCursor(SqlStatement statement) {
    this(statement, 0);
  }

  /** A cursor at token {@code index} of {@code statement}. */
  public TokenCursor(SqlStatement statement, int index) {
    this.statement = statement;
    this.sql = statement.sql();
    this.tokens = statement.tokens();
    this.index = index;
  }

  /** The statement being read. */
  public SqlStatement statement() {
    return statement;
  }

  /** The statement's text. */
  public String sql() {
    return sql;
  }

  /** Whether every token has been read. */
  public boolean atEnd() {
    return index >= tokens.size();
  }

  /** The current token, or null at the end. */
  public SqlToken peek() {
    return peek(0);
  }

  /** The token {@code ahead} positions after the current one, or null past the end. */
  public SqlToken peek(int ahead) {
    int i = index + ahead;
    return i < tokens.size() ? tokens.get(i) : null;
  }

  /** Returns the current token and moves past it. */
  public SqlToken next() throws SQLException {
    if (atEnd()) {
      throw new SQLException("unexpected end of statement: " + sql, "42601");
    }
    return tokens.get(index++);
  }

  /** Moves past the current token if it is the word {@code keyword}; says whether it did. */
  public boolean accept(String keyword) {
    SqlToken token = peek();
    if (token != null && token.isKeyword(keyword)) {
      index++;
      return true;
    }
    return false;
  }

  /** Moves past a sequence of keywords if all of them come next; says whether it did. */
  public boolean acceptAll(String... keywords) {
    for (int i = 0; i < keywords.length; i++) {
      SqlToken token = peek(i);
      if (token == null || !token.isKeyword(keywords[i])) {
        return false;
      }
    }
    index += keywords.length;
    return true;
  }

  /** Moves past the word {@code keyword} or fails. */
  public void expect(String keyword) throws SQLException {
    if (!accept(keyword)) {
      SqlToken token = peek();
      throw new SQLException(
          "syntax error: expected "
              + keyword
              + (token == null ? " at end of statement" : " at \"" + token.text() + "\""),
          "42601");
    }
  }

  /** Reads a possibly qualified name ({@code a}, {@code a.b}, {@code a.b.c}). */
  public ObjectName name() throws SQLException {
    SqlToken first = next();
    if (!first.isIdentifier()) {
      throw new SQLException("syntax error: expected a name at \"" + first.text() + "\"", "42601");
    }
    List<String> parts = new ArrayList<>();
    parts.add(first.identifier());
    SqlToken last = first;
    while (peek() != null && peek().isSymbol(".") && peek(1) != null && peek(1).isIdentifier()) {
      index++;
      last = next();
      parts.add(last.identifier());
    }
    return ObjectName.of(
        parts, first.start(), last.end(), last.kind() == SqlToken.Kind.QUOTED_IDENTIFIER);
  }

  /**
   * Moves to the first token from here on that {@code matches} outside the parentheses and brackets
   * opened from here ({@link SqlStatement#topLevel}); says whether there is one, else moves to the
   * end.
   */
  public boolean skipToTopLevel(Predicate<SqlToken> matches) {
    int found = statement.topLevel(index, tokens.size(), matches);
    index = found < 0 ? tokens.size() : found;
    return found >= 0;
  }

  /** The statement's text from the current token to the end, or "" at the end. */
  public String rest() {
    return atEnd() ? "" : sql.substring(peek().start());
  }
}
