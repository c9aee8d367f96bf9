package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * DuckDB's shorter spellings of standard expressions, written out in the standard form, which
 * DuckDB reads as the same expression and Calcite's parser reads at all:
 *
 * <ul>
 *   <li>{@code if(c, a, b)} as {@code CASE WHEN c THEN a ELSE b END}, {@code ifnull(a, b)} as
 *       {@code COALESCE(a, b)};
 *   <li>{@code FILTER (c)} as {@code FILTER (WHERE c)};
 *   <li>{@code INTERVAL '3 days'} as {@code INTERVAL '3' DAY} (one number and one unit);
 *   <li>{@code j ->> 'k'} and {@code j -> 'k'} of a column as {@code json_extract_string(j, 'k')}
 *       and {@code json_extract(j, 'k')}.
 * </ul>
 *
 * CREATE stores the rewritten query.
 */
final class DuckDbSpellings {
  private DuckDbSpellings() {}

  private static final Pattern INTERVAL =
      Pattern.compile(
          "'\\s*(-?\\d+)\\s*(year|month|day|hour|minute|second)s?\\s*'", Pattern.CASE_INSENSITIVE);

  private static final Set<String> INTERVAL_UNITS =
      Set.of(
          "YEAR", "YEARS", "MONTH", "MONTHS", "DAY", "DAYS", "HOUR", "HOURS", "MINUTE", "MINUTES",
          "SECOND", "SECONDS");

  /** A replacement of the text from {@code start} to {@code end}. */
  private record Edit(int start, int end, String text) {}

  /** {@code query} with DuckDB's short spellings written out; {@code query} if it has none. */
  static String rewrite(String query) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    List<Edit> edits = new ArrayList<>();
    for (int i = 0; i + 1 < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      boolean call =
          tokens.get(i + 1).isSymbol("(") && (i == 0 || !tokens.get(i - 1).isSymbol("."));
      if (token.isKeyword("IF") && call) {
        ifAsCase(tokens, i, edits);
      } else if (token.isKeyword("IFNULL") && call) {
        edits.add(new Edit(token.start(), token.end(), "COALESCE"));
      } else if (token.isKeyword("FILTER")
          && tokens.get(i + 1).isSymbol("(")
          && i + 2 < tokens.size()
          && !tokens.get(i + 2).isKeyword("WHERE")) {
        edits.add(new Edit(tokens.get(i + 1).end(), tokens.get(i + 1).end(), "WHERE "));
      } else if (token.isKeyword("INTERVAL")
          && tokens.get(i + 1).kind() == SqlToken.Kind.STRING
          && !(i + 2 < tokens.size() && INTERVAL_UNITS.contains(tokens.get(i + 2).upper()))) {
        Matcher m = INTERVAL.matcher(tokens.get(i + 1).text());
        if (m.matches()) {
          edits.add(
              new Edit(
                  tokens.get(i + 1).start(),
                  tokens.get(i + 1).end(),
                  "'" + m.group(1) + "' " + m.group(2).toUpperCase(Locale.ROOT)));
        }
      } else if (token.isSymbol("-")) {
        jsonArrow(query, tokens, i, edits);
      }
    }
    edits.sort(Comparator.comparingInt(Edit::start));
    StringBuilder rewritten = new StringBuilder();
    int copied = 0;
    for (Edit edit : edits) {
      rewritten.append(query, copied, edit.start()).append(edit.text());
      copied = edit.end();
    }
    return edits.isEmpty() ? query : rewritten.append(query.substring(copied)).toString();
  }

  /** {@code if(c, a, b)} at token {@code at} as a CASE, token by token (ifs nest). */
  private static void ifAsCase(List<SqlToken> tokens, int at, List<Edit> edits) {
    List<Integer> commas = new ArrayList<>();
    int depth = 0;
    int close = -1;
    for (int i = at + 1; i < tokens.size() && close < 0; i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")") && --depth == 0) {
        close = i;
      } else if (depth == 1 && token.isSymbol(",")) {
        commas.add(i);
      }
    }
    if (close < 0 || commas.size() != 2) {
      return; // not DuckDB's three-argument if: the planner reports it
    }
    SqlToken open = tokens.get(at + 1);
    edits.add(new Edit(tokens.get(at).start(), open.end(), "CASE WHEN ("));
    edits.add(
        new Edit(tokens.get(commas.get(0)).start(), tokens.get(commas.get(0)).end(), ") THEN ("));
    edits.add(
        new Edit(tokens.get(commas.get(1)).start(), tokens.get(commas.get(1)).end(), ") ELSE ("));
    edits.add(new Edit(tokens.get(close).start(), tokens.get(close).end(), ") END"));
  }

  /**
   * {@code col ->> 'k'} or {@code col -> 'k'} whose arrow starts at token {@code at}, after a
   * column (maybe qualified) and before a string or number: as a JSON extraction call.
   */
  private static void jsonArrow(String query, List<SqlToken> tokens, int at, List<Edit> edits) {
    boolean text =
        at + 3 < tokens.size()
            && tokens.get(at + 1).isSymbol(">")
            && tokens.get(at + 2).isSymbol(">")
            && adjacent(tokens, at, at + 2);
    int path = text ? at + 3 : at + 2;
    if (path >= tokens.size()
        || !tokens.get(at + 1).isSymbol(">")
        || !adjacent(tokens, at, at + 1)
        || !(tokens.get(path).kind() == SqlToken.Kind.STRING
            || tokens.get(path).kind() == SqlToken.Kind.NUMBER)) {
      return;
    }
    int first = at - 1;
    if (first < 0 || !tokens.get(first).isIdentifier()) {
      return;
    }
    while (first >= 2
        && tokens.get(first - 1).isSymbol(".")
        && tokens.get(first - 2).isIdentifier()) {
      first -= 2;
    }
    String column = query.substring(tokens.get(first).start(), tokens.get(at - 1).end());
    edits.add(
        new Edit(
            tokens.get(first).start(),
            tokens.get(path).end(),
            (text ? "json_extract_string(" : "json_extract(")
                + column
                + ", "
                + tokens.get(path).text()
                + ")"));
  }

  /** Whether the tokens from {@code from} to {@code to} are written without space between. */
  private static boolean adjacent(List<SqlToken> tokens, int from, int to) {
    for (int i = from; i < to; i++) {
      if (tokens.get(i).end() != tokens.get(i + 1).start()) {
        return false;
      }
    }
    return true;
  }
}
