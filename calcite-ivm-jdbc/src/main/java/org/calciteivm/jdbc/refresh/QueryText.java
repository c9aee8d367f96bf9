package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Comparator;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;
import org.calciteivm.rules.frontend.LambdaSyntax;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A query's text with its tokens, to cut out the text of a node the parser made from it. A split
 * into intermediate states copies the user's own text of each piece it moves, so that every piece
 * means in DuckDB and in Calcite what the user wrote.
 */
final class QueryText {
  private final String query;
  private final List<SqlToken> tokens;
  private final Map<Integer, Integer> tokenStarting = new HashMap<>();
  private final Map<Integer, Integer> tokenEnding = new HashMap<>();
  private final Map<Integer, Integer> matchingParenthesis = new HashMap<>();

  /** The text from offset {@code start} to just before {@code end}. */
  record Range(int start, int end) {}

  QueryText(String query) throws SQLException {
    this.query = query;
    this.tokens = SqlLexer.tokenize(query);
    Deque<Integer> open = new ArrayDeque<>();
    for (int i = 0; i < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      tokenStarting.put(token.start(), i);
      tokenEnding.put(token.end(), i);
      if (token.isSymbol("(")) {
        open.push(i);
      } else if (token.isSymbol(")") && !open.isEmpty()) {
        matchingParenthesis.put(open.pop(), i);
      }
    }
  }

  /**
   * The outermost SELECT of {@code query} (under its ORDER BY, if any); null if the query is
   * another one (a set operation, VALUES) or does not parse, which the planner then reports.
   */
  static @Nullable SqlSelect outermostSelect(String query) {
    SqlNode parsed;
    try {
      parsed = LambdaSyntax.parser(query, ViewSqlPlanner.PARSER).parseQuery();
    } catch (SqlParseException e) {
      return null;
    }
    if (parsed.getKind() == SqlKind.ORDER_BY) {
      parsed = ((SqlCall) parsed).operand(0);
    }
    return parsed instanceof SqlSelect select ? select : null;
  }

  String query() {
    return query;
  }

  /**
   * The text of {@code node}; null if the parser's positions for it do not fall on tokens (a node
   * the parser made up, or positions that do not cover the whole node).
   */
  @Nullable Range range(SqlNode node) {
    if (node instanceof SqlOrderBy order) {
      // the parser places an ORDER BY at its query, whose text ends before ORDER BY and LIMIT; an
      // ordered query is the whole query or parenthesized, so it ends where they do
      Range body = range(order.query);
      if (body == null) {
        return null;
      }
      int first = tokenStarting.get(body.start());
      Integer close = first == 0 ? null : matchingParenthesis.get(first - 1);
      int last = close != null ? close - 1 : tokens.size() - 1;
      while (last > first && tokens.get(last).kind() == SqlToken.Kind.SEMICOLON) {
        last--;
      }
      return new Range(body.start(), tokens.get(last).end());
    }
    SqlParserPos pos = node.getParserPosition();
    int start = ViewSqlPlanner.offset(query, pos.getLineNum(), pos.getColumnNum());
    int last = ViewSqlPlanner.offset(query, pos.getEndLineNum(), pos.getEndColumnNum());
    if (!tokenStarting.containsKey(start) || !tokenEnding.containsKey(last + 1)) {
      return null;
    }
    // the parser ends some nodes before closing parentheses of their own (x IN (SELECT ...) ends
    // with the subquery's last token): take in every parenthesis the node opens
    int from = tokenStarting.get(start);
    int to = tokenEnding.get(last + 1);
    int depth = 0;
    for (int i = from; i <= to; i++) {
      if (tokens.get(i).isSymbol("(")) {
        Integer close = matchingParenthesis.get(i);
        if (close == null) {
          return null;
        }
        depth++;
        to = Math.max(to, close);
      } else if (tokens.get(i).isSymbol(")") && --depth < 0) {
        // closes a parenthesis opened before the node: one right before it is the node's own (the
        // parser starts "(SELECT ...) AS s" at SELECT); any other is not
        if (from == 0 || !Integer.valueOf(i).equals(matchingParenthesis.get(from - 1))) {
          return null;
        }
        from--;
        depth = 0;
      }
    }
    return new Range(tokens.get(from).start(), tokens.get(to).end());
  }

  /** {@code range} without the parentheses that enclose all of it; itself if there are none. */
  Range unparenthesized(Range range) {
    int from = tokenStarting.get(range.start());
    int to = tokenEnding.get(range.end());
    while (from < to && matchingParenthesis.getOrDefault(from, -1) == to) {
      from++;
      to--;
    }
    return new Range(tokens.get(from).start(), tokens.get(to).end());
  }

  /** {@code range} widened to the parentheses around it; itself if there are none. */
  Range parenthesized(Range range) {
    int from = tokenStarting.get(range.start());
    int to = tokenEnding.get(range.end());
    while (from > 0
        && to + 1 < tokens.size()
        && matchingParenthesis.getOrDefault(from - 1, -1) == to + 1) {
      from--;
      to++;
    }
    return new Range(tokens.get(from).start(), tokens.get(to).end());
  }

  /**
   * The tokens from offset {@code start} to just before {@code end}, less a first token that is the
   * keyword {@code leading} and last tokens that are among the keywords {@code trailing}; null if
   * no token is left.
   */
  @Nullable Range tokensBetween(int start, int end, String leading, Set<String> trailing) {
    int first = 0;
    while (first < tokens.size() && tokens.get(first).start() < start) {
      first++;
    }
    int last = tokens.size() - 1;
    while (last >= 0 && tokens.get(last).end() > end) {
      last--;
    }
    if (first <= last && tokens.get(first).isKeyword(leading)) {
      first++;
    }
    while (last >= first && trailing.contains(tokens.get(last).upper())) {
      last--;
    }
    return first > last ? null : new Range(tokens.get(first).start(), tokens.get(last).end());
  }

  /**
   * The text of {@code select}'s FROM clause, without the keyword: the tokens between its last
   * select item and its WHERE, GROUP BY or HAVING (or its end); null if there is none or the
   * parser's positions do not tell. (A join's own position is only its JOIN keyword's.)
   */
  @Nullable Range fromClause(SqlSelect select) {
    SqlNodeList items = select.getSelectList();
    Range last = range(items.get(items.size() - 1));
    Range whole = range(select);
    if (select.getFrom() == null || last == null || whole == null) {
      return null;
    }
    SqlNode next =
        select.getWhere() != null
            ? select.getWhere()
            : select.getGroup() != null && !select.getGroup().isEmpty()
                ? select.getGroup().get(0)
                : select.getHaving();
    Range following = next == null ? null : range(next);
    if (next != null && following == null) {
      return null;
    }
    int end = following == null ? whole.end() : following.start();
    Range from = tokensBetween(last.end(), end, "FROM", Set.of("WHERE", "GROUP", "BY", "HAVING"));
    return from == null ? null : withoutUnopenedParentheses(from);
  }

  /**
   * {@code range} without the closing parentheses at its end that it does not open: a subquery's
   * position may take in the parentheses around it, and its FROM clause then ends at its last.
   */
  private @Nullable Range withoutUnopenedParentheses(Range range) {
    int from = tokenStarting.get(range.start());
    int to = tokenEnding.get(range.end());
    while (to >= from && tokens.get(to).isSymbol(")") && !opensWithin(from, to)) {
      to--;
    }
    return to < from ? null : new Range(tokens.get(from).start(), tokens.get(to).end());
  }

  /** Whether the {@code )} at token {@code close} is opened at or after token {@code from}. */
  private boolean opensWithin(int from, int close) {
    for (Map.Entry<Integer, Integer> pair : matchingParenthesis.entrySet()) {
      if (pair.getValue() == close) {
        return pair.getKey() >= from;
      }
    }
    return false;
  }

  /** The text of {@code range}. */
  String text(Range range) {
    return query.substring(range.start(), range.end());
  }

  /**
   * The text of {@code range} with each of the non-overlapping {@code replacements} (ranges within
   * it, with their new text) put in place.
   */
  String replaced(Range range, Map<Range, String> replacements) {
    StringBuilder text = new StringBuilder();
    int copied = range.start();
    for (Map.Entry<Range, String> replacement :
        replacements.entrySet().stream()
            .sorted(Map.Entry.comparingByKey(Comparator.comparingInt(Range::start)))
            .toList()) {
      text.append(query, copied, replacement.getKey().start()).append(replacement.getValue());
      copied = replacement.getKey().end();
    }
    return text.append(query, copied, range.end()).toString();
  }
}
