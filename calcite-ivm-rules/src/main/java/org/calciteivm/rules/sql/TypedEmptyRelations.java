package org.calciteivm.rules.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rel.logical.LogicalValues;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;

/**
 * Writes empty relations with typed columns. An empty {@code VALUES} (the delta of a table without
 * change, or a filter that is always false) would reach DuckDB as a row of bare NULLs, whose type
 * DuckDB cannot resolve in expressions such as {@code EXTRACT(YEAR FROM NULL)}; instead it becomes
 * {@code SELECT CAST(NULL AS t1), ... WHERE FALSE}.
 */
public final class TypedEmptyRelations {
  private TypedEmptyRelations() {}

  /** {@code plan} with every empty {@code VALUES} replaced by typed NULLs under a false filter. */
  public static RelNode protect(RelNode plan) {
    return BottomUp.rewrite(
        plan,
        rel -> rel instanceof Values values && values.getTuples().isEmpty() ? typed(values) : rel);
  }

  private static RelNode typed(Values empty) {
    RexBuilder rexBuilder = empty.getCluster().getRexBuilder();
    List<RexNode> nulls = new ArrayList<>();
    for (RelDataTypeField field : empty.getRowType().getFieldList()) {
      nulls.add(
          rexBuilder.makeAbstractCast(
              field.getType(), rexBuilder.makeNullLiteral(field.getType()), false));
    }
    RelNode row =
        LogicalProject.create(
            LogicalValues.createOneRow(empty.getCluster()),
            List.of(),
            nulls,
            empty.getRowType().getFieldNames(),
            Set.of());
    return LogicalFilter.create(row, rexBuilder.makeLiteral(false));
  }
}
