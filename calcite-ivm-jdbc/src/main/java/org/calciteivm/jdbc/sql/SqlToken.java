package org.calciteivm.jdbc.sql;

import java.util.Locale;

/**
 * One lexical token of a DuckDB SQL text, with its position in the text.
 *
 * @param kind what the token is
 * @param text the token exactly as written
 * @param start offset of the first character in the source text
 * @param end offset just past the last character in the source text
 */
public record SqlToken(Kind kind, String text, int start, int end) {

  /** Token kinds; comments and whitespace are not tokens. */
  public enum Kind {
    /** An unquoted word: a keyword or an identifier. */
    WORD,
    /** A double-quoted identifier. */
    QUOTED_IDENTIFIER,
    /** A string literal, single-quoted or dollar-quoted. */
    STRING,
    /** A numeric literal. */
    NUMBER,
    /** Any other character or operator. */
    SYMBOL,
    /** A statement separator. */
    SEMICOLON
  }

  /** Whether this is the unquoted word {@code keyword}, ignoring case. */
  public boolean isKeyword(String keyword) {
    return kind == Kind.WORD && text.equalsIgnoreCase(keyword);
  }

  /** Whether this is the symbol {@code symbol}. */
  public boolean isSymbol(String symbol) {
    return kind == Kind.SYMBOL && text.equals(symbol);
  }

  /** Whether this token can name a relation or column. */
  public boolean isIdentifier() {
    return kind == Kind.WORD || kind == Kind.QUOTED_IDENTIFIER;
  }

  /**
   * The name this token denotes: a quoted identifier without its quotes, an unquoted word as
   * written. DuckDB matches both case-insensitively.
   */
  public String identifier() {
    if (kind == Kind.QUOTED_IDENTIFIER) {
      return text.substring(1, text.length() - 1).replace("\"\"", "\"");
    }
    return text;
  }

  /** The upper-case text of a word, for keyword comparisons. */
  public String upper() {
    return text.toUpperCase(Locale.ROOT);
  }
}
