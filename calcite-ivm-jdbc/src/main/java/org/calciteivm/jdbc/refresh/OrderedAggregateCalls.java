package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * DuckDB's ordered aggregate calls written in a form both DuckDB and Calcite's parser read. DuckDB
 * orders the rows of any aggregate inside its call; Calcite's parser takes an {@code ORDER BY}
 * there only for the four aggregates it knows to order their rows ({@link #PARSED_INLINE}), and the
 * standard {@code WITHIN GROUP} form, which Calcite reads for any aggregate, DuckDB reads only for
 * its quantiles. So:
 *
 * <ul>
 *   <li>{@code list(x ORDER BY y)} is {@code array_agg(x ORDER BY y)}, its other name;
 *   <li>{@code first(x ORDER BY y)} is {@code (array_agg(x ORDER BY y))[1]} and {@code last(x ORDER
 *       BY y)} is {@code (array_agg(x ORDER BY y))[-1]}, with a {@code FILTER} inside the
 *       parentheses; the compiler folds the element of the list back into DuckDB's {@code first} or
 *       {@code last}, so the view keeps one value per group, not the list ({@code
 *       ListElementAggregates});
 *   <li>{@code first(x) OVER (...)} and {@code last(x) OVER (...)} are the window functions {@code
 *       first_value} and {@code last_value}, which they are in DuckDB;
 *   <li>{@code first(x)} and {@code last(x)} without an order are refused: their value is whichever
 *       row DuckDB reads first (Calcite would take them for {@code MATCH_RECOGNIZE}'s navigation);
 *   <li>any other aggregate with an {@code ORDER BY} in its call is refused, named.
 * </ul>
 *
 * <p>CREATE stores the rewritten query.
 */
final class OrderedAggregateCalls {
  private OrderedAggregateCalls() {}

  /** The aggregates whose ORDER BY inside the call Calcite's parser reads itself. */
  private static final Set<String> PARSED_INLINE =
      Set.of("ARRAY_AGG", "ARRAY_CONCAT_AGG", "GROUP_CONCAT", "STRING_AGG");

  /** {@code query} with its ordered aggregate calls rewritten; {@code query} if it has none. */
  static String rewrite(String query, String viewName, GroupByAll.Functions functions)
      throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    List<QueryEdits.Edit> edits = new ArrayList<>();
    DuckDbFunctions known = null;
    for (int i = 0; i + 1 < tokens.size(); i++) {
      SqlToken name = tokens.get(i);
      if (name.kind() != SqlToken.Kind.WORD
          || PARSED_INLINE.contains(name.upper())
          || !tokens.get(i + 1).isSymbol("(")
          || (i > 0 && tokens.get(i - 1).isSymbol("."))) {
        continue;
      }
      int close = QueryEdits.closing(tokens, i + 1);
      boolean ordered = orderOfCall(tokens, i + 1, close) >= 0;
      String lower = name.text().toLowerCase(Locale.ROOT);
      if (name.isKeyword("FIRST") || name.isKeyword("LAST")) {
        if (close + 1 < tokens.size() && tokens.get(close + 1).isKeyword("OVER")) {
          edits.add(new QueryEdits.Edit(name.start(), name.end(), lower + "_value"));
        } else if (!ordered) {
          throw UnsupportedViewException.never(
              viewName,
              "aggregate " + lower + " without ORDER BY",
              "its value depends on the order of the rows; order them in the call ("
                  + lower
                  + "(x ORDER BY y))");
        } else {
          int end = filterEnd(tokens, close);
          edits.add(new QueryEdits.Edit(name.start(), name.end(), "(array_agg"));
          edits.add(
              new QueryEdits.Edit(
                  tokens.get(end).end(),
                  tokens.get(end).end(),
                  name.isKeyword("FIRST") ? ")[1]" : ")[-1]"));
        }
        continue;
      }
      if (!ordered) {
        continue;
      }
      if (name.isKeyword("LIST")) {
        edits.add(new QueryEdits.Edit(name.start(), name.end(), "array_agg"));
        continue;
      }
      // only now is it worth asking DuckDB: a word before "(" may be OVER, IN, AS, ...
      known = known != null ? known : functions.read();
      if (known.isAggregate(name.text())) {
        throw UnsupportedViewException.notYet(
            viewName,
            "aggregate " + lower + "(... ORDER BY ...)",
            "an ORDER BY is maintained in string_agg, array_agg, list, first and last");
      }
    }
    return QueryEdits.apply(query, edits);
  }

  /**
   * The last token of the call whose argument list closes at {@code close}: the parenthesis closing
   * its {@code FILTER (WHERE ...)}, if it has one, else {@code close}.
   */
  private static int filterEnd(List<SqlToken> tokens, int close) {
    if (close + 2 < tokens.size()
        && tokens.get(close + 1).isKeyword("FILTER")
        && tokens.get(close + 2).isSymbol("(")) {
      return QueryEdits.closing(tokens, close + 2);
    }
    return close;
  }

  /**
   * The position of the ORDER token of the ORDER BY at the own level of the parentheses from {@code
   * open} to {@code close}, or -1 if they hold none.
   */
  private static int orderOfCall(List<SqlToken> tokens, int open, int close) {
    int depth = 0;
    for (int i = open; i < close; i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        depth--;
      } else if (depth == 1 && token.isKeyword("ORDER") && tokens.get(i + 1).isKeyword("BY")) {
        return i;
      }
    }
    return -1;
  }
}
