package org.calciteivm.jdbc.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;
import org.calciteivm.jdbc.refresh.IntermediateStates.Node;
import org.calciteivm.jdbc.refresh.IntermediateStates.Split;
import org.junit.jupiter.api.Test;

class IntermediateStatesTest {
  /** DuckDB's functions, which tell its aggregates from its scalar functions. */
  private static final DuckDbFunctions FUNCTIONS;

  static {
    try (Connection duckDb = DriverManager.getConnection("jdbc:duckdb:")) {
      FUNCTIONS = DuckDbFunctions.read(duckDb);
    } catch (SQLException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private static Split split(String query, int viewId, String viewName) throws SQLException {
    return IntermediateStates.split(
        query,
        viewId,
        viewName,
        FUNCTIONS,
        q -> {
          throw new AssertionError("no database to name the columns of " + q);
        });
  }

  /**
   * A FROM subquery or a set-operation branch that keeps its top rows (LIMIT, FETCH) is split: its
   * rows depend on all of its input's, whether or not it aggregates.
   */
  @Test
  void subqueriesWithLimitBecomeNodes() throws SQLException {
    Split split =
        split(
            "SELECT g, COUNT(*) AS n FROM (SELECT id, g FROM item ORDER BY id LIMIT 4) AS d"
                + " GROUP BY g",
            3,
            "v");
    assertThat(split.nodes())
        .extracting(Node::query)
        .containsExactly("SELECT id, g FROM item ORDER BY id LIMIT 4");
    assertThat(split.query())
        .isEqualTo("SELECT g, COUNT(*) AS n FROM  \"_ivm\".\"node_3_1\"  AS d GROUP BY g");
    Split branches =
        split(
            "(SELECT id FROM item ORDER BY id FETCH FIRST 2 ROWS ONLY)"
                + " UNION ALL (SELECT id FROM item ORDER BY id DESC LIMIT 2)",
            4,
            "v");
    assertThat(branches.nodes()).hasSize(2);
  }

  /** A branch that aggregates only with one of DuckDB's own aggregates is split too. */
  @Test
  void branchAggregatingWithADuckDbAggregateBecomesANode() throws SQLException {
    Split split =
        split(
            "SELECT g, quantile_cont(x, 0.25) AS q FROM t GROUP BY g"
                + " UNION ALL SELECT NULL, quantile_cont(x, 0.25) FROM t",
            5,
            "v");
    assertThat(split.nodes()).hasSize(2);
    assertThat(split.nodes().get(1).query())
        .isEqualTo("SELECT NULL, quantile_cont(x, 0.25) FROM t");
  }

  /**
   * Window functions over the view's own aggregates: the aggregate (with WHERE and HAVING) becomes
   * a node, the windows and QUALIFY read its columns; an unaliased item keeps the query's name.
   */
  @Test
  void windowsOverTheViewsOwnAggregatesReadANode() throws SQLException {
    Split split =
        IntermediateStates.split(
            "SELECT t.g, SUM(x) AS s, RANK() OVER (PARTITION BY g ORDER BY SUM(x) DESC) FROM t"
                + " WHERE x > 0 GROUP BY t.g HAVING COUNT(*) > 1"
                + " QUALIFY RANK() OVER (ORDER BY SUM(x)) <= 3 ORDER BY s",
            4,
            "v",
            FUNCTIONS,
            q -> List.of("g", "s", "rank() OVER (PARTITION BY g ORDER BY sum(x) DESC)"));
    assertThat(split.nodes())
        .containsExactly(
            new Node(
                "node_4_1",
                "SELECT t.g AS \"key_1\", SUM(x) AS \"aggregate_1\" FROM t WHERE x > 0"
                    + " GROUP BY t.g HAVING COUNT(*) > 1"));
    assertThat(split.query())
        .isEqualTo(
            "SELECT \"key_1\" AS \"g\", \"aggregate_1\" AS s, RANK() OVER (PARTITION BY"
                + " \"key_1\" ORDER BY \"aggregate_1\" DESC) AS \"rank() OVER (PARTITION BY g"
                + " ORDER BY sum(x) DESC)\" FROM \"_ivm\".\"node_4_1\""
                + " QUALIFY RANK() OVER (ORDER BY \"aggregate_1\") <= 3");
  }

  @Test
  void joinedAggregateBecomesANode() throws SQLException {
    Split split =
        split(
            "SELECT c.region, t.total FROM customer c JOIN (SELECT custkey, SUM(price) AS total"
                + " FROM orders GROUP BY custkey) t ON c.custkey = t.custkey",
            7,
            "v");
    assertThat(split.query())
        .isEqualTo(
            "SELECT c.region, t.total FROM customer c JOIN  \"_ivm\".\"node_7_1\"  t"
                + " ON c.custkey = t.custkey");
    assertThat(split.nodes())
        .containsExactly(
            new Node(
                "node_7_1", "SELECT custkey, SUM(price) AS total FROM orders GROUP BY custkey"));
  }

  @Test
  void onlyTheOutermostAggregateIsSplit() throws SQLException {
    Split split =
        split(
            "SELECT n, COUNT(*) AS k FROM (SELECT a, COUNT(*) AS n FROM"
                + " (SELECT a, MAX(b) AS b FROM t GROUP BY a) i GROUP BY a) q GROUP BY n",
            3,
            "v");
    assertThat(split.query())
        .isEqualTo("SELECT n, COUNT(*) AS k FROM  \"_ivm\".\"node_3_1\"  q GROUP BY n");
    assertThat(split.nodes().get(0).query())
        .isEqualTo(
            "SELECT a, COUNT(*) AS n FROM (SELECT a, MAX(b) AS b FROM t GROUP BY a) i GROUP BY a");
  }

  @Test
  void commentsQuotesAndDoubledParentheses() throws SQLException {
    String query =
        "SELECT \"x)\".k -- a comment (with a parenthesis\n"
            + "FROM t AS \"x)\" JOIN ( /* ( */ (SELECT DISTINCT k FROM \"u(\" WHERE s = ')')) AS d\n"
            + "ON \"x)\".k = d.k AND d.k IN (SELECT 1)";
    Split split = split(query, 12, "v");
    assertThat(split.query())
        .isEqualTo(
            "SELECT \"x)\".k -- a comment (with a parenthesis\n"
                + "FROM t AS \"x)\" JOIN  \"_ivm\".\"node_12_1\"  AS d\n"
                + "ON \"x)\".k = d.k AND d.k IN (SELECT 1)");
    assertThat(split.nodes().get(0).query())
        .isEqualTo("SELECT DISTINCT k FROM \"u(\" WHERE s = ')'");
  }

  @Test
  void severalSubqueriesNumberedInOrderAndPlainOnesSearched() throws SQLException {
    String query =
        "SELECT * FROM (SELECT a FROM (SELECT a, SUM(b) AS s FROM t GROUP BY a) x WHERE s > 0) p,\n"
            + "  (SELECT COUNT(*) AS n FROM u) q JOIN (SELECT a FROM v) r ON q.n = r.a"
            + " JOIN (SELECT a, b FROM w GROUP BY a, b HAVING COUNT(*) > 1) s USING (a)";
    Split split = split(query, 5, "v");
    assertThat(split.nodes())
        .extracting(Node::name)
        .containsExactly("node_5_1", "node_5_2", "node_5_3");
    assertThat(split.nodes())
        .extracting(Node::query)
        .containsExactly(
            "SELECT a, SUM(b) AS s FROM t GROUP BY a",
            "SELECT COUNT(*) AS n FROM u",
            "SELECT a, b FROM w GROUP BY a, b HAVING COUNT(*) > 1");
    assertThat(split.query())
        .isEqualTo(
            "SELECT * FROM (SELECT a FROM  \"_ivm\".\"node_5_1\"  x WHERE s > 0) p,\n"
                + "   \"_ivm\".\"node_5_2\"  q JOIN (SELECT a FROM v) r ON q.n = r.a"
                + " JOIN  \"_ivm\".\"node_5_3\"  s USING (a)");
  }

  @Test
  void windowsAndBagSetOperationsBelowOtherOperatorsAreSplit() throws SQLException {
    Split split =
        split(
            "SELECT q.a, r.a FROM (SELECT a, RANK() OVER (ORDER BY a) AS r FROM t) q"
                + " JOIN (SELECT a FROM t INTERSECT ALL SELECT a FROM u) r ON q.a = r.a"
                + " UNION ALL (SELECT a, b FROM t EXCEPT ALL SELECT a, b FROM u)",
            2,
            "v");
    assertThat(split.nodes())
        .extracting(Node::query)
        .containsExactly(
            "SELECT a, RANK() OVER (ORDER BY a) AS r FROM t",
            "SELECT a FROM t INTERSECT ALL SELECT a FROM u",
            "(SELECT a, b FROM t EXCEPT ALL SELECT a, b FROM u)"); // a branch keeps its parentheses
    // nested in another bag INTERSECT or EXCEPT: kept with it, not split
    assertThat(
            split("SELECT a FROM t EXCEPT ALL SELECT a FROM u EXCEPT ALL SELECT a FROM v", 3, "w")
                .nodes())
        .isEmpty();
  }

  @Test
  void aggregatingSubqueriesOfInAndExistsAreSplit() throws SQLException {
    Split split =
        split(
            "SELECT a FROM t WHERE a IN (SELECT MAX(a) FROM u)"
                + " AND (EXISTS ( SELECT b FROM u GROUP BY b HAVING COUNT(*) > 1 ) OR a > 0)",
            4,
            "v");
    assertThat(split.nodes())
        .extracting(Node::query)
        .containsExactly("SELECT MAX(a) FROM u", "SELECT b FROM u GROUP BY b HAVING COUNT(*) > 1");
    assertThat(split.query())
        .isEqualTo(
            "SELECT a FROM t WHERE a IN ( SELECT * FROM \"_ivm\".\"node_4_1\" )"
                + " AND (EXISTS (  SELECT * FROM \"_ivm\".\"node_4_2\"  ) OR a > 0)");
  }

  @Test
  void nothingToSplit() throws SQLException {
    for (String query :
        new String[] {
          "SELECT a, COUNT(*) FROM t GROUP BY a",
          "WITH RECURSIVE q(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM q) SELECT n FROM q",
          "SELECT t.id, l.s FROM t, LATERAL (SELECT SUM(u.y) AS s FROM u WHERE u.id = t.id) l",
          "SELECT a FROM t WHERE a IN (SELECT a FROM u WHERE u.b = t.b GROUP BY a)", // correlated
          "SELEC oops"
        }) {
      Split split = split(query, 1, "v");
      assertThat(split.nodes()).as(query).isEmpty();
      assertThat(split.query()).isEqualTo(query);
    }
  }

  @Test
  void distinctAggregatesCountEachValuePerGroup() throws SQLException {
    String query =
        "SELECT c.region AS r, COUNT(DISTINCT o.cust) FILTER (WHERE o.price > 0) AS buyers,\n"
            + "  SUM(o.price) AS total, AVG(o.price), COUNT(*) * 2 AS n2\n"
            + "FROM orders o JOIN customer c ON c.id = o.cust WHERE o.price IS NOT NULL\n"
            + "GROUP BY region HAVING MAX(o.price) > 1";
    Split split = split(query, 4, "v");
    assertThat(split.nodes())
        .containsExactly(
            new Node(
                "node_4_1",
                "SELECT region AS \"key_1\", CASE WHEN o.price > 0 THEN o.cust END AS"
                    + " \"distinct_value\", SUM(o.price) AS \"partial_1\", SUM(o.price) AS"
                    + " \"partial_2\", COUNT(o.price) AS \"partial_3\", COUNT(*) AS \"partial_4\","
                    + " MAX(o.price) AS \"partial_5\""
                    + " FROM orders o JOIN customer c ON c.id = o.cust WHERE o.price IS NOT NULL"
                    + " GROUP BY region, CASE WHEN o.price > 0 THEN o.cust END"));
    assertThat(split.query())
        .isEqualTo(
            "SELECT \"key_1\" AS r, COUNT(\"distinct_value\") AS buyers,"
                + " SUM(\"partial_1\") AS total,"
                + " CAST(SUM(\"partial_2\") AS DOUBLE) / NULLIF(SUM(\"partial_3\"), 0),"
                + " COALESCE(SUM(\"partial_4\"), 0) * 2 AS n2"
                + " FROM \"_ivm\".\"node_4_1\" GROUP BY \"key_1\""
                + " HAVING MAX(\"partial_5\") > 1");
  }

  @Test
  void commonTableExpressionsAreInlinedThenSplit() throws SQLException {
    Split split =
        split(
            "WITH q AS (SELECT a, COUNT(*) AS n FROM t GROUP BY a), r(x, y) AS (SELECT n, a FROM q)\n"
                + "SELECT r.x, s.n FROM r JOIN q AS s ON r.y = s.a",
            6,
            "v");
    assertThat(split.nodes())
        .extracting(Node::query)
        .containsExactly(
            "SELECT a, COUNT(*) AS n FROM t GROUP BY a",
            "SELECT a, COUNT(*) AS n FROM t GROUP BY a");
    assertThat(split.query())
        .isEqualTo(
            "SELECT r.x, s.n FROM (SELECT n, a FROM  \"_ivm\".\"node_6_1\"  AS \"q\") AS \"r\"(x, y)"
                + " JOIN  \"_ivm\".\"node_6_2\"  AS s ON r.y = s.a");
  }

  @Test
  void aConstantDistinctValueIsGroupedByName() throws SQLException {
    Split split = split("SELECT SUM(DISTINCT 4) AS s FROM t", 2, "v");
    assertThat(split.nodes().get(0).query())
        .isEqualTo("SELECT 4 AS \"distinct_value\" FROM t GROUP BY \"distinct_value\"");
  }

  /**
   * DISTINCT aggregates of two values: a hidden view for the other aggregates and one per value,
   * joined on the group keys (NULL matching NULL).
   */
  @Test
  void distinctAggregatesOfTwoValuesAreJoinedHiddenViews() throws SQLException {
    Split split =
        IntermediateStates.split(
            "SELECT k, COUNT(DISTINCT a) AS ca, SUM(DISTINCT b) AS sb, SUM(c) AS s FROM t"
                + " WHERE c > 0 GROUP BY k HAVING COUNT(DISTINCT a) > 1",
            1,
            "v",
            FUNCTIONS,
            q -> List.of("k", "ca", "sb", "s"));
    assertThat(split.nodes())
        .containsExactly(
            new Node(
                "node_1_1",
                "SELECT k AS \"key_1\", SUM(c) AS \"aggregate_3\" FROM t WHERE c > 0 GROUP BY k"),
            new Node(
                "node_1_2",
                "SELECT k AS \"key_1\", COUNT(DISTINCT a) AS \"aggregate_1\" FROM t WHERE c > 0"
                    + " GROUP BY k"),
            new Node(
                "node_1_3",
                "SELECT k AS \"key_1\", SUM(DISTINCT b) AS \"aggregate_2\" FROM t WHERE c > 0"
                    + " GROUP BY k"));
    assertThat(split.query())
        .isEqualTo(
            "SELECT \"n1\".\"key_1\" AS \"k\", \"n2\".\"aggregate_1\" AS ca,"
                + " \"n3\".\"aggregate_2\" AS sb, \"n1\".\"aggregate_3\" AS s"
                + " FROM \"_ivm\".\"node_1_1\" AS \"n1\""
                + " JOIN \"_ivm\".\"node_1_2\" AS \"n2\""
                + " ON \"n1\".\"key_1\" IS NOT DISTINCT FROM \"n2\".\"key_1\""
                + " JOIN \"_ivm\".\"node_1_3\" AS \"n3\""
                + " ON \"n1\".\"key_1\" IS NOT DISTINCT FROM \"n3\".\"key_1\""
                + " WHERE \"n2\".\"aggregate_1\" > 1");
  }
}
