package org.calciteivm.rules.delta;

import java.util.List;
import org.apache.calcite.plan.Convention;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelTraitSet;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelWriter;
import org.apache.calcite.rel.SingleRel;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.type.SqlTypeName;
import org.calciteivm.core.ZSets;
import org.calciteivm.rules.IvmRelBuilders;
import org.calciteivm.rules.aggregate.AggregateState;

/**
 * The change of its input since the last refresh, as a Z-set: the input's columns followed by a
 * {@code BIGINT NOT NULL} weight column named {@link ZSets#WEIGHT_COLUMN}. The change of an
 * aggregate view's own aggregate ({@link #ofState}) is the change of its per-group state instead;
 * an aggregate inside a plan (the {@code DISTINCT} an outer join's rule introduces) changes by rows
 * like any other relation.
 *
 * <p>It is a marker: the delta rules push it down the plan until it sits on the scans of base
 * tables, where {@link ChangeTableScanRule} replaces it with a scan of the table's delta relation.
 * Unlike Calcite's stream {@code Delta} ({@code org.apache.calcite.rel.stream.LogicalDelta}), which
 * describes an insert-only stream, every row here carries a signed multiplicity, so deletes and
 * updates are changes too; hence a name of its own, and rules named {@code Change*Rule} beside
 * {@code StreamRules}' {@code Delta*Rule}.
 */
public final class ChangeOf extends SingleRel {
  /** Whether this is the change of an aggregate's per-group state rather than of its rows. */
  private final boolean state;

  private ChangeOf(RelOptCluster cluster, RelTraitSet traits, RelNode input, boolean state) {
    super(cluster, traits, input);
    this.state = state;
  }

  /** The change of {@code input}'s rows. */
  public static ChangeOf create(RelNode input) {
    RelOptCluster cluster = input.getCluster();
    return new ChangeOf(cluster, cluster.traitSetOf(Convention.NONE), input, false);
  }

  /**
   * The change of the per-group state of {@code aggregate}, the aggregate of a view whose stored
   * rows are that state (see {@link ChangeAggregateTransposeRule}).
   */
  public static ChangeOf ofState(Aggregate aggregate) {
    RelOptCluster cluster = aggregate.getCluster();
    return new ChangeOf(cluster, cluster.traitSetOf(Convention.NONE), aggregate, true);
  }

  /** Whether this is the change of an aggregate's per-group state ({@link #ofState}). */
  public boolean ofState() {
    return state;
  }

  /** The type of the weight column. */
  public static RelDataType weightType(RelDataTypeFactory typeFactory) {
    return typeFactory.createSqlType(SqlTypeName.BIGINT);
  }

  /** The row type of the change of a relation of type {@code rowType}: its columns and a weight. */
  public static RelDataType weightedRowType(RelDataTypeFactory typeFactory, RelDataType rowType) {
    return typeFactory
        .builder()
        .addAll(rowType.getFieldList())
        .add(ZSets.WEIGHT_COLUMN, weightType(typeFactory))
        .uniquify()
        .build();
  }

  /**
   * The input's columns and a weight; for an aggregate, the change of its per-group state (see
   * {@link ChangeAggregateTransposeRule}).
   */
  @Override
  protected RelDataType deriveRowType() {
    if (state && getInput().stripped() instanceof Aggregate aggregate) {
      return AggregateState.of(aggregate)
          .deltaStateAggregate(
              IvmRelBuilders.create(getCluster()), ChangeOf.create(aggregate.getInput()))
          .getRowType();
    }
    return weightedRowType(getCluster().getTypeFactory(), getInput().getRowType());
  }

  @Override
  public RelNode copy(RelTraitSet traitSet, List<RelNode> inputs) {
    return new ChangeOf(getCluster(), traitSet, sole(inputs), state);
  }

  @Override
  public RelWriter explainTerms(RelWriter pw) {
    return super.explainTerms(pw).itemIf("state", true, state);
  }
}
