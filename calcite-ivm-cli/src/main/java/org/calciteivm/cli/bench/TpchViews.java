package org.calciteivm.cli.bench;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark's views: TPC-H queries 1, 3, 5, 6, 9, 10 and 12 (ORDER BY and LIMIT dropped, the
 * substitution parameters at their validation values), a join of orders and lineitem without
 * aggregation, a MIN/MAX view, a DISTINCT view, and three views that keep intermediate states: a
 * COUNT(DISTINCT) over a join, an aggregate over a join with an aggregate subquery below it, and a
 * view over another materialized view (Q3); and customers with their order counts by a LEFT JOIN
 * (customers without orders included) and TPC-H Q4, whose EXISTS is a semi-join; the ten customers
 * who spent most (ORDER BY ... LIMIT over an aggregate) and revenue per month beside the month
 * before (LAG over the groups).
 */
public final class TpchViews {
  private TpchViews() {}

  /** Every view by its short name, in the order the benchmark runs them. */
  public static final Map<String, String> ALL = views();

  /** A view over Q3's materialized view, with {@code %s} for where it reads Q3 from. */
  private static final String OVER_Q3 =
      """
      SELECT o_orderdate, COUNT(*) AS orders, SUM(revenue) AS revenue, MAX(revenue) AS top
      FROM %s
      GROUP BY o_orderdate""";

  /**
   * The materialized views a view reads, by the view's short name: the benchmark creates them first
   * (under their own short names) and drops them after.
   */
  public static final Map<String, List<String>> BELOW = Map.of("q3_by_date", List.of("q3"));

  /**
   * The query a view is recomputed with, over the base tables: its own, or the views below inlined.
   */
  public static String recomputeQuery(String view) {
    return view.equals("q3_by_date")
        ? OVER_Q3.formatted("(" + ALL.get("q3") + ") AS q3")
        : ALL.get(view);
  }

  /** The short names of every view. */
  public static List<String> names() {
    return List.copyOf(ALL.keySet());
  }

  private static Map<String, String> views() {
    Map<String, String> views = new LinkedHashMap<>();
    views.put(
        "q1",
        """
        SELECT l_returnflag, l_linestatus, SUM(l_quantity) AS sum_qty,
               SUM(l_extendedprice) AS sum_base_price,
               SUM(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
               SUM(l_extendedprice * (1 - l_discount) * (1 + l_tax)) AS sum_charge,
               AVG(l_quantity) AS avg_qty, AVG(l_extendedprice) AS avg_price,
               AVG(l_discount) AS avg_disc, COUNT(*) AS count_order
        FROM lineitem
        WHERE l_shipdate <= DATE '1998-09-02'
        GROUP BY l_returnflag, l_linestatus""");
    views.put(
        "q3",
        """
        SELECT l_orderkey, SUM(l_extendedprice * (1 - l_discount)) AS revenue, o_orderdate,
               o_shippriority
        FROM customer, orders, lineitem
        WHERE c_mktsegment = 'BUILDING' AND c_custkey = o_custkey AND l_orderkey = o_orderkey
          AND o_orderdate < DATE '1995-03-15' AND l_shipdate > DATE '1995-03-15'
        GROUP BY l_orderkey, o_orderdate, o_shippriority""");
    views.put(
        "q5",
        """
        SELECT n_name, SUM(l_extendedprice * (1 - l_discount)) AS revenue
        FROM customer, orders, lineitem, supplier, nation, region
        WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey AND l_suppkey = s_suppkey
          AND c_nationkey = s_nationkey AND s_nationkey = n_nationkey
          AND n_regionkey = r_regionkey AND r_name = 'ASIA'
          AND o_orderdate >= DATE '1994-01-01' AND o_orderdate < DATE '1995-01-01'
        GROUP BY n_name""");
    views.put(
        "q6",
        """
        SELECT SUM(l_extendedprice * l_discount) AS revenue
        FROM lineitem
        WHERE l_shipdate >= DATE '1994-01-01' AND l_shipdate < DATE '1995-01-01'
          AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24""");
    views.put(
        "q9",
        """
        SELECT nation, o_year, SUM(amount) AS sum_profit
        FROM (SELECT n_name AS nation, EXTRACT(YEAR FROM o_orderdate) AS o_year,
                     l_extendedprice * (1 - l_discount) - ps_supplycost * l_quantity AS amount
              FROM part, supplier, lineitem, partsupp, orders, nation
              WHERE s_suppkey = l_suppkey AND ps_suppkey = l_suppkey AND ps_partkey = l_partkey
                AND p_partkey = l_partkey AND o_orderkey = l_orderkey
                AND s_nationkey = n_nationkey AND p_name LIKE '%green%') AS profit
        GROUP BY nation, o_year""");
    views.put(
        "q10",
        """
        SELECT c_custkey, c_name, SUM(l_extendedprice * (1 - l_discount)) AS revenue, c_acctbal,
               n_name, c_address, c_phone, c_comment
        FROM customer, orders, lineitem, nation
        WHERE c_custkey = o_custkey AND l_orderkey = o_orderkey
          AND o_orderdate >= DATE '1993-10-01' AND o_orderdate < DATE '1994-01-01'
          AND l_returnflag = 'R' AND c_nationkey = n_nationkey
        GROUP BY c_custkey, c_name, c_acctbal, c_phone, n_name, c_address, c_comment""");
    views.put(
        "q12",
        """
        SELECT l_shipmode,
               SUM(CASE WHEN o_orderpriority = '1-URGENT' OR o_orderpriority = '2-HIGH'
                        THEN 1 ELSE 0 END) AS high_line_count,
               SUM(CASE WHEN o_orderpriority <> '1-URGENT' AND o_orderpriority <> '2-HIGH'
                        THEN 1 ELSE 0 END) AS low_line_count
        FROM orders, lineitem
        WHERE o_orderkey = l_orderkey AND l_shipmode IN ('MAIL', 'SHIP')
          AND l_commitdate < l_receiptdate AND l_shipdate < l_commitdate
          AND l_receiptdate >= DATE '1994-01-01' AND l_receiptdate < DATE '1995-01-01'
        GROUP BY l_shipmode""");
    views.put(
        "joined",
        """
        SELECT o_orderkey, o_custkey, o_orderdate, o_orderpriority, l_linenumber, l_partkey,
               l_quantity, l_extendedprice, l_discount
        FROM orders JOIN lineitem ON o_orderkey = l_orderkey""");
    views.put(
        "minmax",
        """
        SELECT l_suppkey, MIN(l_shipdate) AS first_ship, MAX(l_extendedprice) AS top_price,
               MIN(l_discount) AS low_discount, COUNT(*) AS lines
        FROM lineitem
        GROUP BY l_suppkey""");
    views.put(
        "distinct_keys",
        """
        SELECT DISTINCT l_suppkey, l_shipmode, l_returnflag
        FROM lineitem""");
    views.put(
        "count_distinct",
        """
        SELECT c_nationkey, o_orderpriority, COUNT(DISTINCT o_custkey) AS customers,
               COUNT(*) AS orders
        FROM customer JOIN orders ON c_custkey = o_custkey
        GROUP BY c_nationkey, o_orderpriority""");
    views.put(
        "agg_of_agg",
        """
        SELECT c_mktsegment, COUNT(*) AS customers, SUM(t.spent) AS spent, MAX(t.orders) AS most
        FROM customer
        JOIN (SELECT o_custkey, SUM(o_totalprice) AS spent, COUNT(*) AS orders
              FROM orders GROUP BY o_custkey) t ON c_custkey = t.o_custkey
        GROUP BY c_mktsegment""");
    views.put("q3_by_date", OVER_Q3.formatted("q3"));
    views.put(
        "customer_orders",
        """
        SELECT c_custkey, c_mktsegment, COUNT(o_orderkey) AS orders,
               SUM(o_totalprice) AS spent
        FROM customer LEFT JOIN orders ON c_custkey = o_custkey
        GROUP BY c_custkey, c_mktsegment""");
    views.put(
        "q4",
        """
        SELECT o_orderpriority, COUNT(*) AS order_count
        FROM orders
        WHERE o_orderdate >= DATE '1993-07-01' AND o_orderdate < DATE '1993-10-01'
          AND EXISTS (SELECT * FROM lineitem
                      WHERE l_orderkey = o_orderkey AND l_commitdate < l_receiptdate)
        GROUP BY o_orderpriority""");
    // Q1 with subtotals per return flag and a grand total: grouping sets, one aggregate (issue 19)
    views.put(
        "q1_rollup",
        """
        SELECT l_returnflag, l_linestatus, SUM(l_quantity) AS sum_qty,
               SUM(l_extendedprice * (1 - l_discount)) AS sum_disc_price,
               AVG(l_discount) AS avg_disc, COUNT(*) AS count_order,
               GROUPING(l_returnflag, l_linestatus) AS level
        FROM lineitem
        WHERE l_shipdate <= DATE '1998-09-02'
        GROUP BY ROLLUP (l_returnflag, l_linestatus)""");
    // the ten customers who spent most: ORDER BY ... LIMIT over an aggregate (issue 19)
    views.put(
        "top_customers",
        """
        SELECT c_custkey, c_name, SUM(o_totalprice) AS spent, COUNT(*) AS orders
        FROM customer JOIN orders ON c_custkey = o_custkey
        GROUP BY c_custkey, c_name
        ORDER BY spent DESC, c_custkey
        LIMIT 10""");
    // revenue per month beside the month before: LAG over the groups, ordered by their key
    views.put(
        "monthly_change",
        """
        SELECT date_trunc('month', o_orderdate) AS month, SUM(o_totalprice) AS revenue,
               LAG(SUM(o_totalprice)) OVER (ORDER BY date_trunc('month', o_orderdate)) AS previous
        FROM orders
        GROUP BY date_trunc('month', o_orderdate)""");
    return views;
  }
}
