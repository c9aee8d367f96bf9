package org.calciteivm.rules;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.Contexts;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptSchema;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilderFactory;

/**
 * The relational builders calcite-ivm builds plans with. They never simplify expressions: the plans
 * run on DuckDB, whose semantics differ from Calcite's in places (integer division, casts), so an
 * expression must reach DuckDB as the user wrote it.
 */
public final class IvmRelBuilders {
  private IvmRelBuilders() {}

  /** Turns Calcite's default builder configuration into calcite-ivm's. */
  public static RelBuilder.Config configure(RelBuilder.Config config) {
    return config
        .withSimplify(false)
        .withPruneInputOfAggregate(false)
        .withDedupAggregateCalls(false);
  }

  /** The builder factory every calcite-ivm rule uses. */
  public static final RelBuilderFactory FACTORY =
      RelBuilder.proto(Contexts.of(configure(RelBuilder.Config.DEFAULT)));

  /**
   * Replaces the relation on top of {@code builder} by its rows whose {@code keys} columns equal,
   * NULL-safely, a row of the temporary table {@code table} (of type {@code tableType}, one column
   * per key, no duplicate rows): an inner join, not a semi-join, since the SQL Calcite writes for a
   * semi-join leaves outer columns unqualified. Leaves the join on the stack: the relation's
   * columns first, then the table's.
   */
  public static void joinKeysIn(
      RelBuilder builder, List<Integer> keys, String table, RelDataType tableType) {
    builder.transientScan(table, tableType);
    List<RexNode> same = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      same.add(
          builder.call(
              SqlStdOperatorTable.IS_NOT_DISTINCT_FROM,
              builder.field(2, 0, keys.get(i)),
              builder.field(2, 1, i)));
    }
    builder.join(JoinRelType.INNER, same);
  }

  /** A builder on {@code cluster}. */
  public static RelBuilder create(RelOptCluster cluster) {
    return FACTORY.create(cluster, null);
  }

  /**
   * A builder on {@code rel}'s cluster and schema, for plans that scan transient tables (for
   * example a view delta kept in a temporary table) beside {@code rel}'s own tables.
   */
  public static RelBuilder withSchemaOf(RelNode rel) {
    RelOptSchema schema =
        RelOptUtil.findAllTables(rel).stream()
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("a view reads no table"))
            .getRelOptSchema();
    return FACTORY.create(rel.getCluster(), schema);
  }
}
