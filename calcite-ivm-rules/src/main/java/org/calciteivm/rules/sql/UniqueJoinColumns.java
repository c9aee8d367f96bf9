package org.calciteivm.rules.sql;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.logical.LogicalProject;

/**
 * Gives the columns of every join distinct names in the SQL. Calcite names a join's columns
 * uniquely ({@code k}, {@code k0}) and refers to them so, but writes a join it does not need to
 * project as {@code SELECT *}, which in DuckDB keeps both inputs' names ({@code k}, {@code k}): a
 * query over it then names a column DuckDB does not have. Renaming the right input's columns to the
 * join's own names makes both agree.
 */
public final class UniqueJoinColumns {
  private UniqueJoinColumns() {}

  /** {@code plan} with the right input of each join renamed to the join's column names. */
  public static RelNode protect(RelNode plan) {
    return BottomUp.rewrite(plan, rel -> rel instanceof Join join ? protect(join) : rel);
  }

  private static RelNode protect(Join join) {
    RelNode right = join.getRight();
    int leftColumns = join.getLeft().getRowType().getFieldCount();
    List<String> names = join.getRowType().getFieldNames();
    List<String> rightNames = names.subList(leftColumns, names.size());
    if (!join.getJoinType().projectsRight()
        || rightNames.equals(right.getRowType().getFieldNames())) {
      return join;
    }
    RelNode renamed =
        LogicalProject.create(
            right,
            List.of(),
            join.getCluster().getRexBuilder().identityProjects(right.getRowType()),
            new ArrayList<>(rightNames),
            Set.of());
    return join.copy(
        join.getTraitSet(),
        join.getCondition(),
        join.getLeft(),
        renamed,
        join.getJoinType(),
        join.isSemiJoinDone());
  }
}
