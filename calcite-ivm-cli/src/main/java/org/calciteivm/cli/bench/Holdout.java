package org.calciteivm.cli.bench;

import io.trino.tpch.TpchTable;
import org.calciteivm.cli.bench.TpchSchema.Table;

/**
 * The held-out slice of the orders ({@link TpchData} says what it is for): which orders it holds,
 * and how its tables differ from the loaded ones.
 *
 * <p>An order is held out by a hash of its key, so the slice is spread over the whole key range and
 * the slice of a smaller fraction is part of that of a larger one. While generating, the staged
 * held-out orders carry the hash in {@value #HASH}; when loaded, {@value TpchData#HOLDOUT_RANK}
 * numbers them in the order of the hash, so that the first {@code n} by rank are a sample of any
 * size spread over the key range.
 */
final class Holdout {
  /**
   * The column of the staged held-out orders that {@value TpchData#HOLDOUT_RANK} is computed from.
   */
  static final String HASH = "holdout_hash";

  private Holdout() {}

  /** Whether the order {@code orderKey} is held out at {@code fraction}. */
  static boolean isHeldOut(long orderKey, double fraction) {
    return hash(orderKey) * 0x1.0p-53 < fraction;
  }

  /**
   * A pseudo-random 53-bit value of an order key, uniform in [0, 2^53): SplitMix64's finalizer,
   * chosen over DuckDB's {@code hash()} because it can never change with a DuckDB version.
   */
  static long hash(long orderKey) {
    long z = orderKey + 0x9E3779B97F4A7C15L;
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return (z ^ (z >>> 31)) >>> 11;
  }

  /** The holdout table of a split table: {@code holdout_orders}, {@code holdout_lineitem}. */
  static String tableOf(Table table) {
    return "holdout_" + table.name();
  }

  /** Whether a table's held-out rows are ranked: the orders are, their lineitems are not. */
  static boolean ranked(Table table) {
    return table.source() == TpchTable.ORDERS;
  }

  /** The column definitions of a holdout table in the stage: the table's, and the hash. */
  static String stagedColumns(Table table) {
    return TpchSchema.columnDefinitions(table.source())
        + (ranked(table) ? ", " + HASH + " BIGINT" : "");
  }

  /** The column definitions of a loaded holdout table: the table's, and the rank. */
  static String loadedColumns(Table table) {
    return TpchSchema.columnDefinitions(table.source())
        + (ranked(table) ? ", " + TpchData.HOLDOUT_RANK + " BIGINT NOT NULL" : "");
  }

  /**
   * The query that loads a holdout table from its staged copy: the rank replaces the hash, ties
   * (which a 53-bit hash makes unlikely) broken by the key so that the rank is deterministic.
   */
  static String selectStaged(Table table, String staged) {
    return (ranked(table)
            ? "SELECT * EXCLUDE ("
                + HASH
                + "), row_number() OVER (ORDER BY "
                + HASH
                + ", o_orderkey) FROM "
            : "SELECT * FROM ")
        + staged
        + " ORDER BY "
        + table.sortKey();
  }
}
