package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.List;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * DuckDB's {@code list(x ORDER BY y)}, written as {@code array_agg(x ORDER BY y)}: {@code list} is
 * DuckDB's name of the same aggregate, and Calcite's parser takes an {@code ORDER BY} only in the
 * calls it knows to order their rows (it reported "ORDER BY unexpected"). Only a call with an
 * {@code ORDER BY} of its own is renamed: a {@code list(x)} without one stays, to be refused by its
 * name as an aggregate that depends on the order of the rows. CREATE stores the rewritten query.
 */
final class OrderedListCalls {
  private OrderedListCalls() {}

  /** {@code query} with its ordered {@code list} calls renamed; {@code query} if it has none. */
  static String rewrite(String query) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    StringBuilder rewritten = new StringBuilder();
    int copied = 0;
    for (int i = 0; i + 1 < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      boolean call =
          token.kind() == SqlToken.Kind.WORD
              && token.upper().equals("LIST")
              && tokens.get(i + 1).isSymbol("(")
              && (i == 0 || !tokens.get(i - 1).isSymbol("."));
      if (call && ordersItsRows(tokens, i + 1)) {
        rewritten.append(query, copied, token.start()).append("array_agg");
        copied = token.end();
      }
    }
    return copied == 0 ? query : rewritten.append(query.substring(copied)).toString();
  }

  /** Whether the call whose argument list opens at {@code open} has ORDER BY at its own level. */
  private static boolean ordersItsRows(List<SqlToken> tokens, int open) {
    int depth = 0;
    for (int i = open; i < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        depth--;
        if (depth == 0) {
          return false;
        }
      } else if (depth == 1
          && token.isKeyword("ORDER")
          && i + 1 < tokens.size()
          && tokens.get(i + 1).isKeyword("BY")) {
        return true;
      }
    }
    return false;
  }
}
