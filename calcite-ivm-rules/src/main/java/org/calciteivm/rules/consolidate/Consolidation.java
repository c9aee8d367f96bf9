package org.calciteivm.rules.consolidate;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.calciteivm.core.ZSets;
import org.calciteivm.rules.delta.ChangeOf;

/**
 * Consolidation of a Z-set: one row per distinct tuple with the sum of its weights, tuples whose
 * weights cancel dropped.
 *
 * <p>Identity: a Z-set and its consolidation denote the same bag change, since a weight is a count
 * of copies; consolidating first means a tuple inserted and deleted in one cycle costs nothing
 * downstream, and an upsert never sees a key twice. Grouping compares NULLs as equal, as a bag
 * does.
 */
public final class Consolidation {
  private Consolidation() {}

  /**
   * Returns {@code Σ_w(zset)}: {@code zset}'s tuple columns grouped, the weight summed (as a {@code
   * BIGINT}) and rows with a zero sum removed. {@code zset}'s last column is its weight.
   */
  public static RelNode consolidate(RelBuilder builder, RelNode zset) {
    int tupleColumns = zset.getRowType().getFieldCount() - 1;
    ImmutableBitSet tuple = ImmutableBitSet.range(tupleColumns);
    builder.push(zset);
    builder.aggregate(
        builder.groupKey(tuple), builder.sum(builder.field(tupleColumns)).as(ZSets.WEIGHT_COLUMN));
    builder.filter(
        builder.call(
            SqlStdOperatorTable.NOT_EQUALS, builder.field(tupleColumns), builder.literal(0)));
    // DuckDB sums BIGINT into HUGEINT; the cast keeps the weight a BIGINT downstream
    RelDataType weightType = ChangeOf.weightType(builder.getTypeFactory());
    List<RexNode> columns = new ArrayList<>(builder.fields(tuple));
    columns.add(
        builder.getRexBuilder().makeAbstractCast(weightType, builder.field(tupleColumns), false));
    builder.project(columns, zset.getRowType().getFieldNames(), true);
    return builder.build();
  }
}
