package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.util.Util;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * A view's {@code ORDER BY ... LIMIT n [OFFSET m]} (or the standard {@code OFFSET m ROWS FETCH
 * FIRST n ROWS ONLY}), written as the window filter it means, so that the rules maintain it as a
 * window function: {@code q ORDER BY o LIMIT n OFFSET m} becomes {@code SELECT * FROM (q) AS
 * top_rows QUALIFY ROW_NUMBER() OVER (ORDER BY o) BETWEEN m + 1 AND m + n ORDER BY o}. Identity:
 * the rows a {@code LIMIT} keeps are those numbered {@code m + 1} to {@code m + n} in the query's
 * order; the last {@code ORDER BY} only orders the view when it is read.
 *
 * <p>A window without {@code PARTITION BY} is one partition: a refresh that touches {@code q}'s
 * rows recomputes the top rows from {@code q}. When {@code q} aggregates, its groups are kept as a
 * hidden view ({@link IntermediateStates}) and the top rows are recomputed from that state, not
 * from the base tables. Where rows tie in {@code o}, which of them a {@code LIMIT} keeps is up to
 * DuckDB, so the view is refused unless {@code o} holds columns that identify the rows (a declared
 * key, or the group keys of an aggregate), as {@code ROW_NUMBER} is ({@link #explain}). A {@code
 * LIMIT} without {@code ORDER BY} keeps arbitrary rows and is refused. Done for the outermost
 * query; CREATE stores the rewritten query.
 */
public final class TopRows {
  /** The construct the analysis names when the rows a {@code ROW_NUMBER} numbers can tie. */
  private static final String TIED_ROW_NUMBER =
      "window function ROW_NUMBER(...) OVER (...) whose ORDER BY can tie";

  private TopRows() {}

  /**
   * {@code query}, the query of view {@code viewName}, with its outermost {@code ORDER BY ...
   * LIMIT/OFFSET} written as a {@code QUALIFY} filter over it; {@code query} itself if it has no
   * {@code LIMIT} or {@code OFFSET}.
   *
   * @throws UnsupportedViewException for a {@code LIMIT} or {@code OFFSET} without {@code ORDER
   *     BY}, one that is not a whole number, or an {@code ORDER BY} with a column's position
   */
  public static String rewrite(String query, String viewName) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    int end = tokens.size();
    int orderBy = -1;
    int limit = -1;
    int offset = -1;
    int fetch = -1;
    int depth = 0;
    for (int i = 0; i < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        depth--;
      } else if (token.kind() == SqlToken.Kind.SEMICOLON) {
        end = i;
        break;
      } else if (depth == 0
          && token.isKeyword("ORDER")
          && i + 1 < tokens.size()
          && tokens.get(i + 1).isKeyword("BY")) {
        orderBy = i;
      } else if (depth == 0 && token.isKeyword("LIMIT")) {
        limit = i;
      } else if (depth == 0 && token.isKeyword("OFFSET")) {
        offset = i;
      } else if (depth == 0 && token.isKeyword("FETCH")) {
        fetch = i;
      }
    }
    if (limit < 0 && offset < 0 && fetch < 0) {
      return query;
    }
    int clauses = end;
    for (int clause : new int[] {limit, offset, fetch}) {
      clauses = clause < 0 ? clauses : Math.min(clauses, clause);
    }
    if (orderBy < 0 || orderBy > clauses) {
      throw UnsupportedViewException.never(
          viewName,
          "LIMIT/OFFSET without ORDER BY",
          "which rows it keeps would be up to DuckDB; add an ORDER BY on columns that identify"
              + " the rows");
    }
    long count =
        limit >= 0
            ? wholeNumber(tokens, limit, end, "LIMIT", viewName)
            : fetch >= 0 ? fetchedRows(tokens, fetch, end, viewName) : -1;
    long skipped = offset < 0 ? 0 : wholeNumber(tokens, offset, end, "OFFSET", viewName);
    if (ordersByPosition(tokens.subList(orderBy + 2, clauses))) {
      throw UnsupportedViewException.notYet(
          viewName, "ORDER BY a column's position with LIMIT", "name the column");
    }
    String body = query.substring(0, tokens.get(orderBy).start()).strip();
    String order =
        selectedNames(
            body, query.substring(tokens.get(orderBy + 2).start(), tokens.get(clauses - 1).end()));
    String rowNumber = "ROW_NUMBER() OVER (ORDER BY " + order + ")";
    String kept =
        count < 0
            ? rowNumber + " > " + skipped
            : rowNumber + " BETWEEN " + (skipped + 1) + " AND " + (skipped + count);
    return "SELECT * FROM (" + body + ") AS top_rows QUALIFY " + kept + " ORDER BY " + order;
  }

  /**
   * {@code failure} to create the view whose query a user wrote as {@code written}, said in the
   * terms of the {@code ORDER BY ... LIMIT} it came from if {@link #rewrite} wrote one: a refusal
   * of a {@code ROW_NUMBER} whose order can tie, or a column the {@code ORDER BY} names that the
   * query does not select (the filter orders the query's rows, outside it); {@code failure}
   * otherwise.
   */
  public static SQLException explain(SQLException failure, String viewName, String written)
      throws SQLException {
    if (rewrite(written, viewName).equals(written)) {
      return failure;
    }
    if (failure instanceof UnsupportedViewException refusal
        && refusal.construct().equals(TIED_ROW_NUMBER)) {
      return UnsupportedViewException.notYet(
          viewName,
          "ORDER BY ... LIMIT whose ORDER BY can tie",
          "which of the tied rows the LIMIT keeps would be up to DuckDB; add to the ORDER BY"
              + " columns that identify the rows: a declared primary key, or the GROUP BY keys");
    }
    if (failure instanceof SQLSyntaxErrorException && "42000".equals(failure.getSQLState())) {
      return new SQLSyntaxErrorException(
          failure.getMessage()
              + " (with LIMIT, a materialized view's ORDER BY names columns the view selects, by"
              + " their names in the result: select the column, or order by its alias)",
          failure.getSQLState(),
          failure);
    }
    return failure;
  }

  /**
   * {@code order}, the items of the {@code ORDER BY} of {@code body}, with each expression that is
   * a select item of {@code body} as written ({@code ORDER BY t.x} for {@code SELECT t.x}) replaced
   * by that item's name in the result, which is how the filter over {@code body} sees it. SQL
   * resolves an {@code ORDER BY} item against the select list first, so this changes nothing of its
   * meaning; other items are left as they are.
   */
  private static String selectedNames(String body, String order) throws SQLException {
    SqlSelect select = QueryText.outermostSelect(body);
    if (select == null) {
      return order;
    }
    QueryText text = new QueryText(body);
    Map<String, String> names = new HashMap<>();
    for (SqlNode item : select.getSelectList()) {
      SqlNode expression = item;
      String name = null;
      if (item.getKind() == SqlKind.AS && item instanceof SqlCall as) {
        expression = as.operand(0);
        name = ((SqlIdentifier) as.operand(1)).getSimple();
      } else if (item instanceof SqlIdentifier identifier && !identifier.isStar()) {
        name = Util.last(identifier.names);
      }
      QueryText.Range range = name == null ? null : text.range(expression);
      if (range != null) {
        names.putIfAbsent(normalized(SqlLexer.tokenize(text.text(range))), name);
      }
    }
    StringBuilder resolved = new StringBuilder();
    int copied = 0;
    for (List<SqlToken> item : orderItems(SqlLexer.tokenize(order))) {
      String name = names.get(normalized(item));
      if (name != null && item.size() > 1) { // more than one token: not the name itself
        resolved.append(order, copied, item.get(0).start()).append(IvmNames.quote(name));
        copied = item.get(item.size() - 1).end();
      }
    }
    return resolved.append(order.substring(copied)).toString();
  }

  /**
   * The expressions of the items of an {@code ORDER BY} list, {@code tokens}: the tokens between
   * its top-level commas, less the {@code ASC}, {@code DESC} and {@code NULLS FIRST/LAST} after
   * them.
   */
  private static List<List<SqlToken>> orderItems(List<SqlToken> tokens) {
    List<List<SqlToken>> items = new ArrayList<>();
    int depth = 0;
    int itemStart = 0;
    for (int i = 0; i <= tokens.size(); i++) {
      if (i < tokens.size() && !(depth == 0 && tokens.get(i).isSymbol(","))) {
        depth += tokens.get(i).isSymbol("(") ? 1 : tokens.get(i).isSymbol(")") ? -1 : 0;
        continue;
      }
      int last = i - 1;
      while (last > itemStart && DIRECTIONS.contains(tokens.get(last).upper())) {
        last--;
      }
      items.add(tokens.subList(itemStart, last + 1));
      itemStart = i + 1;
    }
    return items;
  }

  /**
   * Whether an item of the {@code ORDER BY} list {@code tokens} is a number, which SQL reads as the
   * position of a select item and a window's {@code ORDER BY} as a constant.
   */
  static boolean ordersByPosition(List<SqlToken> tokens) {
    return orderItems(tokens).stream()
        .anyMatch(item -> item.size() == 1 && item.get(0).kind() == SqlToken.Kind.NUMBER);
  }

  /** The words that may follow the number of a {@code LIMIT}, {@code OFFSET} or {@code FETCH}. */
  private static final Set<String> CLAUSE_ENDS = Set.of("LIMIT", "OFFSET", "FETCH", "ROW", "ROWS");

  /** The words that may follow an {@code ORDER BY} item's expression. */
  private static final Set<String> DIRECTIONS = Set.of("ASC", "DESC", "NULLS", "FIRST", "LAST");

  /** {@code tokens} as one text that ignores spacing and the case of unquoted words. */
  private static String normalized(List<SqlToken> tokens) {
    StringBuilder text = new StringBuilder();
    for (SqlToken token : tokens) {
      text.append(token.kind() == SqlToken.Kind.WORD ? token.upper() : token.text()).append(' ');
    }
    return text.toString();
  }

  /**
   * The number of rows {@code FETCH {FIRST | NEXT} [n] {ROW | ROWS} ONLY} at {@code at} keeps (1
   * without {@code n}); {@code WITH TIES} keeps rows that tie with the last and is refused.
   */
  private static long fetchedRows(List<SqlToken> tokens, int at, int end, String viewName)
      throws SQLException {
    int rows = at + 2;
    boolean counted = rows < end && tokens.get(rows).kind() == SqlToken.Kind.NUMBER;
    rows += counted ? 1 : 0;
    boolean standard =
        at + 1 < end
            && (tokens.get(at + 1).isKeyword("FIRST") || tokens.get(at + 1).isKeyword("NEXT"))
            && rows + 1 < end
            && (tokens.get(rows).isKeyword("ROW") || tokens.get(rows).isKeyword("ROWS"))
            && tokens.get(rows + 1).isKeyword("ONLY");
    if (!standard) {
      throw UnsupportedViewException.notYet(
          viewName,
          "FETCH other than FETCH FIRST n ROWS ONLY",
          "write FETCH FIRST n ROWS ONLY, or LIMIT n, with n a whole number");
    }
    return counted ? wholeNumber(tokens, at + 1, end, "FETCH", viewName) : 1;
  }

  /**
   * The whole number after the {@code LIMIT}, {@code OFFSET} or {@code FETCH FIRST} at {@code at}.
   */
  private static long wholeNumber(
      List<SqlToken> tokens, int at, int end, String clause, String viewName) throws SQLException {
    boolean number =
        at + 1 < end
            && tokens.get(at + 1).kind() == SqlToken.Kind.NUMBER
            && tokens.get(at + 1).text().chars().allMatch(Character::isDigit)
            && (at + 2 == end || CLAUSE_ENDS.contains(tokens.get(at + 2).upper()));
    if (!number) {
      throw UnsupportedViewException.notYet(
          viewName,
          clause + " of other than a whole number",
          "write the number itself, not an expression, a parameter or a percentage");
    }
    try {
      return Long.parseLong(tokens.get(at + 1).text());
    } catch (NumberFormatException e) {
      throw new SQLException(clause + " " + tokens.get(at + 1).text() + " is too large", "22003");
    }
  }
}
