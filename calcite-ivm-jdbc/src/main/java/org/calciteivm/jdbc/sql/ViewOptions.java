package org.calciteivm.jdbc.sql;

import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The options list of a materialized view, {@code WITH (refresh = 'immediate')} in CREATE and
 * {@code SET (...)} / {@code RESET (...)} in ALTER.
 */
final class ViewOptions {
  private ViewOptions() {}

  /** The options of a materialized view ({@code WITH (...)}, {@code SET (...)}), by name. */
  static final Set<String> NAMES = Set.of("refresh");

  /**
   * Reads {@code (name = 'value', ...)} ({@code withValues}) or {@code (name, ...)} into {@code
   * options}, by lower-case name; a value may be a string literal or a word. Unknown and repeated
   * options are refused.
   */
  static void read(TokenCursor in, Map<String, String> options, boolean withValues)
      throws SQLException {
    expectSymbol(in, "(");
    do {
      SqlToken token = in.next();
      String option = token.identifier().toLowerCase(Locale.ROOT);
      if (!token.isIdentifier() || !NAMES.contains(option)) {
        throw new SQLException(
            "unknown materialized view option \""
                + token.text()
                + "\": the options are "
                + String.join(", ", NAMES.stream().sorted().toList()),
            "22023");
      }
      String value = null;
      if (withValues) {
        expectSymbol(in, "=");
        SqlToken literal = in.next();
        if (literal.kind() == SqlToken.Kind.STRING && literal.text().startsWith("'")) {
          value = literal.text().substring(1, literal.text().length() - 1).replace("''", "'");
        } else if (literal.kind() == SqlToken.Kind.WORD) {
          value = literal.text();
        } else {
          throw new SQLSyntaxErrorException(
              "syntax error: the value of option " + option + " is a string, e.g. 'immediate'",
              "42601");
        }
      }
      if (options.containsKey(option)) {
        throw new SQLException("option " + option + " is given twice", "22023");
      }
      options.put(option, value);
    } while (acceptSymbol(in, ","));
    expectSymbol(in, ")");
  }

  private static boolean acceptSymbol(TokenCursor in, String symbol) throws SQLException {
    if (in.peek() != null && in.peek().isSymbol(symbol)) {
      in.next();
      return true;
    }
    return false;
  }

  private static void expectSymbol(TokenCursor in, String symbol) throws SQLException {
    if (!acceptSymbol(in, symbol)) {
      throw new SQLSyntaxErrorException(
          "syntax error: expected \""
              + symbol
              + "\" at "
              + (in.peek() == null ? "the end of the statement" : "\"" + in.peek().text() + "\""),
          "42601");
    }
  }
}
