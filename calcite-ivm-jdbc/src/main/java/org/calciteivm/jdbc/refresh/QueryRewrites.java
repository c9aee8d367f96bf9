package org.calciteivm.jdbc.refresh;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.function.Predicate;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.jdbc.catalog.DuckDbCatalog;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;
import org.calciteivm.jdbc.catalog.Relation;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * The rewrites CREATE applies to the query a user wrote, in order, so that Calcite and every later
 * step read an ordinary query: DuckDB's prefix operator {@code ^@} as {@code starts_with} ({@link
 * StartsWithOperators}), its FROM-first order ({@link FromFirst}), its short spellings of standard
 * expressions ({@link DuckDbSpellings}), its operators {@code //} and {@code GLOB} as functions
 * ({@link InfixFunctions}, again after the rewrites below for a query that parses only then),
 * series table functions as {@code unnest} ({@link TableFunctions}), {@code SELECT DISTINCT ON} as
 * a {@code QUALIFY} filter ({@link DistinctOn}), list literals ({@link ListLiterals}), the {@code
 * ORDER BY} of DuckDB's ordered aggregate calls as {@code WITHIN GROUP} ({@link
 * OrderedAggregateCalls}), {@code ASOF JOIN} as a join with the nearest rows' bounds ({@link
 * AsofJoins}), {@code SEMI}/{@code ANTI JOIN} ({@link SemiAntiJoins}) and {@code GROUP BY ALL}
 * ({@link GroupByAll}) written out, quantified comparisons ({@code x > ALL (SELECT ...)}) as {@code
 * EXISTS} or {@code NOT EXISTS} ({@link QuantifiedSubqueries}), {@code NOT IN} written as an
 * anti-join and counts ({@link NotInSubqueries}), subqueries under OR or NOT and in the select list
 * written as counts ({@link CountedSubqueries}), scalar subqueries moved into FROM ({@link
 * ScalarSubqueries}), and last {@code ORDER BY ... LIMIT} as a {@code ROW_NUMBER} filter over the
 * rest ({@link TopRows}). Grouping sets that do not plan as one aggregate are written out later,
 * per definition ({@link GroupingSets}), since that needs the query's column types.
 */
public final class QueryRewrites {
  private QueryRewrites() {}

  /**
   * {@code query}, the query of view {@code viewName} in database {@code duckDb}, rewritten, and
   * then the plain views it reads written in as their definitions, rewritten too ({@link
   * PlainViews}); {@code isMaterialized} tells the user views of materialized views.
   */
  public static String atCreate(
      String query, String viewName, Connection duckDb, Predicate<List<String>> isMaterialized)
      throws SQLException {
    // read once for all the rewrites of one CREATE: each reads every function DuckDB has
    DuckDbFunctions[] read = {null};
    GroupByAll.Functions functions =
        () -> read[0] != null ? read[0] : (read[0] = DuckDbFunctions.read(duckDb));
    AsofJoins.Keys keys =
        table -> {
          String schema = table.size() > 1 ? table.get(table.size() - 2) : "main";
          return DuckDbCatalog.read(duckDb)
              .find(schema, table.get(table.size() - 1))
              .filter(Relation::isTable)
              .map(Relation::primaryKey);
        };
    StartsWithOperators.Parser parser = sql -> parse(duckDb, sql);
    return PlainViews.inline(
        atCreate(query, viewName, functions, keys, parser),
        duckDb,
        isMaterialized,
        definition -> atCreate(definition, viewName, functions, keys, parser));
  }

  /** DuckDB's parse of {@code query}, as {@code json_serialize_sql} writes it. */
  private static String parse(Connection duckDb, String query) throws SQLException {
    try (PreparedStatement statement =
        duckDb.prepareStatement("SELECT json_serialize_sql(?::VARCHAR)")) {
      statement.setString(1, query);
      try (ResultSet result = statement.executeQuery()) {
        result.next();
        return result.getString(1);
      }
    }
  }

  /**
   * {@code query}, the query of view {@code viewName}, rewritten; {@code functions} gives DuckDB's
   * functions, {@code keys} tables' primary keys and {@code parser} DuckDB's parse of a query when
   * a step needs them.
   */
  static String atCreate(
      String query,
      String viewName,
      GroupByAll.Functions functions,
      AsofJoins.Keys keys,
      StartsWithOperators.Parser parser)
      throws SQLException {
    refuseColumnsExpressions(query, viewName);
    String ordinary =
        InfixFunctions.rewrite( // again, for a query that parses only once rewritten
            GroupByAll.expand(
                SemiAntiJoins.rewrite(
                    AsofJoins.rewrite(
                        OrderedAggregateCalls.rewrite(
                            ListLiterals.rewrite(
                                DistinctOn.rewrite(
                                    SelectListUnnest.rewrite(
                                        TableFunctions.rewrite(
                                            InfixFunctions.rewrite(
                                                DuckDbSpellings.rewrite(
                                                    FromFirst.rewrite(
                                                        StartsWithOperators.rewrite(
                                                            query, viewName, parser))))),
                                        viewName,
                                        functions))),
                            viewName,
                            functions),
                        viewName,
                        keys)),
                functions));
    return TopRows.rewrite(
        ScalarSubqueries.rewrite(
            CountedSubqueries.rewrite(
                NotInSubqueries.rewrite(QuantifiedSubqueries.rewrite(ordinary, functions)),
                functions),
            viewName,
            functions),
        viewName);
  }

  /**
   * Refuses DuckDB's {@code COLUMNS(...)} star expression, which no rewrite writes out yet (Calcite
   * would report an unknown function {@code COLUMNS}).
   */
  private static void refuseColumnsExpressions(String query, String viewName) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    for (int i = 0; i + 1 < tokens.size(); i++) {
      if (tokens.get(i).isKeyword("COLUMNS")
          && tokens.get(i + 1).isSymbol("(")
          && (i == 0 || !tokens.get(i - 1).isSymbol("."))) {
        throw UnsupportedViewException.notYet(
            viewName, "DuckDB's COLUMNS(...) expression", "name the columns");
      }
    }
  }
}
