package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;
import org.calciteivm.rules.frontend.LambdaSyntax;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * DuckDB's infix operators that Calcite's parser does not read, written as the DuckDB functions
 * they stand for: {@code a // b} as {@code divide(a, b)} (an integer division of integers, a
 * division of other numbers: {@code 7 // 2} is 3, {@code 7.5 // 2} is 3.75), and {@code a GLOB b}
 * as {@code "~~~"(a, b)} (DuckDB's name of the function; {@code a NOT GLOB b} as its negation).
 *
 * <p>Calcite's parser finds the operands: the query is parsed with each operator read as one of
 * Calcite's with the same precedence and associativity in both grammars, spelt in as many
 * characters so that positions stay ({@code //} as {@code %}, multiplicative; {@code GLOB} as
 * {@code LIKE}, a comparison), and each such call whose operator is one of them is written as the
 * function of its operands' own text, innermost first. A query that does not parse yet (another
 * rewrite comes first) is left as it is; CREATE applies this rewrite again once the others are
 * done.
 */
final class InfixFunctions {
  private InfixFunctions() {}

  /** An operator of DuckDB's written as a function. */
  private enum Operator {
    DIVIDE("% ", SqlKind.MOD, "divide"),
    GLOB("LIKE", SqlKind.LIKE, "\"~~~\"");

    /** What the operator is read as by Calcite's parser, as long as the operator. */
    final String mask;

    /** The kind of the call Calcite parses it as. */
    final SqlKind kind;

    /** The function it stands for. */
    final String function;

    Operator(String mask, SqlKind kind, String function) {
      this.mask = mask;
      this.kind = kind;
      this.function = function;
    }

    /** The operator starting at token {@code i} of {@code tokens}, or null. */
    static @Nullable Operator at(List<SqlToken> tokens, int i) {
      SqlToken token = tokens.get(i);
      if (token.isKeyword("GLOB")) {
        return GLOB;
      }
      if (i + 1 < tokens.size()
          && token.isSymbol("/")
          && tokens.get(i + 1).isSymbol("/")
          && token.end() == tokens.get(i + 1).start()) {
        return DIVIDE;
      }
      return null;
    }
  }

  /**
   * {@code query} with each {@code //} written as {@code divide} and each {@code GLOB} as {@code
   * "~~~"}; {@code query} if it has none.
   */
  static String rewrite(String query) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    Map<Integer, Operator> operators = new HashMap<>();
    StringBuilder masked = new StringBuilder(query);
    for (int i = 0; i < tokens.size(); i++) {
      Operator operator = Operator.at(tokens, i);
      if (operator != null) {
        int at = tokens.get(i).start();
        operators.put(at, operator);
        masked.replace(at, at + operator.mask.length(), operator.mask);
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
    List<Call> calls = new ArrayList<>();
    parsed.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            Call found = Call.of(call, text, operators);
            if (found != null) {
              calls.add(found);
            }
            return super.visit(call);
          }
        });
    if (calls.size() != operators.size()) {
      return query; // an operator whose operands the positions do not tell: the planner refuses it
    }
    QueryText.Range whole = new QueryText.Range(0, query.length());
    return text.replaced(whole, written(whole, calls, text));
  }

  /**
   * The calls directly within {@code range} (not inside another call within it), each mapped to its
   * text as a function.
   */
  private static Map<QueryText.Range, String> written(
      QueryText.Range range, List<Call> calls, QueryText text) {
    Map<QueryText.Range, String> outermost = new HashMap<>();
    for (Call call : calls) {
      if (within(call.range(), range)
          && calls.stream()
              .noneMatch(
                  other ->
                      other != call
                          && within(other.range(), range)
                          && within(call.range(), other.range()))) {
        String function =
            call.operator().function
                + "("
                + text.replaced(call.left(), written(call.left(), calls, text))
                + ", "
                + text.replaced(call.right(), written(call.right(), calls, text))
                + ")";
        outermost.put(call.range(), call.negated() ? "(NOT " + function + ")" : function);
      }
    }
    return outermost;
  }

  private static boolean within(QueryText.Range inner, QueryText.Range outer) {
    return inner.start() >= outer.start() && inner.end() <= outer.end();
  }

  /**
   * One of the operators in the query: its whole text and its operands' (each with the parentheses
   * around it), and whether it is negated ({@code NOT GLOB}).
   */
  private record Call(
      Operator operator,
      QueryText.Range range,
      QueryText.Range left,
      QueryText.Range right,
      boolean negated) {
    /** {@code call} as one of the operators at {@code at} (by position), or null. */
    static @Nullable Call of(SqlCall call, QueryText text, Map<Integer, Operator> at) {
      if (call.operandCount() != 2) {
        return null; // LIKE with ESCAPE: GLOB has none
      }
      QueryText.Range left = text.range(call.operand(0));
      QueryText.Range right = text.range(call.operand(1));
      if (left == null || right == null) {
        return null;
      }
      left = text.parenthesized(left);
      right = text.parenthesized(right);
      for (Map.Entry<Integer, Operator> operator : at.entrySet()) {
        int position = operator.getKey();
        if (call.getKind() == operator.getValue().kind
            && position >= left.end()
            && position < right.start()) {
          return new Call(
              operator.getValue(),
              new QueryText.Range(left.start(), right.end()),
              left,
              right,
              call.getOperator() == SqlStdOperatorTable.NOT_LIKE);
        }
      }
      return null;
    }
  }
}
