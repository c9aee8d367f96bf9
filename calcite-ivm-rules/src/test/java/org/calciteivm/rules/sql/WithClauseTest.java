package org.calciteivm.rules.sql;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link WithClause}: the WITH clause of shared subplans moved before a statement. */
class WithClauseTest {
  @Test
  void splitsAtTheFirstLineBreakOutsideParenthesesAndQuotes() {
    String sql =
        """
        WITH "s1"("k", "n") AS MATERIALIZED (SELECT "k", count(*) AS "n"
        FROM "t"
        WHERE "c" = ')\n(' AND "x)\ny" > 0
        GROUP BY "k"), "s2"("k") AS MATERIALIZED (SELECT "k"
        FROM "s1")
        SELECT *
        FROM "s1"
        JOIN "s2" USING ("k")""";
    WithClause with = WithClause.of(sql);
    assertThat(with).isNotNull();
    assertThat(with.clause()).startsWith("WITH \"s1\"").endsWith("FROM \"s1\")");
    assertThat(with.query()).isEqualTo("SELECT *\nFROM \"s1\"\nJOIN \"s2\" USING (\"k\")");
  }

  @Test
  void aQueryWithoutWithIsEmbeddedAsItIs() {
    assertThat(WithClause.of("SELECT 1\nFROM t")).isNull();
    assertThat(WithClause.hoisted("SELECT 1", q -> "MERGE INTO t USING (" + q + ") AS v"))
        .isEqualTo("MERGE INTO t USING (SELECT 1) AS v");
  }

  @Test
  void theClauseGoesBeforeTheStatement() {
    assertThat(
            WithClause.hoisted(
                "WITH \"s\"(\"k\") AS MATERIALIZED (SELECT 1)\nSELECT \"k\" FROM \"s\"",
                q -> "MERGE INTO t USING (" + q + ") AS v"))
        .isEqualTo(
            "WITH \"s\"(\"k\") AS MATERIALIZED (SELECT 1)\nMERGE INTO t USING (SELECT \"k\" FROM"
                + " \"s\") AS v");
  }
}
