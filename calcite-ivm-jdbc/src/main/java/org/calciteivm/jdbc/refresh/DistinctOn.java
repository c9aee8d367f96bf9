package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.List;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * DuckDB's {@code SELECT DISTINCT ON (e, ...)}, written as the window filter it means, so that
 * Calcite's parser reads it and the rules maintain it as window functions: {@code SELECT DISTINCT
 * ON (k) a, b FROM t WHERE p ORDER BY k, ts DESC} becomes {@code SELECT a, b FROM t WHERE p QUALIFY
 * ROW_NUMBER() OVER (PARTITION BY k ORDER BY k, ts DESC) = 1}. Identity: {@code DISTINCT ON} keeps,
 * of the rows that agree on its expressions, the first in the query's order, which is the row
 * numbered 1 in its partition. The {@code ORDER BY} only chooses that row: a materialized view is a
 * bag, ordered when it is queried (so it may order by columns the view does not select). Where rows
 * can tie in that order, DuckDB keeps any of them, and so does {@code ROW_NUMBER}: the view is then
 * refused as such a window function is (unless the partition and order columns hold a declared key
 * of the input, so nothing ties). Done for the outermost {@code SELECT}; CREATE stores the
 * rewritten query.
 */
public final class DistinctOn {
  private DistinctOn() {}

  /**
   * {@code query} with its outermost {@code SELECT DISTINCT ON (...)} written as a {@code QUALIFY}
   * filter; {@code query} itself if it has none.
   *
   * @throws SQLException if the query also has a {@code QUALIFY} clause, or orders by a column's
   *     position (which a window's {@code ORDER BY} would read as a constant)
   */
  public static String rewrite(String query) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    if (tokens.size() < 4
        || !tokens.get(0).isKeyword("SELECT")
        || !tokens.get(1).isKeyword("DISTINCT")
        || !tokens.get(2).isKeyword("ON")
        || !tokens.get(3).isSymbol("(")) {
      return query;
    }
    int close = closing(tokens, 3);
    if (close < 5) {
      return query; // the parser reports it
    }
    String partition = query.substring(tokens.get(4).start(), tokens.get(close - 1).end());
    int orderBy = -1;
    int orderEnd = tokens.size();
    int end = tokens.size();
    int depth = 0;
    for (int i = close + 1; i < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        depth--;
      } else if (token.kind() == SqlToken.Kind.SEMICOLON) {
        end = Math.min(end, i);
        orderEnd = Math.min(orderEnd, i);
        break;
      } else if (depth == 0 && token.isKeyword("QUALIFY")) {
        throw new SQLException(
            "SELECT DISTINCT ON with a QUALIFY clause is not supported: filter in a subquery",
            "0A000");
      } else if (depth == 0
          && token.isKeyword("ORDER")
          && i + 1 < tokens.size()
          && tokens.get(i + 1).isKeyword("BY")) {
        orderBy = i;
      } else if (depth == 0
          && orderBy >= 0
          && (token.isKeyword("LIMIT") || token.isKeyword("OFFSET"))) {
        orderEnd = Math.min(orderEnd, i);
      }
    }
    if (orderBy >= 0 && TopRows.ordersByPosition(tokens.subList(orderBy + 2, orderEnd))) {
      throw new SQLException(
          "SELECT DISTINCT ON ... ORDER BY a column's position is not supported: name the"
              + " column or expression",
          "0A000");
    }
    int clausesEnd = orderBy >= 0 ? orderBy : end;
    String window =
        "ROW_NUMBER() OVER (PARTITION BY "
            + partition
            + (orderBy >= 0
                ? " ORDER BY "
                    + query.substring(
                        tokens.get(orderBy + 2).start(), tokens.get(orderEnd - 1).end())
                : "")
            + ")";
    int clausesEndOffset =
        clausesEnd < tokens.size() ? tokens.get(clausesEnd).start() : query.length();
    // the ORDER BY chose each partition's row and goes (the view is a bag, ordered when it is
    // queried); what follows it (LIMIT, which is refused) stays
    int restStart = orderBy >= 0 ? orderEnd : clausesEnd;
    String rest = restStart < tokens.size() ? query.substring(tokens.get(restStart).start()) : "";
    return ("SELECT "
            + query.substring(tokens.get(close).end(), clausesEndOffset).strip()
            + " QUALIFY "
            + window
            + " = 1 "
            + rest)
        .strip();
  }

  /** The index of the parenthesis that closes the one at {@code open}, or -1. */
  private static int closing(List<SqlToken> tokens, int open) {
    int depth = 0;
    for (int i = open; i < tokens.size(); i++) {
      if (tokens.get(i).isSymbol("(")) {
        depth++;
      } else if (tokens.get(i).isSymbol(")") && --depth == 0) {
        return i;
      }
    }
    return -1;
  }
}
