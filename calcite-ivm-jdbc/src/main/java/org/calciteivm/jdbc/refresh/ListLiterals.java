package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * DuckDB's list literals ({@code [a, b, c]}), written as the {@code list_value(a, b, c)} call they
 * are, which Calcite's parser reads (it knows {@code [} only as a subscript) and DuckDB evaluates
 * the same. A {@code [} starts a list where no expression ends just before it; after a name, a
 * closing parenthesis or bracket, or a literal it is a subscript and stays (so does {@code
 * ARRAY[...]}, which Calcite reads). CREATE stores the rewritten query.
 */
public final class ListLiterals {
  private ListLiterals() {}

  /** {@code query} with its list literals written as calls; {@code query} itself if it has none. */
  public static String rewrite(String query) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    StringBuilder rewritten = new StringBuilder();
    Deque<Boolean> brackets = new ArrayDeque<>(); // for each open bracket: whether it is a list
    int copied = 0;
    boolean changed = false;
    for (int i = 0; i < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("[")) {
        boolean list = i == 0 || !endsExpression(tokens.get(i - 1));
        brackets.push(list);
        if (list) {
          rewritten.append(query, copied, token.start()).append("list_value(");
          copied = token.end();
          changed = true;
        }
      } else if (token.isSymbol("]") && !brackets.isEmpty() && brackets.pop()) {
        rewritten.append(query, copied, token.start()).append(')');
        copied = token.end();
      }
    }
    return changed ? rewritten.append(query.substring(copied)).toString() : query;
  }

  /** Whether an expression can end with {@code token}, so that a {@code [} after it subscripts. */
  static boolean endsExpression(SqlToken token) {
    return token.isSymbol(")")
        || token.isSymbol("]")
        || token.kind() == SqlToken.Kind.QUOTED_IDENTIFIER
        || token.kind() == SqlToken.Kind.STRING
        || token.kind() == SqlToken.Kind.NUMBER
        || token.kind() == SqlToken.Kind.WORD && !isKeywordBeforeExpression(token);
  }

  /** Words after which an expression starts (so a {@code [} there opens a list). */
  private static boolean isKeywordBeforeExpression(SqlToken token) {
    return switch (token.upper()) {
      case "SELECT",
          "WHERE",
          "AND",
          "OR",
          "NOT",
          "ON",
          "BY",
          "HAVING",
          "THEN",
          "ELSE",
          "WHEN",
          "CASE",
          "IN",
          "IS",
          "AS",
          "DISTINCT",
          "ALL",
          "BETWEEN",
          "LIKE",
          "ILIKE",
          "QUALIFY",
          "VALUES" ->
          true;
      default -> false;
    };
  }
}
