package org.calciteivm.rules.analysis;

import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.util.ImmutableBitSet;
import org.calciteivm.core.UnsupportedViewException;

/**
 * Which calls of aggregates whose value depends on the order of their rows ({@code string_agg(s,
 * ',' ORDER BY s)}) can be kept by recomputing their groups: a recompute gives the value the query
 * gives only if rows that tie in the call's order cannot change it.
 */
final class OrderedAggregates {
  private OrderedAggregates() {}

  /**
   * Refuses the order-dependent aggregate {@code call}, called {@code name}, over {@code input} of
   * view {@code viewName} unless:
   *
   * <ul>
   *   <li>its {@code ORDER BY} names columns, not computed expressions: Calcite writes an
   *       expression there as a position in the select list, which inside an aggregate call DuckDB
   *       takes as a constant;
   *   <li>and rows that tie in that order have the same arguments (each argument is a deterministic
   *       expression of the ordered columns, or a constant such as {@code string_agg}'s separator),
   *       or nothing ties (the order holds columns no two rows agree on, {@link
   *       RowKeys#distinguishing}).
   * </ul>
   */
  static void check(String viewName, String name, AggregateCall call, RelNode input)
      throws UnsupportedViewException {
    List<Integer> ordered =
        call.collation.getFieldCollations().stream().map(key -> key.getFieldIndex()).toList();
    // the columns below the projection that the ordered expressions are
    ImmutableBitSet.Builder orderedColumns = ImmutableBitSet.builder();
    for (int key : ordered) {
      RexNode expression = input instanceof Project project ? project.getProjects().get(key) : null;
      if (expression != null && !(expression instanceof RexInputRef)) {
        throw UnsupportedViewException.notYet(
            viewName,
            "aggregate " + name + "(... ORDER BY <expression>)",
            "order by columns; compute the expression in a subquery in FROM");
      }
      orderedColumns.set(expression == null ? key : ((RexInputRef) expression).getIndex());
    }
    ImmutableBitSet columns = orderedColumns.build();
    boolean argumentsOrdered = true;
    for (int argument : call.getArgList()) {
      RexNode expression =
          input instanceof Project project
              ? project.getProjects().get(argument)
              : RexInputRef.of(argument, input.getRowType());
      argumentsOrdered &=
          RexUtil.isDeterministic(expression)
              && columns.contains(RelOptUtil.InputFinder.bits(expression));
    }
    List<Integer> key = RowKeys.distinguishing(input);
    if (!argumentsOrdered && (key.isEmpty() || !ordered.containsAll(key))) {
      throw UnsupportedViewException.notYet(
          viewName,
          "aggregate " + name + "(... ORDER BY ...) whose ORDER BY can tie",
          "its value depends on how DuckDB orders rows that tie; order by the aggregated value"
              + " too, or by columns that identify the rows");
    }
  }
}
