package org.calciteivm.cli.bench;

import java.util.List;
import java.util.Locale;

/**
 * The kinds of change the benchmark applies to orders and lineitem, TPC-H refresh functions and
 * updates, each with the statements that set it up, apply it (measured) and undo it, so that every
 * cycle starts from the same data.
 *
 * <p>A change of size {@code n} touches {@code n} orders and all their lineitems, except {@link
 * #UPDATE_ONE}, which changes one lineitem whatever the size. The statements read helper tables the
 * benchmark creates once ({@link #SETUP}): {@code bench_slice} ranks the loaded orders in a
 * pseudo-random order spread over the key range, {@code bench_key_offset} holds a key above every
 * order key, {@code bench_update_one} the order whose line 1 {@link #UPDATE_ONE} changes; {@code
 * holdout_orders} (ranked by {@code holdout_rank}) and {@code holdout_lineitem} are the orders
 * generated but not loaded ({@link TpchData}).
 */
public enum ChangeKind {
  /** RF1-like: {@code n} held-out orders with their lineitems, keys spread over the key range. */
  INSERT(
      List.of(),
      List.of(
          "INSERT INTO orders SELECT * EXCLUDE (holdout_rank) FROM holdout_orders"
              + " WHERE holdout_rank <= :n",
          "INSERT INTO lineitem SELECT * FROM holdout_lineitem WHERE l_orderkey IN"
              + " (SELECT o_orderkey FROM holdout_orders WHERE holdout_rank <= :n)"),
      List.of(
          "DELETE FROM lineitem WHERE l_orderkey IN"
              + " (SELECT o_orderkey FROM holdout_orders WHERE holdout_rank <= :n)",
          "DELETE FROM orders WHERE o_orderkey IN"
              + " (SELECT o_orderkey FROM holdout_orders WHERE holdout_rank <= :n)")),
  /**
   * RF1 with new keys: the same orders, keys shifted above every existing key, appended in order.
   */
  APPEND(
      List.of(),
      List.of(
          "INSERT INTO orders SELECT * EXCLUDE (holdout_rank)"
              + " REPLACE (o_orderkey + (SELECT k FROM bench_key_offset) AS o_orderkey)"
              + " FROM holdout_orders WHERE holdout_rank <= :n ORDER BY o_orderkey",
          "INSERT INTO lineitem SELECT * REPLACE"
              + " (l_orderkey + (SELECT k FROM bench_key_offset) AS l_orderkey)"
              + " FROM holdout_lineitem WHERE l_orderkey IN"
              + " (SELECT o_orderkey FROM holdout_orders WHERE holdout_rank <= :n)"
              + " ORDER BY l_orderkey, l_linenumber"),
      List.of(
          "DELETE FROM lineitem WHERE l_orderkey > (SELECT k FROM bench_key_offset)",
          "DELETE FROM orders WHERE o_orderkey > (SELECT k FROM bench_key_offset)")),
  /** RF2-like: {@code n} loaded orders and their lineitems deleted. */
  DELETE(
      List.of(
          "CREATE OR REPLACE TABLE bench_deleted_orders AS SELECT * FROM orders WHERE o_orderkey IN"
              + " (SELECT o_orderkey FROM bench_slice WHERE slice_rank <= :n)",
          "CREATE OR REPLACE TABLE bench_deleted_lineitem AS SELECT * FROM lineitem"
              + " WHERE l_orderkey IN (SELECT o_orderkey FROM bench_slice WHERE slice_rank <= :n)"),
      List.of(
          "DELETE FROM lineitem WHERE l_orderkey IN"
              + " (SELECT o_orderkey FROM bench_slice WHERE slice_rank <= :n)",
          "DELETE FROM orders WHERE o_orderkey IN"
              + " (SELECT o_orderkey FROM bench_slice WHERE slice_rank <= :n)"),
      List.of(
          "INSERT INTO orders SELECT * FROM bench_deleted_orders",
          "INSERT INTO lineitem SELECT * FROM bench_deleted_lineitem")),
  /** The measures (quantity, discount) of the lineitems of {@code n} orders changed. */
  UPDATE(
      List.of(),
      List.of(
          "UPDATE lineitem SET l_quantity = l_quantity + 1, l_discount = l_discount + 0.01"
              + " WHERE l_orderkey IN (SELECT o_orderkey FROM bench_slice WHERE slice_rank <= :n)"),
      List.of(
          "UPDATE lineitem SET l_quantity = l_quantity - 1, l_discount = l_discount - 0.01"
              + " WHERE l_orderkey IN (SELECT o_orderkey FROM bench_slice WHERE slice_rank <= :n)")),
  /** A grouping column (the return flag, A and R swapped) of the lineitems of {@code n} orders. */
  UPDATE_KEY(List.of(), List.of(ChangeKind.SWAP_RETURN_FLAG), List.of(ChangeKind.SWAP_RETURN_FLAG)),
  /**
   * The measures (quantity, discount) of exactly one lineitem: line 1 of the loaded order with the
   * smallest key ({@code bench_update_one}), the same row in every cycle. It ignores the size
   * {@code n}: at every size it is the same single-row UPDATE, the cost of a point write.
   */
  UPDATE_ONE(
      List.of(),
      List.of(
          "UPDATE lineitem SET l_quantity = l_quantity + 1, l_discount = l_discount + 0.01"
              + ChangeKind.ONE_ROW),
      List.of(
          "UPDATE lineitem SET l_quantity = l_quantity - 1, l_discount = l_discount - 0.01"
              + ChangeKind.ONE_ROW));

  /** The row {@link #UPDATE_ONE} changes. */
  private static final String ONE_ROW =
      " WHERE l_orderkey = (SELECT k FROM bench_update_one) AND l_linenumber = 1";

  private static final String SWAP_RETURN_FLAG =
      "UPDATE lineitem SET l_returnflag = CASE l_returnflag WHEN 'A' THEN 'R' WHEN 'R' THEN 'A'"
          + " ELSE l_returnflag END"
          + " WHERE l_orderkey IN (SELECT o_orderkey FROM bench_slice WHERE slice_rank <= :n)";

  /** Creates the helper tables every kind reads; run once on each copy of the data. */
  public static final List<String> SETUP =
      List.of(
          "CREATE OR REPLACE TABLE bench_slice AS SELECT o_orderkey,"
              + " row_number() OVER (ORDER BY hash(o_orderkey), o_orderkey) AS slice_rank"
              + " FROM orders",
          "CREATE OR REPLACE TABLE bench_key_offset AS SELECT"
              + " CAST(greatest((SELECT max(o_orderkey) FROM orders),"
              + " (SELECT max(o_orderkey) FROM holdout_orders)) AS BIGINT) AS k",
          // every order has a line 1
          "CREATE OR REPLACE TABLE bench_update_one AS SELECT min(o_orderkey) AS k FROM bench_slice");

  private final List<String> prepare;
  private final List<String> apply;
  private final List<String> undo;

  ChangeKind(List<String> prepare, List<String> apply, List<String> undo) {
    this.prepare = prepare;
    this.apply = apply;
    this.undo = undo;
  }

  /** The name used on the command line and in reports: {@code insert}, {@code update_key}. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The kind called {@code label}. */
  public static ChangeKind ofLabel(String label) {
    return valueOf(label.trim().toUpperCase(Locale.ROOT));
  }

  /** Statements that save what the undo needs (not measured, not captured: new tables only). */
  public List<String> prepare(long n) {
    return bind(prepare, n);
  }

  /** The change itself, on {@code n} orders: the statements that are timed. */
  public List<String> apply(long n) {
    return bind(apply, n);
  }

  /** Statements that restore the data the change altered. */
  public List<String> undo(long n) {
    return bind(undo, n);
  }

  private static List<String> bind(List<String> statements, long n) {
    return statements.stream().map(s -> s.replace(":n", Long.toString(n))).toList();
  }
}
