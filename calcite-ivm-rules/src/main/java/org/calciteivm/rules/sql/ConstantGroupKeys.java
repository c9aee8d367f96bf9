package org.calciteivm.rules.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;

/**
 * Keeps constant group keys from reaching DuckDB as bare literals: DuckDB reads {@code GROUP BY 0}
 * as a column ordinal, while a view such as {@code SELECT DISTINCT k, 'x' ...} or one grouping by
 * {@code CAST(0.0 AS INTEGER)} (which Calcite folds to {@code 0}) groups by a constant. Each
 * literal an aggregate groups by is wrapped in a cast to its own type, which DuckDB evaluates as an
 * expression.
 */
public final class ConstantGroupKeys {
  private ConstantGroupKeys() {}

  /** {@code plan} with every constant group key of every aggregate wrapped in a cast. */
  public static RelNode protect(RelNode plan) {
    return BottomUp.rewrite(
        plan, rel -> rel instanceof Aggregate aggregate ? protect(aggregate) : rel);
  }

  /**
   * Puts a projection under {@code aggregate} that casts each group key whose value is a constant
   * (as the metadata of the input proves, however many projections down it was written).
   */
  private static RelNode protect(Aggregate aggregate) {
    RelNode input = aggregate.getInput();
    RexBuilder rexBuilder = aggregate.getCluster().getRexBuilder();
    Map<RexNode, RexNode> constants =
        aggregate.getCluster().getMetadataQuery().getPulledUpPredicates(input).constantMap;
    List<RexNode> fields = new ArrayList<>(rexBuilder.identityProjects(input.getRowType()));
    boolean changed = false;
    for (int key : aggregate.getGroupSet()) {
      RexNode constant = constants.get(fields.get(key));
      if (constant instanceof RexLiteral) {
        // to the column's own type: a NOT NULL literal would change the types aggregates infer
        fields.set(key, rexBuilder.makeAbstractCast(fields.get(key).getType(), constant, false));
        changed = true;
      }
    }
    if (!changed) {
      return aggregate;
    }
    RelNode casted =
        LogicalProject.create(
            input, List.of(), fields, input.getRowType().getFieldNames(), Set.of());
    return aggregate.copy(aggregate.getTraitSet(), List.of(casted));
  }
}
