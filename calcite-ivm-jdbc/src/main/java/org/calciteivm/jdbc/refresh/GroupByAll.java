package org.calciteivm.jdbc.refresh;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;
import org.calciteivm.rules.frontend.LambdaSyntax;
import org.calciteivm.rules.frontend.ViewSqlPlanner;

/**
 * DuckDB's {@code GROUP BY ALL}, written out as the list it stands for, so that Calcite (whose
 * parser reads {@code ALL} there as the standard's set quantifier) and every later step see an
 * ordinary query: the expressions of the {@code SELECT}'s items that contain no aggregate and name
 * a column, in their order, as the user wrote them; with no such item, no grouping at all (as
 * DuckDB: {@code SELECT 1 FROM t GROUP BY ALL} has a row per row of {@code t}). CREATE stores the
 * written out query.
 */
public final class GroupByAll {
  private GroupByAll() {}

  /** What a {@code GROUP BY ALL}'s {@code ALL} becomes while the query is parsed. */
  private static final String PLACEHOLDER = "ivm group by all";

  /** The keywords that may follow a {@code GROUP BY ALL}. */
  private static final Set<String> FOLLOWERS =
      Set.of(
          "HAVING",
          "ORDER",
          "LIMIT",
          "OFFSET",
          "QUALIFY",
          "WINDOW",
          "UNION",
          "INTERSECT",
          "EXCEPT");

  /** Reads DuckDB's functions only when a query needs them. */
  @FunctionalInterface
  public interface Functions {
    DuckDbFunctions read() throws SQLException;
  }

  /**
   * {@code query} with each {@code GROUP BY ALL} written out; {@code query} itself if it has none.
   *
   * @throws SQLException if a {@code GROUP BY ALL} selects {@code *}, whose columns this does not
   *     list
   */
  public static String expand(String query, Functions functions) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    List<Integer> alls = new ArrayList<>();
    for (int i = 2; i < tokens.size(); i++) {
      if (tokens.get(i).isKeyword("ALL")
          && tokens.get(i - 1).isKeyword("BY")
          && tokens.get(i - 2).isKeyword("GROUP")
          && (i + 1 == tokens.size()
              || tokens.get(i + 1).isSymbol(")")
              || tokens.get(i + 1).kind() == SqlToken.Kind.SEMICOLON
              || tokens.get(i + 1).kind() == SqlToken.Kind.WORD
                  && FOLLOWERS.contains(tokens.get(i + 1).upper()))) {
        alls.add(i);
      }
    }
    if (alls.isEmpty()) {
      return query;
    }
    StringBuilder marked = new StringBuilder();
    int copied = 0;
    for (int i : alls) {
      marked
          .append(query, copied, tokens.get(i).start())
          .append('"')
          .append(PLACEHOLDER)
          .append('"');
      copied = tokens.get(i).end();
    }
    String text = marked.append(query.substring(copied)).toString();
    SqlNode parsed;
    try {
      parsed = LambdaSyntax.parser(text, ViewSqlPlanner.PARSER).parseQuery();
    } catch (SqlParseException e) {
      return query; // the planner reports the syntax error, with its position in the user's text
    }
    QueryText source = new QueryText(text);
    DuckDbFunctions duckDb = functions.read();
    Map<QueryText.Range, String> replacements = new HashMap<>();
    List<SQLException> problems = new ArrayList<>();
    parsed.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (call instanceof SqlSelect select
                && select.getGroup() != null
                && select.getGroup().size() == 1
                && select.getGroup().get(0) instanceof SqlIdentifier id
                && id.isSimple()
                && id.getSimple().equals(PLACEHOLDER)) {
              try {
                replacements.put(groupByRange(source, text, id), groupBy(select, source, duckDb));
              } catch (SQLException e) {
                problems.add(e);
              }
            }
            return super.visit(call);
          }
        });
    if (!problems.isEmpty()) {
      throw problems.get(0);
    }
    return source.replaced(new QueryText.Range(0, text.length()), replacements);
  }

  /** The text of {@code GROUP BY <placeholder>}. */
  private static QueryText.Range groupByRange(QueryText source, String text, SqlIdentifier id)
      throws SQLException {
    QueryText.Range placeholder = source.range(id);
    if (placeholder == null) {
      throw new SQLException("GROUP BY ALL: cannot find it in the query", "42601");
    }
    List<SqlToken> before = SqlLexer.tokenize(text.substring(0, placeholder.start()));
    int group = before.get(before.size() - 2).start();
    return new QueryText.Range(group, placeholder.end());
  }

  /** {@code GROUP BY} and the items of {@code select} without aggregate, or nothing. */
  private static String groupBy(SqlSelect select, QueryText source, DuckDbFunctions duckDb)
      throws SQLException {
    List<String> keys = new ArrayList<>();
    for (SqlNode item : select.getSelectList()) {
      SqlNode expression = item.getKind() == SqlKind.AS ? ((SqlCall) item).operand(0) : item;
      if (expression instanceof SqlIdentifier id && id.isStar()) {
        throw new SQLException(
            "GROUP BY ALL with SELECT * is not supported: name the columns to group by", "0A000");
      }
      // DuckDB leaves constant items (no column in them) out of the keys, as it does aggregates
      // and window functions (computed per group, after grouping)
      if (!aggregates(expression, duckDb)
          && !IntermediateStates.windowed(expression)
          && readsColumn(expression)) {
        QueryText.Range range = source.range(expression);
        if (range == null) {
          throw new SQLException(
              "GROUP BY ALL: cannot find the text of " + expression + "; name the columns",
              "0A000");
        }
        keys.add(source.text(range));
      }
    }
    return keys.isEmpty() ? "" : "GROUP BY " + String.join(", ", keys);
  }

  /** Whether {@code expression} names a column (outside subqueries). */
  private static boolean readsColumn(SqlNode expression) {
    boolean[] found = {false};
    expression.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlIdentifier id) {
            found[0] = true;
            return null;
          }

          @Override
          public Void visit(SqlCall call) {
            return call.getKind() == SqlKind.SELECT ? null : super.visit(call);
          }
        });
    return found[0];
  }

  /** Whether {@code expression} calls an aggregate function outside a window. */
  static boolean aggregates(SqlNode expression, DuckDbFunctions duckDb) {
    boolean[] found = {false};
    expression.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (call.getKind() == SqlKind.OVER) {
              return null; // a window function: computed per row, after grouping
            }
            if (call.getKind() == SqlKind.SELECT) {
              return null; // a subquery's aggregates are its own
            }
            if (call.getOperator().isAggregator()
                || duckDb.isAggregate(call.getOperator().getName())) {
              found[0] = true;
            }
            return super.visit(call);
          }
        });
    return found[0];
  }
}
