package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;
import org.calciteivm.rules.frontend.LambdaSyntax;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * DuckDB's division operator {@code a // b}, which Calcite's parser does not read, written as the
 * DuckDB function it stands for, {@code divide(a, b)} (an integer division of integers, a division
 * of other numbers: {@code 7 // 2} is 3, {@code 7.5 // 2} is 3.75).
 *
 * <p>Calcite's parser finds the operands: the query is parsed with each {@code //} read as {@code
 * %} (two characters for two, so that positions stay), which has the same precedence and
 * associativity in both grammars (multiplicative, left to right), and each remainder whose operator
 * is such a {@code //} is written as {@code divide} of its operands' own text, innermost first. A
 * query that does not parse yet (another rewrite comes first) is left as it is; CREATE applies this
 * rewrite again once the others are done.
 */
final class IntegerDivisions {
  private IntegerDivisions() {}

  /** {@code query} with each {@code //} written as {@code divide}; {@code query} if it has none. */
  static String rewrite(String query) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    List<Integer> operators = new ArrayList<>();
    StringBuilder masked = new StringBuilder(query);
    for (int i = 0; i + 1 < tokens.size(); i++) {
      if (tokens.get(i).isSymbol("/")
          && tokens.get(i + 1).isSymbol("/")
          && tokens.get(i).end() == tokens.get(i + 1).start()) {
        int at = tokens.get(i).start();
        operators.add(at);
        masked.setCharAt(at, '%');
        masked.setCharAt(at + 1, ' ');
        i++;
      }
    }
    if (operators.isEmpty()) {
      return query;
    }
    SqlNode parsed;
    try {
      parsed = LambdaSyntax.parser(masked.toString(), ViewSqlPlanner.PARSER).parseQuery();
    } catch (SqlParseException e) {
      return query;
    }
    QueryText text = new QueryText(masked.toString());
    List<Division> divisions = new ArrayList<>();
    parsed.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            Division division = Division.of(call, text, operators);
            if (division != null) {
              divisions.add(division);
            }
            return super.visit(call);
          }
        });
    if (divisions.size() != operators.size()) {
      return query; // an operator whose operands the positions do not tell: the planner refuses it
    }
    QueryText.Range whole = new QueryText.Range(0, query.length());
    return text.replaced(whole, written(whole, divisions, text));
  }

  /**
   * The divisions directly within {@code range} (not inside another division within it), each
   * mapped to its text as {@code divide}.
   */
  private static Map<QueryText.Range, String> written(
      QueryText.Range range, List<Division> divisions, QueryText text) {
    Map<QueryText.Range, String> outermost = new HashMap<>();
    for (Division division : divisions) {
      if (within(division.range(), range)
          && divisions.stream()
              .noneMatch(
                  other ->
                      other != division
                          && within(other.range(), range)
                          && within(division.range(), other.range()))) {
        outermost.put(
            division.range(),
            "divide("
                + text.replaced(division.left(), written(division.left(), divisions, text))
                + ", "
                + text.replaced(division.right(), written(division.right(), divisions, text))
                + ")");
      }
    }
    return outermost;
  }

  private static boolean within(QueryText.Range inner, QueryText.Range outer) {
    return inner.start() >= outer.start() && inner.end() <= outer.end();
  }

  /** A {@code //}: its whole text and its operands' (each with the parentheses around it). */
  private record Division(QueryText.Range range, QueryText.Range left, QueryText.Range right) {
    /** {@code call} as a division if it is a remainder whose operator is one of {@code at}. */
    static @Nullable Division of(SqlCall call, QueryText text, List<Integer> at) {
      if (call.getKind() != SqlKind.MOD || call.operandCount() != 2) {
        return null;
      }
      QueryText.Range left = text.range(call.operand(0));
      QueryText.Range right = text.range(call.operand(1));
      if (left == null || right == null) {
        return null;
      }
      left = text.parenthesized(left);
      right = text.parenthesized(right);
      for (int operator : at) {
        if (operator >= left.end() && operator < right.start()) {
          return new Division(new QueryText.Range(left.start(), right.end()), left, right);
        }
      }
      return null;
    }
  }
}
