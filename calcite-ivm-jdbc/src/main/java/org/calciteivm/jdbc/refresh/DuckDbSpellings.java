package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayList;
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
 *       and {@code json_extract(j, 'k')};
 *   <li>the slice {@code col[a:b]} of a column as {@code array_slice(col, a, b)}, an omitted bound
 *       as {@code 1} or {@code -1};
 *   <li>the outermost query's {@code ORDER BY ALL [ASC | DESC]} as {@code ORDER BY 1, 2, ...}, the
 *       positions of its select items (unless it selects {@code *});
 *   <li>the list comprehension {@code [body FOR x IN list IF c]} as {@code list_transform} (of
 *       {@code list_filter}) with lambdas;
 *   <li>the list type {@code T[]} (in a cast: {@code CAST(x AS VARCHAR[])}, {@code x::INTEGER[][]})
 *       as {@code T ARRAY}, its standard spelling: empty brackets after a type name or a closing
 *       parenthesis or bracket are no subscript, and after no expression they are an empty list;
 *   <li>the struct literal {@code {'a': x, 'b': y}} as {@code struct_pack("a" => x, "b" => y)}, and
 *       a named argument {@code a := x} as {@code a => x}: DuckDB reads both spellings, and
 *       Calcite's parser the second ({@link org.calciteivm.rules.frontend.StructPacks});
 *   <li>{@code datediff}, {@code date_diff} and {@code datepart} named in double quotes ({@link
 *       #OWN_SYNTAX});
 *   <li>a cast {@code x::t} enclosed in parentheses, {@code (x::t)}, so that it casts what DuckDB
 *       casts ({@link InfixCasts});
 *   <li>DuckDB's {@code trim(s, characters)} as the standard {@code TRIM(BOTH characters FROM s)};
 *   <li>a cast to {@code DECIMAL} or {@code NUMERIC} without a precision with DuckDB's, {@code (18,
 *       3)} ({@link DecimalDefaults});
 *   <li>the power operator {@code **} as {@code ^}, its other spelling: DuckDB gives both the same
 *       precedence (above {@code *}, below unary minus) and reads both left to right, and Calcite's
 *       parser reads {@code ^} (a tree of another shape, but written back as DuckDB reads it).
 * </ul>
 *
 * CREATE stores the rewritten query.
 */
final class DuckDbSpellings {
  private DuckDbSpellings() {}

  private static final Pattern INTERVAL =
      Pattern.compile(
          "'\\s*(-?\\d+)\\s*(year|quarter|month|week|day|hour|minute|second)s?\\s*'",
          Pattern.CASE_INSENSITIVE);

  private static final Set<String> INTERVAL_UNITS =
      Set.of(
          "YEAR",
          "YEARS",
          "QUARTER",
          "QUARTERS",
          "MONTH",
          "MONTHS",
          "WEEK",
          "WEEKS",
          "DAY",
          "DAYS",
          "HOUR",
          "HOURS",
          "MINUTE",
          "MINUTES",
          "SECOND",
          "SECONDS");

  /**
   * DuckDB's functions whose names Calcite's grammar reads with syntax of its own (SQL Server's
   * {@code DATEDIFF(unit, a, b)}, BigQuery's {@code DATE_DIFF(a, b, unit)}): named in double
   * quotes, which DuckDB reads alike, they are ordinary calls of DuckDB's functions for Calcite.
   */
  private static final Set<String> OWN_SYNTAX = Set.of("DATEDIFF", "DATE_DIFF", "DATEPART");

  /**
   * DuckDB's {@code trim(s, characters)} whose name is token {@code at} as the standard {@code
   * TRIM(BOTH characters FROM s)}, which DuckDB reads alike (Calcite's grammar reads only the
   * latter); left as it is unless {@code characters} is one token (a string, a name), so that no
   * other spelling is rewritten inside the text it moves.
   */
  private static void trimOfCharacters(List<SqlToken> tokens, int at, List<QueryEdits.Edit> edits) {
    Enclosed arguments = Enclosed.at(tokens, at + 1);
    List<Integer> commas =
        arguments.inside().stream().filter(i -> tokens.get(i).isSymbol(",")).toList();
    int close = arguments.close();
    if (close < 0 || commas.size() != 1 || close != commas.get(0) + 2) {
      return;
    }
    SqlToken characters = tokens.get(close - 1);
    if (characters.kind() != SqlToken.Kind.STRING
        && characters.kind() != SqlToken.Kind.WORD
        && characters.kind() != SqlToken.Kind.QUOTED_IDENTIFIER) {
      return;
    }
    edits.add(
        new QueryEdits.Edit(
            tokens.get(at).start(),
            tokens.get(at + 1).end(),
            "TRIM(BOTH " + characters.text() + " FROM "));
    edits.add(new QueryEdits.Edit(tokens.get(commas.get(0)).start(), characters.end(), ""));
  }

  /** {@code query} with DuckDB's short spellings written out; {@code query} if it has none. */
  static String rewrite(String query) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    List<QueryEdits.Edit> edits = new ArrayList<>();
    for (int i = 0; i + 1 < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("[") && (i == 0 || !ListLiterals.endsExpression(tokens.get(i - 1)))) {
        int close = comprehension(query, tokens, i, edits);
        if (close > i) {
          i = close;
          continue;
        }
      }
      boolean call =
          tokens.get(i + 1).isSymbol("(") && (i == 0 || !tokens.get(i - 1).isSymbol("."));
      DecimalDefaults.complete(tokens, i, edits);
      if (token.isKeyword("IF") && call) {
        ifAsCase(tokens, i, edits);
      } else if (token.isKeyword("IFNULL") && call) {
        edits.add(new QueryEdits.Edit(token.start(), token.end(), "COALESCE"));
      } else if (call && token.isKeyword("TRIM")) {
        trimOfCharacters(tokens, i, edits);
      } else if (call && OWN_SYNTAX.contains(token.upper())) {
        edits.add(
            new QueryEdits.Edit(
                token.start(), token.end(), "\"" + token.text().toLowerCase(Locale.ROOT) + "\""));
      } else if (token.isSymbol("{") && (i == 0 || !tokens.get(i - 1).isKeyword("MAP"))) {
        structLiteral(tokens, i, edits);
      } else if (token.isSymbol(":")
          && tokens.get(i + 1).isSymbol(":")
          && adjacent(tokens, i, i + 1)) {
        InfixCasts.enclose(tokens, i, edits);
        i++;
      } else if (token.isSymbol(":")
          && tokens.get(i + 1).isSymbol("=")
          && adjacent(tokens, i, i + 1)) {
        edits.add(new QueryEdits.Edit(token.start(), tokens.get(i + 1).end(), "=>"));
        i++;
      } else if (token.isKeyword("FILTER")
          && tokens.get(i + 1).isSymbol("(")
          && i + 2 < tokens.size()
          && !tokens.get(i + 2).isKeyword("WHERE")) {
        edits.add(new QueryEdits.Edit(tokens.get(i + 1).end(), tokens.get(i + 1).end(), "WHERE "));
      } else if (token.isKeyword("INTERVAL")
          && tokens.get(i + 1).kind() == SqlToken.Kind.STRING
          && !(i + 2 < tokens.size() && INTERVAL_UNITS.contains(tokens.get(i + 2).upper()))) {
        Matcher m = INTERVAL.matcher(tokens.get(i + 1).text());
        if (m.matches()) {
          edits.add(
              new QueryEdits.Edit(
                  tokens.get(i + 1).start(),
                  tokens.get(i + 1).end(),
                  "'" + m.group(1) + "' " + m.group(2).toUpperCase(Locale.ROOT)));
        }
      } else if (token.isSymbol("*")
          && tokens.get(i + 1).isSymbol("*")
          && adjacent(tokens, i, i + 1)) {
        edits.add(new QueryEdits.Edit(token.start(), tokens.get(i + 1).end(), "^"));
        i++;
      } else if (token.isSymbol("-")) {
        jsonArrow(query, tokens, i, edits);
      } else if (token.isSymbol("[")
          && tokens.get(i + 1).isSymbol("]")
          && i > 0
          && !tokens.get(i - 1).isKeyword("ARRAY")
          && ListLiterals.endsExpression(tokens.get(i - 1))) {
        edits.add(new QueryEdits.Edit(token.start(), tokens.get(i + 1).end(), " ARRAY"));
        i++;
      } else if (token.isSymbol("[")) {
        slice(query, tokens, i, edits);
      } else if (token.isKeyword("ORDER")
          && tokens.get(i + 1).isKeyword("BY")
          && i + 2 < tokens.size()
          && tokens.get(i + 2).isKeyword("ALL")) {
        orderByAll(tokens, i, edits);
      }
    }
    return QueryEdits.apply(query, edits);
  }

  /**
   * The list comprehension {@code [body FOR x IN list]} opened at token {@code at} as {@code
   * list_transform(list, lambda x: body)}, and {@code [body FOR x IN list IF c]} as {@code
   * list_transform(list_filter(list, lambda x: c), lambda x: body)} (the rule DuckDB reads it by),
   * its parts written out in turn; adds the edit to {@code edits} and returns the index of the
   * closing bracket, or {@code at} if it is none. {@code FOR x, i IN} (an index) with {@code IF} is
   * left as it is: filtering first would renumber the elements.
   */
  private static int comprehension(
      String query, List<SqlToken> tokens, int at, List<QueryEdits.Edit> edits) {
    Enclosed bracket = Enclosed.at(tokens, at);
    int close = bracket.close();
    int forAt = -1;
    int inAt = -1;
    int ifAt = -1;
    for (int i : bracket.inside()) {
      if (tokens.get(i).isKeyword("FOR") && forAt < 0) {
        forAt = i;
      } else if (tokens.get(i).isKeyword("IN") && forAt >= 0 && inAt < 0) {
        inAt = i;
      } else if (tokens.get(i).isKeyword("IF") && inAt >= 0 && ifAt < 0) {
        ifAt = i;
      }
    }
    if (forAt < 0 || inAt < 0 || close < 0) {
      return at;
    }
    String variables = query.substring(tokens.get(forAt).end(), tokens.get(inAt).start()).strip();
    if (variables.isEmpty() || ifAt >= 0 && variables.contains(",")) {
      return at;
    }
    try {
      String body = rewrite(query.substring(tokens.get(at).end(), tokens.get(forAt).start()));
      int listEnd = ifAt >= 0 ? tokens.get(ifAt).start() : tokens.get(close).start();
      String list = rewrite(query.substring(tokens.get(inAt).end(), listEnd));
      if (ifAt >= 0) {
        String condition =
            rewrite(query.substring(tokens.get(ifAt).end(), tokens.get(close).start()));
        list = "list_filter(" + list.strip() + ", lambda " + variables + ": " + condition + ")";
      }
      edits.add(
          new QueryEdits.Edit(
              tokens.get(at).start(),
              tokens.get(close).end(),
              "list_transform("
                  + list.strip()
                  + ", lambda "
                  + variables
                  + ": "
                  + body.strip()
                  + ")"));
    } catch (SQLException e) {
      return at; // a part DuckDB's spellings cannot read: the planner reports it
    }
    return close;
  }

  /**
   * The bracket or parenthesis opened at a token: the index of the token that closes it (-1 if none
   * does, or a token of the other kind) and those directly inside it, outside nested brackets and
   * parentheses.
   */
  private record Enclosed(int close, List<Integer> inside) {
    static Enclosed at(List<SqlToken> tokens, int open) {
      String closing =
          tokens.get(open).isSymbol("[") ? "]" : tokens.get(open).isSymbol("{") ? "}" : ")";
      List<Integer> inside = new ArrayList<>();
      int depth = 0;
      for (int i = open; i < tokens.size(); i++) {
        SqlToken token = tokens.get(i);
        if (token.isSymbol("[") || token.isSymbol("(") || token.isSymbol("{")) {
          depth++;
        } else if ((token.isSymbol("]") || token.isSymbol(")") || token.isSymbol("}"))
            && --depth == 0) {
          return new Enclosed(token.isSymbol(closing) ? i : -1, inside);
        } else if (depth == 1) {
          inside.add(i);
        }
      }
      return new Enclosed(-1, inside);
    }
  }

  /**
   * The struct literal {@code {'a': x, 'b': y}} opened at token {@code at} as {@code
   * struct_pack("a" => x, "b" => y)}, token by token (literals nest); left as it is unless each
   * entry starts with a name (a string or an identifier) and a colon.
   */
  private static void structLiteral(List<SqlToken> tokens, int at, List<QueryEdits.Edit> edits) {
    Enclosed braces = Enclosed.at(tokens, at);
    if (braces.close() < 0) {
      return;
    }
    List<QueryEdits.Edit> literal = new ArrayList<>();
    boolean entryStarts = true;
    for (int i : braces.inside()) {
      SqlToken token = tokens.get(i);
      if (entryStarts) {
        boolean named =
            (token.kind() == SqlToken.Kind.STRING && token.text().startsWith("'")
                    || token.isIdentifier())
                && i + 1 < braces.close()
                && tokens.get(i + 1).isSymbol(":");
        if (!named) {
          return;
        }
        String name =
            token.kind() == SqlToken.Kind.STRING
                ? token.text().substring(1, token.text().length() - 1).replace("''", "'")
                : token.identifier();
        literal.add(
            new QueryEdits.Edit(
                token.start(),
                tokens.get(i + 1).end(),
                "\"" + name.replace("\"", "\"\"") + "\" =>"));
        entryStarts = false;
      } else if (token.isSymbol(",")) {
        entryStarts = true;
      }
    }
    if (entryStarts) {
      return; // no entry, or a comma last
    }
    literal.add(new QueryEdits.Edit(tokens.get(at).start(), tokens.get(at).end(), "struct_pack("));
    SqlToken close = tokens.get(braces.close());
    literal.add(new QueryEdits.Edit(close.start(), close.end(), ")"));
    edits.addAll(literal);
  }

  /** {@code if(c, a, b)} at token {@code at} as a CASE, token by token (ifs nest). */
  private static void ifAsCase(List<SqlToken> tokens, int at, List<QueryEdits.Edit> edits) {
    Enclosed arguments = Enclosed.at(tokens, at + 1);
    int close = arguments.close();
    List<Integer> commas =
        arguments.inside().stream().filter(i -> tokens.get(i).isSymbol(",")).toList();
    if (close < 0 || commas.size() != 2) {
      return; // not DuckDB's three-argument if: the planner reports it
    }
    SqlToken open = tokens.get(at + 1);
    edits.add(new QueryEdits.Edit(tokens.get(at).start(), open.end(), "CASE WHEN ("));
    edits.add(
        new QueryEdits.Edit(
            tokens.get(commas.get(0)).start(), tokens.get(commas.get(0)).end(), ") THEN ("));
    edits.add(
        new QueryEdits.Edit(
            tokens.get(commas.get(1)).start(), tokens.get(commas.get(1)).end(), ") ELSE ("));
    edits.add(new QueryEdits.Edit(tokens.get(close).start(), tokens.get(close).end(), ") END"));
  }

  /**
   * {@code col ->> 'k'} or {@code col -> 'k'} whose arrow starts at token {@code at}, after a
   * column (maybe qualified) and before a string or number: as a JSON extraction call.
   */
  private static void jsonArrow(
      String query, List<SqlToken> tokens, int at, List<QueryEdits.Edit> edits) {
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
    int first = columnBefore(tokens, at, false);
    if (first < 0) {
      return;
    }
    String column = query.substring(tokens.get(first).start(), tokens.get(at - 1).end());
    edits.add(
        new QueryEdits.Edit(
            tokens.get(first).start(),
            tokens.get(path).end(),
            (text ? "json_extract_string(" : "json_extract(")
                + column
                + ", "
                + tokens.get(path).text()
                + ")"));
  }

  /** {@code col[a:b]} whose bracket opens at token {@code at}, after a column: as array_slice. */
  private static void slice(
      String query, List<SqlToken> tokens, int at, List<QueryEdits.Edit> edits) {
    int first = columnBefore(tokens, at, true);
    Enclosed bracket = Enclosed.at(tokens, at);
    int close = bracket.close();
    int colon = -1;
    for (int i : bracket.inside()) {
      if (tokens.get(i).isSymbol(":")) {
        if (colon >= 0 || i + 1 < tokens.size() && tokens.get(i + 1).isSymbol(":")) {
          return; // a step, or a cast x::t inside
        }
        colon = i;
      }
    }
    if (first < 0 || colon < 0 || close < 0) {
      return;
    }
    String from = query.substring(tokens.get(at).end(), tokens.get(colon).start()).strip();
    String to = query.substring(tokens.get(colon).end(), tokens.get(close).start()).strip();
    edits.add(
        new QueryEdits.Edit(
            tokens.get(first).start(),
            tokens.get(close).end(),
            "array_slice("
                + query.substring(tokens.get(first).start(), tokens.get(at - 1).end())
                + ", "
                + (from.isEmpty() ? "1" : from)
                + ", "
                + (to.isEmpty() ? "-1" : to)
                + ")"));
  }

  /**
   * The first token of the column, maybe qualified, that ends right before token {@code at} ({@code
   * adjacent}: with no space between), or -1.
   */
  private static int columnBefore(List<SqlToken> tokens, int at, boolean adjacent) {
    int first = at - 1;
    if (first < 0
        || !tokens.get(first).isIdentifier()
        || adjacent && tokens.get(first).end() != tokens.get(at).start()) {
      return -1;
    }
    while (first >= 2
        && tokens.get(first - 1).isSymbol(".")
        && tokens.get(first - 2).isIdentifier()) {
      first -= 2;
    }
    return first;
  }

  /**
   * {@code ORDER BY ALL} at token {@code at}, when it orders the outermost query: the positions of
   * the select items, each with the direction written after ALL.
   */
  private static void orderByAll(List<SqlToken> tokens, int at, List<QueryEdits.Edit> edits) {
    int depth = 0;
    int select = -1;
    int items = 1;
    for (int i = 0; i < at; i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        depth++;
      } else if (token.isSymbol(")")) {
        depth--;
      } else if (depth == 0 && token.isKeyword("SELECT")) {
        select = i;
        items = 1;
      } else if (depth == 0 && select >= 0 && token.isKeyword("FROM")) {
        select = -2; // the select list ended
      } else if (depth == 0 && select >= 0 && token.isSymbol(",")) {
        items++;
      } else if (depth == 0 && select >= 0 && token.isSymbol("*")) {
        return;
      }
    }
    if (depth != 0 || select == -1) {
      return;
    }
    String direction = "";
    int end = at + 2;
    if (end + 1 < tokens.size()
        && (tokens.get(end + 1).isKeyword("ASC") || tokens.get(end + 1).isKeyword("DESC"))) {
      end++;
      direction = " " + tokens.get(end).upper();
    }
    List<String> positions = new ArrayList<>();
    for (int i = 1; i <= items; i++) {
      positions.add(i + direction);
    }
    edits.add(
        new QueryEdits.Edit(
            tokens.get(at).start(),
            tokens.get(end).end(),
            "ORDER BY " + String.join(", ", positions)));
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
