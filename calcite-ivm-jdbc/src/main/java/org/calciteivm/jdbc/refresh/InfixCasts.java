package org.calciteivm.jdbc.refresh;

import java.util.List;
import java.util.Set;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * DuckDB's cast operator {@code x::t} enclosed in parentheses, {@code (x::t)}, so that Calcite's
 * parser casts what DuckDB casts. DuckDB's {@code ::} binds tighter than every other operator, to
 * the operand right before it ({@code a + b::INTEGER * 2} is {@code a + (b::INTEGER) * 2});
 * Calcite's Babel grammar casts everything its expression has read so far ({@code (a + b)::INTEGER
 * * 2}), which changed the value a view computes after a refresh ({@code active AND deleted::INT =
 * 0} became {@code CAST(active AND deleted AS INTEGER) = 0}).
 *
 * <p>The operand is the primary expression before the operator: a name (maybe qualified), a literal
 * (with its type keyword: {@code DATE '...'}), a parenthesized expression or a function call, a
 * {@code CASE ... END}, each maybe subscripted, or an earlier cast ({@code x::a::b}). A cast whose
 * operand is none of these is left as it is.
 */
final class InfixCasts {
  private InfixCasts() {}

  /**
   * Words that continue a type's name ({@code DOUBLE PRECISION}, {@code TIMESTAMP WITH TIME ZONE}).
   */
  private static final Set<String> TYPE_WORDS =
      Set.of("PRECISION", "VARYING", "WITH", "WITHOUT", "TIME", "ZONE", "LOCAL");

  /** Type keywords of a literal ({@code DATE '2024-01-01'}). */
  private static final Set<String> LITERAL_TYPES =
      Set.of("DATE", "TIME", "TIMESTAMP", "TIMESTAMPTZ", "INTERVAL", "BLOB");

  /**
   * Encloses the cast whose operator {@code ::} starts at token {@code at} (its two colons) in
   * parentheses, adding the edits to {@code edits}.
   */
  static void enclose(List<SqlToken> tokens, int at, List<QueryEdits.Edit> edits) {
    int start = operandStart(tokens, at - 1);
    int end = typeEnd(tokens, at + 2);
    if (start < 0 || end < 0) {
      return;
    }
    if (end == at + 2 && tokens.get(end).isKeyword("INTERVAL")) {
      // x::INTERVAL, which Calcite's parser reads only as CAST(x AS INTERVAL)
      edits.add(new QueryEdits.Edit(tokens.get(start).start(), tokens.get(start).start(), "CAST("));
      edits.add(new QueryEdits.Edit(tokens.get(at).start(), tokens.get(at + 1).end(), " AS "));
    } else {
      edits.add(new QueryEdits.Edit(tokens.get(start).start(), tokens.get(start).start(), "("));
    }
    edits.add(new QueryEdits.Edit(tokens.get(end).end(), tokens.get(end).end(), ")"));
  }

  /** The first token of the primary expression whose last token is {@code last}, or -1. */
  private static int operandStart(List<SqlToken> tokens, int last) {
    if (last < 0) {
      return -1;
    }
    SqlToken token = tokens.get(last);
    int start;
    if (token.isSymbol(")") || token.isSymbol("]")) {
      start = opening(tokens, last);
      if (start < 0) {
        return -1;
      }
      if (token.isSymbol("]") && start > 0 && ListLiterals.endsExpression(tokens.get(start - 1))) {
        // a subscript: of the expression before it
        return operandStart(tokens, start - 1);
      }
      if (token.isSymbol(")") && start > 0 && isName(tokens.get(start - 1))) {
        start = qualified(tokens, start - 1); // a function call
      }
    } else if (token.isKeyword("END")) {
      start = caseStart(tokens, last);
    } else if (token.isIdentifier() && !token.isKeyword("NULL")) {
      start = qualified(tokens, last);
      if (isTypeOfCast(tokens, start)) {
        return operandStart(tokens, start - 3); // x::a::b: the earlier cast
      }
    } else if (token.kind() == SqlToken.Kind.STRING) {
      start = last > 0 && LITERAL_TYPES.contains(tokens.get(last - 1).upper()) ? last - 1 : last;
    } else if (token.kind() == SqlToken.Kind.NUMBER || token.isKeyword("NULL")) {
      start = last;
    } else {
      return -1;
    }
    if (start > 0 && isTypeOfCast(tokens, start)) {
      return operandStart(tokens, start - 3);
    }
    return start;
  }

  /** Whether the tokens before {@code start} are {@code ::}: it starts an earlier cast's type. */
  private static boolean isTypeOfCast(List<SqlToken> tokens, int start) {
    return start >= 3 && tokens.get(start - 1).isSymbol(":") && tokens.get(start - 2).isSymbol(":");
  }

  /** Whether {@code token} can name a function (a word that is no keyword before an operand). */
  private static boolean isName(SqlToken token) {
    return token.kind() == SqlToken.Kind.QUOTED_IDENTIFIER
        || token.kind() == SqlToken.Kind.WORD && ListLiterals.endsExpression(token);
  }

  /** The first token of the name, maybe qualified ({@code s.t.c}), that ends at {@code last}. */
  private static int qualified(List<SqlToken> tokens, int last) {
    int first = last;
    while (first >= 2
        && tokens.get(first - 1).isSymbol(".")
        && tokens.get(first - 2).isIdentifier()) {
      first -= 2;
    }
    return first;
  }

  /** The bracket or parenthesis that the one at {@code close} closes, or -1. */
  private static int opening(List<SqlToken> tokens, int close) {
    int depth = 0;
    for (int i = close; i >= 0; i--) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol(")") || token.isSymbol("]") || token.isSymbol("}")) {
        depth++;
      } else if ((token.isSymbol("(") || token.isSymbol("[") || token.isSymbol("{"))
          && --depth == 0) {
        return i;
      }
    }
    return -1;
  }

  /** The {@code CASE} that the {@code END} at {@code end} closes, or -1. */
  private static int caseStart(List<SqlToken> tokens, int end) {
    int depth = 0;
    for (int i = end; i >= 0; i--) {
      if (tokens.get(i).isKeyword("END")) {
        depth++;
      } else if (tokens.get(i).isKeyword("CASE") && --depth == 0) {
        return i;
      }
    }
    return -1;
  }

  /** The last token of the type that starts at {@code first}, or -1. */
  private static int typeEnd(List<SqlToken> tokens, int first) {
    if (first >= tokens.size() || !tokens.get(first).isIdentifier()) {
      return -1;
    }
    int last = first;
    while (last + 1 < tokens.size()
        && tokens.get(last + 1).kind() == SqlToken.Kind.WORD
        && TYPE_WORDS.contains(tokens.get(last + 1).upper())) {
      last++;
    }
    if (last + 1 < tokens.size() && tokens.get(last + 1).isSymbol("(")) {
      last = QueryEdits.closing(tokens, last + 1);
    }
    while (last + 1 < tokens.size() && tokens.get(last + 1).isSymbol("[")) {
      int close = last + 1;
      while (close < tokens.size() && !tokens.get(close).isSymbol("]")) {
        close++;
      }
      if (close == tokens.size()) {
        return -1;
      }
      last = close;
    }
    return last;
  }
}
