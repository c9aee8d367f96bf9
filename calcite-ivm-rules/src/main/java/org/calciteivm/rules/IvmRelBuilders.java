package org.calciteivm.rules;

import org.apache.calcite.plan.Contexts;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptSchema;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
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
