package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.List;
import java.util.Set;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * DuckDB's FROM-first queries ({@code FROM t SELECT x WHERE ...}, or {@code FROM t} alone for
 * {@code SELECT *}), written in the usual order, so that Calcite's parser reads them. CREATE stores
 * the rewritten query.
 */
public final class FromFirst {
  private FromFirst() {}

  /**
   * The clauses that may follow a FROM clause (and end a {@code SELECT} list written after {@code
   * FROM}).
   */
  static final Set<String> AFTER_FROM =
      Set.of(
          "WHERE",
          "GROUP",
          "HAVING",
          "QUALIFY",
          "WINDOW",
          "ORDER",
          "LIMIT",
          "OFFSET",
          "UNION",
          "INTERSECT",
          "EXCEPT");

  /** {@code query} in {@code SELECT ... FROM ...} order; {@code query} itself if it is already. */
  public static String rewrite(String query) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    if (tokens.isEmpty() || !tokens.get(0).isKeyword("FROM")) {
      return query;
    }
    int depth = 0;
    int select = -1;
    int end = -1;
    for (int i = 1; i < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        depth--;
      } else if (depth == 0 && select < 0 && token.isKeyword("SELECT")) {
        select = i;
      } else if (depth == 0
          && select >= 0
          && end < 0
          && token.kind() == SqlToken.Kind.WORD
          && AFTER_FROM.contains(token.upper())) {
        end = i;
      }
      if (token.kind() == SqlToken.Kind.SEMICOLON) {
        break;
      }
    }
    if (select < 0) {
      // FROM t [WHERE ...]: every column
      return "SELECT * " + query;
    }
    int fromEnd = tokens.get(select).start();
    int selectEnd = end < 0 ? query.length() : tokens.get(end).start();
    return query.substring(fromEnd, selectEnd).stripTrailing()
        + " "
        + query.substring(0, fromEnd).strip()
        + (selectEnd < query.length() ? " " + query.substring(selectEnd) : "");
  }
}
