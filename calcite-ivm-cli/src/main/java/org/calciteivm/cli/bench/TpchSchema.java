package org.calciteivm.cli.bench;

import io.trino.tpch.GenerateUtils;
import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchTable;
import java.util.List;
import java.util.StringJoiner;

/**
 * The schema of the generated TPC-H database: the eight tables in the order of their foreign keys,
 * each with the key its rows are stored in and its constraints, and the SQL types of the
 * generator's columns ({@link TpchData} describes the result).
 */
final class TpchSchema {
  /**
   * A TPC-H table: its generator, the key its rows are stored in and its constraints.
   *
   * @param split whether its rows are split between it and its holdout table ({@link Holdout})
   */
  record Table(TpchTable<?> source, String sortKey, String constraints, boolean split) {
    String name() {
      return source.getTableName();
    }

    /**
     * The number of units a generation of this table reports progress in: its row count, for the
     * split tables the number of orders (lineitem's row count is not known before generating it).
     */
    long progressTotal(double scaleFactor) {
      return switch (name()) {
        case "region" -> 5;
        case "nation" -> 25;
        case "part" -> rows(200_000, scaleFactor);
        case "supplier" -> rows(10_000, scaleFactor);
        case "partsupp" -> 4 * rows(200_000, scaleFactor); // four suppliers per part
        case "customer" -> rows(150_000, scaleFactor);
        case "orders", "lineitem" -> rows(1_500_000, scaleFactor);
        default -> throw new IllegalArgumentException(name());
      };
    }

    private static long rows(int scaleBase, double scaleFactor) {
      return GenerateUtils.calculateRowCount(scaleBase, scaleFactor, 1, 1);
    }
  }

  /** The tables in the order of their foreign keys, referenced tables first. */
  static final List<Table> TABLES =
      List.of(
          new Table(TpchTable.REGION, "r_regionkey", "PRIMARY KEY (r_regionkey)", false),
          new Table(
              TpchTable.NATION,
              "n_nationkey",
              "PRIMARY KEY (n_nationkey),"
                  + " FOREIGN KEY (n_regionkey) REFERENCES region (r_regionkey)",
              false),
          new Table(TpchTable.PART, "p_partkey", "PRIMARY KEY (p_partkey)", false),
          new Table(
              TpchTable.SUPPLIER,
              "s_suppkey",
              "PRIMARY KEY (s_suppkey),"
                  + " FOREIGN KEY (s_nationkey) REFERENCES nation (n_nationkey)",
              false),
          new Table(
              TpchTable.PART_SUPPLIER,
              "ps_partkey, ps_suppkey",
              "PRIMARY KEY (ps_partkey, ps_suppkey),"
                  + " FOREIGN KEY (ps_partkey) REFERENCES part (p_partkey),"
                  + " FOREIGN KEY (ps_suppkey) REFERENCES supplier (s_suppkey)",
              false),
          new Table(
              TpchTable.CUSTOMER,
              "c_custkey",
              "PRIMARY KEY (c_custkey),"
                  + " FOREIGN KEY (c_nationkey) REFERENCES nation (n_nationkey)",
              false),
          new Table(
              TpchTable.ORDERS,
              "o_orderkey",
              "PRIMARY KEY (o_orderkey),"
                  + " FOREIGN KEY (o_custkey) REFERENCES customer (c_custkey)",
              true),
          new Table(
              TpchTable.LINE_ITEM,
              "l_orderkey, l_linenumber",
              "PRIMARY KEY (l_orderkey, l_linenumber),"
                  + " FOREIGN KEY (l_orderkey) REFERENCES orders (o_orderkey),"
                  + " FOREIGN KEY (l_partkey, l_suppkey)"
                  + " REFERENCES partsupp (ps_partkey, ps_suppkey)",
              true));

  private TpchSchema() {}

  /**
   * The column definitions of a generated table, in the generator's order; every column is {@code
   * NOT NULL}, as in TPC-H's own schema, which also tells calcite-ivm that no value is null.
   */
  static String columnDefinitions(TpchTable<?> table) {
    StringJoiner columns = new StringJoiner(", ");
    for (TpchColumn<?> column : table.getColumns()) {
      String type =
          switch (column.getType().getBase()) {
            case IDENTIFIER -> "BIGINT";
            case INTEGER -> "INTEGER";
            case DATE -> "DATE";
            // Every DOUBLE of TPC-H is money, a quantity or a rate with two decimals.
            case DOUBLE -> "DECIMAL(15,2)";
            case VARCHAR -> "VARCHAR";
          };
      columns.add(column.getColumnName() + " " + type + " NOT NULL");
    }
    return columns.toString();
  }
}
