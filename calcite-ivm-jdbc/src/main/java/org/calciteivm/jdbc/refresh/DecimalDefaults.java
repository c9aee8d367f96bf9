package org.calciteivm.jdbc.refresh;

import java.util.List;
import java.util.Set;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * A cast to {@code DECIMAL} or {@code NUMERIC} without a precision written with DuckDB's: {@code
 * CAST(x AS NUMERIC)} as {@code CAST(x AS NUMERIC(18, 3))}, {@code x::DECIMAL} as {@code
 * x::DECIMAL(18, 3)}. DuckDB reads both spellings as the same type; Calcite's default is a
 * precision of 19 and a scale of 0, and a refresh cast to it (0.1 became 0, and the stored 0.100
 * was then never found to delete). The scale cannot be set in Calcite's type system alone: {@code
 * DECIMAL(10)} has a scale of 0 in DuckDB too, and Calcite gives both forms the same default.
 */
final class DecimalDefaults {
  private DecimalDefaults() {}

  private static final Set<String> NAMES = Set.of("DECIMAL", "NUMERIC", "DEC");

  /**
   * Adds DuckDB's precision and scale to the type name at token {@code at} if it is {@code DECIMAL}
   * or {@code NUMERIC} without them, the type of a cast ({@code CAST}/{@code TRY_CAST(x AS t)} or
   * {@code x::t}).
   */
  static void complete(List<SqlToken> tokens, int at, List<QueryEdits.Edit> edits) {
    SqlToken name = tokens.get(at);
    if (!NAMES.contains(name.upper())
        || at < 2
        || (at + 1 < tokens.size() && tokens.get(at + 1).isSymbol("("))) {
      return;
    }
    boolean infix = tokens.get(at - 1).isSymbol(":") && tokens.get(at - 2).isSymbol(":");
    if (infix || (tokens.get(at - 1).isKeyword("AS") && inCast(tokens, at - 1))) {
      // the name replaced rather than followed, so that the parenthesis InfixCasts closes a cast
      // with right after the name comes after the precision
      edits.add(new QueryEdits.Edit(name.start(), name.end(), name.text() + "(18, 3)"));
    }
  }

  /** Whether token {@code as} is the {@code AS} of a {@code CAST} or {@code TRY_CAST}. */
  private static boolean inCast(List<SqlToken> tokens, int as) {
    int depth = 0;
    for (int i = as - 1; i > 0; i--) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol(")") || token.isSymbol("]")) {
        depth++;
      } else if (token.isSymbol("(") || token.isSymbol("[")) {
        if (depth == 0) {
          return token.isSymbol("(")
              && (tokens.get(i - 1).isKeyword("CAST") || tokens.get(i - 1).isKeyword("TRY_CAST"));
        }
        depth--;
      }
    }
    return false;
  }
}
