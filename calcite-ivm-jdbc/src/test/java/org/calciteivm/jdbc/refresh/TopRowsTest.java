package org.calciteivm.jdbc.refresh;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** {@link TopRows}: which queries it writes as a ROW_NUMBER filter, and how. */
class TopRowsTest {
  @Test
  void aQueryWithoutLimitOrOffsetIsLeftAsItIs() throws SQLException {
    for (String query :
        new String[] {
          "SELECT a FROM t ORDER BY a",
          "SELECT a FROM (SELECT a FROM t ORDER BY a LIMIT 3) s",
          "SELECT a, ROW_NUMBER() OVER (ORDER BY a) FROM t",
        }) {
      assertThat(TopRows.rewrite(query, "v")).isEqualTo(query);
    }
  }

  @Test
  void limitAndOffsetBecomeTheRowNumbersKept() throws SQLException {
    assertThat(TopRows.rewrite("SELECT a, b FROM t WHERE b > 0 ORDER BY a DESC, b LIMIT 3;", "v"))
        .isEqualTo(
            "SELECT * FROM (SELECT a, b FROM t WHERE b > 0) AS top_rows QUALIFY ROW_NUMBER()"
                + " OVER (ORDER BY a DESC, b) BETWEEN 1 AND 3 ORDER BY a DESC, b");
    assertThat(TopRows.rewrite("SELECT a FROM t ORDER BY a OFFSET 2 LIMIT 5", "v"))
        .endsWith("QUALIFY ROW_NUMBER() OVER (ORDER BY a) BETWEEN 3 AND 7 ORDER BY a");
    assertThat(TopRows.rewrite("SELECT a FROM t ORDER BY a NULLS FIRST OFFSET 2", "v"))
        .endsWith("QUALIFY ROW_NUMBER() OVER (ORDER BY a NULLS FIRST) > 2 ORDER BY a NULLS FIRST");
  }

  @Test
  void theOrderNamesSelectedExpressionsByTheirNamesInTheResult() throws SQLException {
    assertThat(
            TopRows.rewrite(
                "SELECT t.a, u.b AS bee, t.c + 1 AS d FROM t JOIN u ON t.k = u.k"
                    + " ORDER BY t.a, u.b DESC, t.c + 1, t.e LIMIT 1",
                "v"))
        .endsWith(
            "QUALIFY ROW_NUMBER() OVER (ORDER BY \"a\", \"bee\" DESC, \"d\", t.e) BETWEEN 1 AND 1"
                + " ORDER BY \"a\", \"bee\" DESC, \"d\", t.e");
  }

  @Test
  void aSetOperationIsWrappedWhole() throws SQLException {
    assertThat(TopRows.rewrite("SELECT a FROM t UNION ALL SELECT a FROM u ORDER BY a LIMIT 2", "v"))
        .startsWith("SELECT * FROM (SELECT a FROM t UNION ALL SELECT a FROM u) AS top_rows");
  }

  @Test
  void whatCannotBeKeptExactlyIsRefused() {
    assertThatThrownBy(() -> TopRows.rewrite("SELECT a FROM t LIMIT 2", "v"))
        .hasMessageContaining("LIMIT/OFFSET without ORDER BY is not supported");
    assertThatThrownBy(() -> TopRows.rewrite("SELECT a, b FROM t ORDER BY 2 LIMIT 2", "v"))
        .hasMessageContaining("a column's position");
    assertThatThrownBy(() -> TopRows.rewrite("SELECT a FROM t ORDER BY a LIMIT ?", "v"))
        .hasMessageContaining("other than a whole number");
    assertThatThrownBy(() -> TopRows.rewrite("SELECT a FROM t ORDER BY a LIMIT 1 + 1", "v"))
        .hasMessageContaining("other than a whole number");
    assertThatThrownBy(
            () -> TopRows.rewrite("SELECT a FROM t ORDER BY a LIMIT 99999999999999999999", "v"))
        .hasMessageContaining("too large");
  }
}
