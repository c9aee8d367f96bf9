package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * DuckDB's {@code unnest} in a select list, written in {@code FROM}: {@code SELECT id, unnest(tags)
 * AS tag FROM post WHERE p} is {@code SELECT id, ivm_unnest.u AS tag FROM post, unnest(tags) AS
 * ivm_unnest(u) WHERE p}. Both give each row once per element of its list (none for an empty or
 * NULL list), after the filter, which cannot read the element. Calcite's parser reads {@code
 * unnest} only in {@code FROM}, where it is maintained as a row expansion.
 *
 * <p>Only the simple case is written so: one {@code unnest} of one list, in the select list of a
 * query that neither groups, aggregates nor computes window functions (DuckDB unnests after those)
 * and is not a set operation, nor selects {@code *}. The column keeps DuckDB's name: the alias, or
 * for {@code unnest} of a column {@code unnest(col)}. Every other select-list {@code unnest} is
 * refused, named. CREATE stores the rewritten query.
 */
final class SelectListUnnest {
  private SelectListUnnest() {}

  /** The name of the expansion the rewritten FROM clause reads. */
  private static final String RELATION = "ivm_unnest";

  /**
   * Clauses of the outermost query after which DuckDB expands a select-list unnest (or that make it
   * a set operation): written in FROM, the expansion would come before them.
   */
  private static final Set<String> EXPANDED_LATER =
      Set.of("GROUP", "HAVING", "QUALIFY", "WINDOW", "UNION", "EXCEPT", "INTERSECT");

  /** Why a select-list unnest was not written in FROM, for the refusal. */
  private static final String INSTEAD = "unnest in FROM: FROM t, unnest(t.xs) AS u(x)";

  /** {@code query} with its select-list unnest written in FROM; {@code query} if it has none. */
  static String rewrite(String query, String viewName, GroupByAll.Functions functions)
      throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    List<Integer> calls = selectListUnnests(tokens);
    if (calls.isEmpty()) {
      return query;
    }
    int select = -1;
    int from = -1;
    int end = tokens.size();
    int depth = 0;
    for (int i = 0; i < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        depth--;
      } else if (depth == 0 && token.kind() == SqlToken.Kind.WORD) {
        if (token.isKeyword("SELECT") && select < 0) {
          select = i;
        } else if (token.isKeyword("FROM") && from < 0 && select >= 0) {
          from = i;
        } else if (from >= 0
            && end == tokens.size()
            && FromFirst.AFTER_FROM.contains(token.upper())) {
          end = i;
        }
        if (EXPANDED_LATER.contains(token.upper())) {
          throw refusal(viewName, "beside " + token.upper());
        }
      } else if (token.kind() == SqlToken.Kind.SEMICOLON) {
        end = Math.min(end, i);
      }
    }
    int call = calls.get(0);
    if (calls.size() > 1) {
      throw refusal(viewName, "twice (DuckDB zips the lists)");
    }
    if (select < 0 || from < 0 || call < select || call > from) {
      throw refusal(viewName, "of a subquery");
    }
    int close = QueryEdits.closing(tokens, call + 1);
    DuckDbFunctions known = functions.read();
    for (int i = select + 1; i < from; i++) {
      SqlToken token = tokens.get(i);
      if (token.isKeyword("OVER")
          || token.kind() == SqlToken.Kind.WORD
              && tokens.get(i + 1).isSymbol("(")
              && known.isAggregate(token.text())) {
        throw refusal(viewName, "beside an aggregate or window function");
      }
      if (token.isSymbol("*") && depthBetween(tokens, select, i) == 0) {
        // the star would read the expansion's column too
        throw refusal(viewName, "beside *");
      }
      if (i > call + 1
          && i < close
          && token.isSymbol(",")
          && depthBetween(tokens, call + 1, i) == 1) {
        throw refusal(viewName, "with more than one argument");
      }
    }
    String list = query.substring(tokens.get(call + 1).end(), tokens.get(close).start()).strip();
    String element = RELATION + ".u";
    if (!aliased(item(tokens, select, from, call))) {
      boolean wholeItem =
          item(tokens, select, from, call).size() == close - call + 1
              && columnReference(tokens, call + 2, close);
      if (!wholeItem) {
        throw refusal(viewName, "of an expression without a column name (name it: AS x)");
      }
      // DuckDB's name of the column
      element += " AS \"unnest(" + list.replace("\"", "\"\"") + ")\"";
    }
    // the FROM clause ends with the token before its level's next clause, or the query's last
    int last = end - 1;
    while (tokens.get(last).kind() == SqlToken.Kind.SEMICOLON) {
      last--;
    }
    int fromEnd = tokens.get(last).end();
    return query.substring(0, tokens.get(call).start())
        + element
        + query.substring(tokens.get(close).end(), fromEnd)
        + ", unnest("
        + list
        + ") AS "
        + RELATION
        + "(u)"
        + query.substring(fromEnd);
  }

  /** Whether select item {@code item} names its column: {@code ... [AS] name}. */
  private static boolean aliased(List<SqlToken> item) {
    int n = item.size();
    if (n < 2 || !item.get(n - 1).isIdentifier()) {
      return false;
    }
    SqlToken before = item.get(n - 2);
    return before.isKeyword("AS") || before.isSymbol(")") || before.kind() != SqlToken.Kind.SYMBOL;
  }

  /** The select list's item holding token {@code call}: its tokens up to the next comma. */
  private static List<SqlToken> item(List<SqlToken> tokens, int select, int from, int call) {
    int start = select + 1;
    int depth = 0;
    List<SqlToken> item = new ArrayList<>();
    for (int i = select + 1; i < from; i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        depth--;
      } else if (depth == 0 && token.isSymbol(",")) {
        if (i > call) {
          break;
        }
        start = i + 1;
        item.clear();
        continue;
      }
      if (i >= start) {
        item.add(token);
      }
    }
    return item;
  }

  /** Whether the tokens from {@code from} up to {@code close} are a column, maybe qualified. */
  private static boolean columnReference(List<SqlToken> tokens, int from, int close) {
    for (int i = from; i < close; i++) {
      boolean name = (i - from) % 2 == 0;
      if (name ? !tokens.get(i).isIdentifier() : !tokens.get(i).isSymbol(".")) {
        return false;
      }
    }
    return close > from && (close - from) % 2 == 1;
  }

  /** The parenthesis depth at token {@code at}, counted from {@code open}. */
  private static int depthBetween(List<SqlToken> tokens, int open, int at) {
    int depth = 0;
    for (int i = open; i < at; i++) {
      if (tokens.get(i).isSymbol("(")) {
        depth++;
      } else if (tokens.get(i).isSymbol(")")) {
        depth--;
      }
    }
    return depth;
  }

  /**
   * The positions of the {@code unnest} calls in select lists, at any level: a call of {@code
   * unnest} between a {@code SELECT} and its {@code FROM}.
   */
  private static List<Integer> selectListUnnests(List<SqlToken> tokens) {
    List<Integer> calls = new ArrayList<>();
    // per level of parentheses: whether its tokens are in a select list
    List<Boolean> selecting = new ArrayList<>(List.of(false));
    for (int i = 0; i + 1 < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      int top = selecting.size() - 1;
      if (token.isSymbol("(")) {
        selecting.add(selecting.get(top));
      } else if (token.isSymbol(")") && top > 0) {
        selecting.remove(top);
      } else if (token.isKeyword("SELECT") || token.isKeyword("FROM")) {
        selecting.set(top, token.isKeyword("SELECT"));
      } else if (token.isKeyword("UNNEST")
          && tokens.get(i + 1).isSymbol("(")
          && (i == 0 || !tokens.get(i - 1).isSymbol("."))
          && selecting.get(top)) {
        calls.add(i);
      }
    }
    return calls;
  }

  private static UnsupportedViewException refusal(String viewName, String where) {
    return UnsupportedViewException.notYet(viewName, "unnest in the select list " + where, INSTEAD);
  }
}
