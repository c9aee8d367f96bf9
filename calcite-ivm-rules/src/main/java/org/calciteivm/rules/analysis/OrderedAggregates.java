package org.calciteivm.rules.analysis;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;

/**
 * Which calls of aggregates whose value depends on the order of their rows ({@code string_agg(s,
 * ',' ORDER BY s)}) have a value that the bag of their rows decides: a recompute of a group gives
 * the value the query gives only if rows that tie in the call's order cannot change it.
 */
final class OrderedAggregates {
  private OrderedAggregates() {}

  /**
   * Whether the {@code ORDER BY} of the order-dependent aggregate {@code call} over {@code input}
   * decides its value: rows that tie in it have the same arguments (each argument is ordered by, or
   * a deterministic expression of columns ordered by, or a constant such as {@code string_agg}'s
   * separator), or nothing ties (it orders by columns no two rows agree on, {@link
   * RowKeys#distinguishing}).
   */
  static boolean orderDecides(AggregateCall call, RelNode input) {
    Set<Integer> ordered = new HashSet<>();
    call.collation.getFieldCollations().forEach(key -> ordered.add(key.getFieldIndex()));
    boolean argumentsOrdered = true;
    for (int argument : call.getArgList()) {
      boolean decided = ordered.contains(argument);
      if (!decided && input instanceof Project project) {
        // what is left of the argument with each ordered expression taken as a constant
        List<RexNode> orderedExpressions =
            ordered.stream().map(key -> project.getProjects().get(key)).toList();
        RexBuilder rexBuilder = project.getCluster().getRexBuilder();
        RexNode rest =
            project
                .getProjects()
                .get(argument)
                .accept(
                    new RexShuttle() {
                      @Override
                      public RexNode visitCall(RexCall expression) {
                        return orderedExpressions.contains(expression)
                            ? rexBuilder.makeNullLiteral(expression.getType())
                            : super.visitCall(expression);
                      }

                      @Override
                      public RexNode visitInputRef(RexInputRef ref) {
                        return orderedExpressions.contains(ref)
                            ? rexBuilder.makeNullLiteral(ref.getType())
                            : ref;
                      }
                    });
        decided =
            RexUtil.isDeterministic(project.getProjects().get(argument))
                && RelOptUtil.InputFinder.bits(rest).isEmpty();
      }
      argumentsOrdered &= decided;
    }
    List<Integer> key = RowKeys.distinguishing(input);
    return argumentsOrdered || !key.isEmpty() && ordered.containsAll(key);
  }

  /**
   * Whether the {@code ORDER BY} of {@code call} over {@code input} orders by columns, not computed
   * expressions: Calcite writes an expression there as a position in the select list, which inside
   * an aggregate call DuckDB takes as a constant.
   */
  static boolean ordersByColumns(AggregateCall call, RelNode input) {
    return !(input instanceof Project project)
        || call.collation.getFieldCollations().stream()
            .allMatch(key -> project.getProjects().get(key.getFieldIndex()) instanceof RexInputRef);
  }
}
