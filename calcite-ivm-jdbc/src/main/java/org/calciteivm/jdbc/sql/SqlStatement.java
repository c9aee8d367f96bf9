package org.calciteivm.jdbc.sql;

import com.google.common.collect.ImmutableList;
import java.sql.SQLException;
import java.util.function.Predicate;

/**
 * One SQL statement with its tokens, lexed once: a script's statements get theirs when the script
 * is split ({@link SqlScript#statements}), and every later reader of the statement uses them.
 *
 * @param sql the statement's text
 * @param tokens its tokens, with positions in {@code sql}
 */
public record SqlStatement(String sql, ImmutableList<SqlToken> tokens) {

  /** Lexes {@code sql}, a single statement (such as a prepared statement's). */
  public static SqlStatement of(String sql) throws SQLException {
    return new SqlStatement(sql, ImmutableList.copyOf(SqlLexer.tokenize(sql)));
  }

  /**
   * The index of the first token in {@code [from, to)} that {@code matches} and stands outside
   * every parenthesis, bracket and brace (a struct literal) opened in that range, or -1. This is
   * how the driver skips expressions and subqueries it does not read.
   */
  public int topLevel(int from, int to, Predicate<SqlToken> matches) {
    int depth = 0;
    for (int i = from; i < to; i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(") || token.isSymbol("[") || token.isSymbol("{")) {
        depth++;
      } else if (token.isSymbol(")") || token.isSymbol("]") || token.isSymbol("}")) {
        depth--;
      } else if (depth == 0 && matches.test(token)) {
        return i;
      }
    }
    return -1;
  }

  /** The index of the first token that starts at or after offset {@code offset}. */
  public int tokenIndexAt(int offset) {
    for (int i = 0; i < tokens.size(); i++) {
      if (tokens.get(i).start() >= offset) {
        return i;
      }
    }
    return tokens.size();
  }
}
