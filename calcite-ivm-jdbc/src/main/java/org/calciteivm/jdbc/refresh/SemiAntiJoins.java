package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * DuckDB's {@code SEMI JOIN} and {@code ANTI JOIN}, written as the {@code EXISTS} and {@code NOT
 * EXISTS} they mean, so that Calcite's parser reads them and the rules maintain them as they
 * maintain those: {@code SELECT ... FROM a SEMI JOIN b ON c WHERE p} becomes {@code SELECT ... FROM
 * a WHERE EXISTS (SELECT 1 FROM b WHERE c) AND (p)}. Identity: a semi-join keeps each row of its
 * left input once if some row of the right input meets the condition (an anti-join if none does),
 * which is what the correlated {@code EXISTS} filter keeps; the inputs joined after it see the same
 * rows either way, since the filter reads only the left input's columns. Done in the outermost
 * query's FROM clause; CREATE stores the rewritten query.
 */
public final class SemiAntiJoins {
  private SemiAntiJoins() {}

  /** The words that start the next join of a FROM clause, which ends an ON condition. */
  private static final Set<String> JOIN_WORDS =
      Set.of(
          "JOIN",
          "INNER",
          "LEFT",
          "RIGHT",
          "FULL",
          "CROSS",
          "NATURAL",
          "SEMI",
          "ANTI",
          "ASOF",
          "POSITIONAL");

  /** A semi- or anti-join found in the FROM clause: its text and the filter it becomes. */
  private record Found(int start, int end, String filter) {}

  /**
   * {@code query} with each {@code SEMI JOIN} and {@code ANTI JOIN} of its FROM clause written as a
   * filter; {@code query} itself if it has none.
   *
   * @throws SQLException if one is written with {@code USING} or without a condition
   */
  public static String rewrite(String query) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    int from = -1;
    int fromEnd = tokens.size();
    int where = -1;
    int depth = 0;
    List<Integer> joins = new ArrayList<>();
    for (int i = 0; i < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        depth--;
      } else if (token.kind() == SqlToken.Kind.SEMICOLON) {
        fromEnd = Math.min(fromEnd, i);
        break;
      } else if (depth == 0 && from < 0 && token.isKeyword("FROM")) {
        from = i;
      } else if (depth == 0
          && from >= 0
          && fromEnd == tokens.size()
          && token.kind() == SqlToken.Kind.WORD
          && FromFirst.AFTER_FROM.contains(token.upper())) {
        fromEnd = i;
        where = token.isKeyword("WHERE") ? i : -1;
      } else if (depth == 0
          && from >= 0
          && fromEnd == tokens.size()
          && (token.isKeyword("SEMI") || token.isKeyword("ANTI"))
          && i + 1 < tokens.size()
          && tokens.get(i + 1).isKeyword("JOIN")) {
        joins.add(i);
      }
    }
    if (joins.isEmpty()) {
      return query;
    }
    List<Found> found = new ArrayList<>();
    for (int join : joins) {
      found.add(found(query, tokens, join, fromEnd));
    }
    StringBuilder rewritten = new StringBuilder();
    int copied = 0;
    for (Found f : found) {
      rewritten.append(query, copied, f.start());
      copied = f.end();
    }
    int fromEndOffset = fromEnd < tokens.size() ? tokens.get(fromEnd).start() : query.length();
    rewritten.append(query, copied, fromEndOffset).append(' ');
    List<String> filters = found.stream().map(Found::filter).toList();
    if (where >= 0) {
      // WHERE <filters> AND (<the user's condition>) <the clauses after it>
      int whereEnd = endOfWhere(tokens, where);
      int conditionStart = tokens.get(where).end();
      int conditionEnd = whereEnd < tokens.size() ? tokens.get(whereEnd).start() : query.length();
      rewritten
          .append("WHERE ")
          .append(String.join(" AND ", filters))
          .append(" AND (")
          .append(query.substring(conditionStart, conditionEnd).strip())
          .append(") ")
          .append(query.substring(conditionEnd));
    } else {
      rewritten
          .append("WHERE ")
          .append(String.join(" AND ", filters))
          .append(" ")
          .append(query.substring(fromEndOffset));
    }
    return rewritten.toString().strip();
  }

  /** The semi- or anti-join whose first word is token {@code join}. */
  private static Found found(String query, List<SqlToken> tokens, int join, int fromEnd)
      throws SQLException {
    boolean anti = tokens.get(join).isKeyword("ANTI");
    String kind = anti ? "ANTI JOIN" : "SEMI JOIN";
    int depth = 0;
    int on = -1;
    int end = fromEnd;
    for (int i = join + 2; i < fromEnd; i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        depth--;
      } else if (depth == 0 && on < 0 && token.isKeyword("USING")) {
        throw new SQLException(
            kind + " ... USING is not supported: write the condition with ON", "0A000");
      } else if (depth == 0 && on < 0 && token.isKeyword("ON")) {
        on = i;
      } else if (depth == 0 && on >= 0 && (token.isSymbol(",") || startsJoin(tokens, i))) {
        end = i;
        break;
      }
    }
    if (on < 0 || on + 1 >= end) {
      throw new SQLException(kind + " without an ON condition is not supported", "0A000");
    }
    String relation = query.substring(tokens.get(join + 2).start(), tokens.get(on - 1).end());
    String condition = query.substring(tokens.get(on + 1).start(), tokens.get(end - 1).end());
    String filter =
        (anti ? "NOT EXISTS" : "EXISTS")
            + " (SELECT 1 FROM "
            + relation
            + " WHERE "
            + condition
            + ")";
    int endOffset = end < tokens.size() ? tokens.get(end).start() : query.length();
    return new Found(tokens.get(join).start(), endOffset, filter);
  }

  /** Whether token {@code i} is a word that starts a join (not a function such as left(s, 1)). */
  static boolean startsJoin(List<SqlToken> tokens, int i) {
    return tokens.get(i).kind() == SqlToken.Kind.WORD
        && JOIN_WORDS.contains(tokens.get(i).upper())
        && (i + 1 == tokens.size() || !tokens.get(i + 1).isSymbol("("));
  }

  /** The first token after the WHERE clause that starts at token {@code where}. */
  private static int endOfWhere(List<SqlToken> tokens, int where) {
    int depth = 0;
    for (int i = where + 1; i < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        depth--;
      } else if (token.kind() == SqlToken.Kind.SEMICOLON
          || depth == 0
              && token.kind() == SqlToken.Kind.WORD
              && FromFirst.AFTER_FROM.contains(token.upper())
              && !token.isKeyword("WHERE")) {
        return i;
      }
    }
    return tokens.size();
  }
}
