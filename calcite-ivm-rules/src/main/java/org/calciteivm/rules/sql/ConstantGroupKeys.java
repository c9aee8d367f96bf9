package org.calciteivm.rules.sql;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Project;
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

  /** {@code plan} with every literal group key of every aggregate wrapped in a cast. */
  public static RelNode protect(RelNode plan) {
    return plan.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode other) {
            RelNode visited = super.visit(other);
            if (visited instanceof Aggregate aggregate
                && aggregate.getInput() instanceof Project project) {
              return protect(aggregate, project);
            }
            return visited;
          }
        });
  }

  private static RelNode protect(Aggregate aggregate, Project project) {
    List<RexNode> expressions = new ArrayList<>(project.getProjects());
    boolean changed = false;
    for (int key : aggregate.getGroupSet()) {
      RexNode expression = expressions.get(key);
      if (expression instanceof RexLiteral) {
        expressions.set(
            key,
            project
                .getCluster()
                .getRexBuilder()
                .makeAbstractCast(expression.getType(), expression, false));
        changed = true;
      }
    }
    if (!changed) {
      return aggregate;
    }
    RelNode input =
        project.copy(project.getTraitSet(), project.getInput(), expressions, project.getRowType());
    return aggregate.copy(aggregate.getTraitSet(), List.of(input));
  }
}
