package org.calciteivm.jdbc.refresh;

import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * DuckDB's prefix operator {@code a ^@ b}, which Calcite's parser does not read, written as the
 * function it stands for, {@code starts_with(a, b)}.
 *
 * <p>DuckDB's parser finds the operands: it reads {@code ^@} at the precedence of its other
 * operators (below {@code +} and {@code -}, above comparisons and {@code LIKE}, left to right, so
 * that {@code a || b ^@ c} is {@code (a || b) ^@ c}), which no operator of Calcite's grammar
 * shares. Its parse of the query ({@code json_serialize_sql}) gives where each {@code ^@}
 * expression starts and how long it is; its operator is the last {@code ^@} outside brackets in it
 * (the operator is left-associative, and a right operand holds none outside brackets), the left
 * operand the text before, the right one the text after. One expression is written at a time and
 * the query parsed again, so that offsets stay true.
 */
final class StartsWithOperators {
  /** DuckDB's parse of a query, as {@code json_serialize_sql} writes it. */
  @FunctionalInterface
  interface Parser {
    String serialize(String query) throws SQLException;
  }

  /** A {@code ^@} call in DuckDB's parse: where it starts and its length, in UTF-8 bytes. */
  private static final Pattern CALL =
      Pattern.compile(
          "\"query_location\":(\\d+),\"query_location_length\":(\\d+),"
              + "\"function_name\":\"\\^@\"");

  /** The message of DuckDB's parse that failed. */
  private static final Pattern ERROR =
      Pattern.compile("^\\{\"error\":true,.*?\"error_message\":\"((?:[^\"\\\\]|\\\\.)*)\"");

  private StartsWithOperators() {}

  /**
   * {@code query}, the query of view {@code viewName}, with each {@code ^@} written as {@code
   * starts_with}; {@code query} itself if it has none.
   *
   * @throws SQLException if DuckDB does not parse the query, or names no {@code ^@} expression that
   *     the query's text holds
   */
  static String rewrite(String query, String viewName, Parser parser) throws SQLException {
    String result = query;
    for (int left = operators(result).size(); left > 0; left--) {
      String parsed = parser.serialize(result);
      Matcher error = ERROR.matcher(parsed);
      if (error.find()) {
        throw new SQLSyntaxErrorException(
            "materialized view \"" + viewName + "\": " + error.group(1).replace("\\\"", "\""),
            "42601");
      }
      Matcher call = CALL.matcher(parsed);
      if (!call.find()) {
        break;
      }
      int start = charOffset(result, Integer.parseInt(call.group(1)));
      int end =
          charOffset(result, Integer.parseInt(call.group(1)) + Integer.parseInt(call.group(2)));
      SqlToken operator = lastOutsideBrackets(SqlLexer.tokenize(result.substring(start, end)));
      if (operator == null) {
        break;
      }
      result =
          result.substring(0, start)
              + "starts_with("
              + result.substring(start, start + operator.start()).trim()
              + ", "
              + result.substring(start + operator.end() + 1, end).trim()
              + ")"
              + result.substring(end);
    }
    if (!operators(result).isEmpty()) {
      throw UnsupportedViewException.notYet(
          viewName, "an ^@ operator whose operands were not found", "write starts_with(a, b)");
    }
    return result;
  }

  /** The {@code ^} tokens of the {@code ^@} operators of {@code query}. */
  private static List<SqlToken> operators(String query) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    return IntStream.range(0, Math.max(0, tokens.size() - 1))
        .filter(i -> isOperator(tokens, i))
        .mapToObj(tokens::get)
        .toList();
  }

  private static boolean isOperator(List<SqlToken> tokens, int i) {
    return tokens.get(i).isSymbol("^")
        && tokens.get(i + 1).isSymbol("@")
        && tokens.get(i).end() == tokens.get(i + 1).start();
  }

  /**
   * The {@code ^} of the last {@code ^@} in {@code tokens} outside parentheses, brackets and {@code
   * CASE ... END}, or null.
   */
  private static @Nullable SqlToken lastOutsideBrackets(List<SqlToken> tokens) {
    @Nullable SqlToken last = null;
    int depth = 0;
    for (int i = 0; i < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(") || token.isSymbol("[") || token.isKeyword("CASE")) {
        depth++;
      } else if (token.isSymbol(")") || token.isSymbol("]") || token.isKeyword("END")) {
        depth--;
      } else if (depth == 0 && i + 1 < tokens.size() && isOperator(tokens, i)) {
        last = token;
      }
    }
    return last;
  }

  /** The offset in {@code text} of the character at UTF-8 byte offset {@code bytes}. */
  private static int charOffset(String text, int bytes) {
    byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
    return new String(utf8, 0, Math.min(bytes, utf8.length), StandardCharsets.UTF_8).length();
  }
}
