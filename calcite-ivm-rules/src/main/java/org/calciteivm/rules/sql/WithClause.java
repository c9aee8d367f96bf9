package org.calciteivm.rules.sql;

import java.util.function.UnaryOperator;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The leading {@code WITH} clause of a query's SQL as {@link SqlUnparser} writes it for shared
 * subplans ({@code WITH "s"(...) AS MATERIALIZED (...), ...}, a line break, the query), split from
 * the query, so that a statement that embeds the query can put the clause before itself instead:
 * {@code WITH "s" AS MATERIALIZED (...) MERGE INTO t USING (query) ...}.
 *
 * <p>Why: DuckDB runs a {@code MERGE} whose source holds a materialized common table expression
 * with a slow update: TPC-H SF 1, the customer_orders view (customers LEFT JOIN orders, grouped by
 * customer) after 150,000 new orders, 74,725 groups updated, 2.7 s against 0.13 s with the same
 * clause before {@code MERGE} (the source alone takes about 0.1 s), measured by hand on plain
 * DuckDB 2.0.
 *
 * @param clause the {@code WITH ...} clause
 * @param query the query after it
 */
public record WithClause(String clause, String query) {

  /**
   * The leading WITH clause of {@code sql} and its query, or null if it has none: the clause ends
   * at the first line break outside parentheses, quoted identifiers and string literals (each
   * definition's query is in parentheses).
   */
  public static @Nullable WithClause of(String sql) {
    if (!sql.startsWith("WITH ")) {
      return null;
    }
    int depth = 0;
    for (int i = 0; i < sql.length(); i++) {
      char c = sql.charAt(i);
      if (c == '"' || c == '\'') {
        // a doubled quote inside is two quoted pieces in a row
        int close = sql.indexOf(c, i + 1);
        if (close < 0) {
          return null;
        }
        i = close;
      } else if (c == '(') {
        depth++;
      } else if (c == ')') {
        depth--;
      } else if (c == '\n' && depth == 0) {
        return new WithClause(sql.substring(0, i), sql.substring(i + 1));
      }
    }
    return null;
  }

  /**
   * The statement {@code embed} makes of the query {@code sourceSql}, with the query's WITH clause,
   * if it has one, moved before the statement.
   */
  public static String hoisted(String sourceSql, UnaryOperator<String> embed) {
    WithClause with = of(sourceSql);
    return with == null ? embed.apply(sourceSql) : with.clause() + "\n" + embed.apply(with.query());
  }
}
