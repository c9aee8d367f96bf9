package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * DuckDB's series table functions in {@code FROM} ({@code range(n)}, {@code generate_series(a, b)})
 * written as the {@code unnest} of the list function of the same name, which gives the same rows:
 * Calcite's parser reads a call in {@code FROM} only as {@code TABLE(...)} or {@code unnest}, and
 * {@code unnest} of a row's values is maintained as a row expansion. The column keeps DuckDB's name
 * ({@code range}, {@code generate_series}) unless the query names it. {@code range} is quoted, a
 * reserved word to Calcite; a query that reads the column must quote it too, or name it ({@code
 * range(t.n) AS r(i)}). CREATE stores the rewritten query.
 */
final class TableFunctions {
  private TableFunctions() {}

  private static final Set<String> SERIES = Set.of("RANGE", "GENERATE_SERIES");

  /** {@code query} with its series table functions written as unnest; {@code query} if none. */
  static String rewrite(String query) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    List<QueryEdits.Edit> edits = new ArrayList<>();
    // per level of parentheses: whether its tokens are in a FROM clause
    Deque<Boolean> inFrom = new ArrayDeque<>(List.of(false));
    for (int i = 0; i + 1 < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        inFrom.push(false);
      } else if (token.isSymbol(")") && inFrom.size() > 1) {
        inFrom.pop();
      } else if (token.kind() == SqlToken.Kind.WORD && clauseKeyword(token)) {
        inFrom.pop();
        inFrom.push(token.isKeyword("FROM"));
      } else if (inFrom.peek()
          && token.kind() == SqlToken.Kind.WORD
          && SERIES.contains(token.upper())
          && tokens.get(i + 1).isSymbol("(")
          && i > 0
          && startsRelation(tokens.get(i - 1))) {
        edits.addAll(unnested(tokens, i));
      }
    }
    return QueryEdits.apply(query, edits);
  }

  /** The edits that write the call whose name is token {@code name} as an unnest. */
  private static List<QueryEdits.Edit> unnested(List<SqlToken> tokens, int name) {
    SqlToken function = tokens.get(name);
    String column = function.text().toLowerCase(Locale.ROOT);
    String quoted = "\"" + column + "\"";
    int close = QueryEdits.closing(tokens, name + 1);
    List<QueryEdits.Edit> edits = new ArrayList<>();
    edits.add(
        new QueryEdits.Edit(
            function.start(),
            function.end(),
            "unnest(" + (function.isKeyword("RANGE") ? quoted : column)));
    int after = close + 1;
    if (after < tokens.size() && tokens.get(after).isKeyword("AS")) {
      after++;
    }
    boolean aliased =
        after < tokens.size()
            && tokens.get(after).isIdentifier()
            && !(tokens.get(after).kind() == SqlToken.Kind.WORD
                && QueryEdits.NOT_ALIASES.contains(tokens.get(after).upper()));
    boolean columnsNamed =
        aliased && after + 1 < tokens.size() && tokens.get(after + 1).isSymbol("(");
    int end = tokens.get(close).end();
    if (!aliased) {
      edits.add(new QueryEdits.Edit(end, end, ") AS " + quoted + "(" + quoted + ")"));
    } else if (!columnsNamed) {
      edits.add(new QueryEdits.Edit(end, end, ")"));
      int aliasEnd = tokens.get(after).end();
      edits.add(new QueryEdits.Edit(aliasEnd, aliasEnd, "(" + quoted + ")"));
    } else {
      edits.add(new QueryEdits.Edit(end, end, ")"));
    }
    return edits;
  }

  /** Whether {@code token} begins a clause of a SELECT at its level. */
  private static boolean clauseKeyword(SqlToken token) {
    return token.isKeyword("SELECT")
        || token.isKeyword("FROM")
        || FromFirst.AFTER_FROM.contains(token.upper());
  }

  /** Whether a relation of FROM may follow {@code token}. */
  private static boolean startsRelation(SqlToken token) {
    return token.isSymbol(",")
        || token.isKeyword("FROM")
        || token.isKeyword("JOIN")
        || token.isKeyword("LATERAL");
  }
}
