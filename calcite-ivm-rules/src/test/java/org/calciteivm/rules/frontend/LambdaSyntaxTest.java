package org.calciteivm.rules.frontend;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParseException;
import org.junit.jupiter.api.Test;

class LambdaSyntaxTest {
  @Test
  void lambdaHeadsAreWrittenAsCalcitesKeepingEveryOtherPosition() {
    String sql =
        "SELECT list_reduce(l, lambda a, b: a + b), list_filter(l, LAMBDA x : x > 1) FROM t";
    String read = LambdaSyntax.forCalcite(sql);
    assertThat(read)
        .hasSameSizeAs(sql)
        .isEqualTo(
            "SELECT list_reduce(l, (a, b)->     a + b), list_filter(l, (x)->      x > 1) FROM t");
    // the bodies stay where they were
    assertThat(read.indexOf("a + b")).isEqualTo(sql.indexOf("a + b"));
    assertThat(read.indexOf("x > 1")).isEqualTo(sql.indexOf("x > 1"));
  }

  @Test
  void onlyLambdaHeadsChange() {
    for (String sql :
        new String[] {
          "SELECT 'lambda x: 1', \"lambda\" FROM t",
          "SELECT lambda FROM t -- lambda x: x",
          "SELECT lambda::INTEGER, l[1:2] FROM t",
          "SELECT mylambda(x) FROM t /* lambda y: y */",
          "SELECT lambda, x FROM t"
        }) {
      assertThat(LambdaSyntax.forCalcite(sql)).as(sql).isSameAs(sql);
    }
  }

  @Test
  void calcitesParserReadsTheResult() throws SqlParseException {
    SqlNode parsed =
        LambdaSyntax.parser(
                "SELECT list_transform(l, lambda \"x\", i: \"x\" * i) AS y FROM t",
                ViewSqlPlanner.PARSER)
            .parseQuery();
    assertThat(parsed.toString()).contains("->");
  }
}
