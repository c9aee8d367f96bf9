package org.calciteivm.rules.frontend;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.plan.hep.HepProgramBuilder;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalFilter;
import org.apache.calcite.rel.rules.SubQueryRemoveRule;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.sql.SqlKind;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.rules.IvmRelBuilders;

/**
 * {@code EXISTS}, {@code NOT EXISTS} and {@code IN} subqueries of a {@code WHERE} clause become
 * joins, before the plan is decorrelated: Calcite's {@link SubQueryRemoveRule} writes {@code EXISTS
 * (q)} as an inner join with {@code DISTINCT} rows of {@code q} (a semi-join), {@code NOT EXISTS
 * (q)} as a left join with them and a filter on the padded side (an anti-join), and {@code x IN
 * (q)} as an inner join with the distinct values of {@code q}; correlated subqueries are then
 * decorrelated into joins on the correlation. The delta rules maintain those joins and the {@code
 * DISTINCT} below them without keeping any state ({@code ChangeDistinctRule}, {@code
 * ChangeOuterJoinRule}).
 *
 * <p>Other subqueries stay as they are, so that the analysis names them: scalar subqueries, {@code
 * ANY}/{@code ALL}, and {@code NOT IN}, which this refuses first, because its value is unknown, not
 * true, where the subquery yields a NULL, and Calcite writes that as aggregates below a join.
 */
final class SubqueryJoins {
  private SubqueryJoins() {}

  /**
   * {@code rel} with the {@code EXISTS} and {@code IN} subqueries of its filters made joins.
   *
   * @throws UnsupportedViewException for a {@code NOT IN} subquery
   */
  static RelNode of(String viewName, RelNode rel) throws UnsupportedViewException {
    boolean[] notIn = {false};
    rel.accept(
        new RelShuttleImpl() {
          @Override
          public RelNode visit(LogicalFilter filter) {
            notIn[0] |= notIn(filter.getCondition());
            return super.visit(filter);
          }
        });
    if (notIn[0]) {
      throw UnsupportedViewException.notYet(
          viewName,
          "NOT IN (subquery)",
          "write NOT EXISTS (SELECT ... WHERE inner = outer), which differs only where the"
              + " subquery yields NULL");
    }
    SubQueryRemoveRule.Config filters =
        SubQueryRemoveRule.Config.FILTER
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(
                b ->
                    b.operand(Filter.class)
                        .predicate(f -> onlySemiJoins(f.getCondition()))
                        .anyInputs())
            .as(SubQueryRemoveRule.Config.class);
    HepPlanner planner =
        new HepPlanner(new HepProgramBuilder().addRuleInstance(filters.toRule()).build());
    planner.setRoot(rel);
    RelNode joined = planner.findBestExp();
    if (hasCorrelation(joined) && hasConstantDistinct(joined)) {
      // Calcite's decorrelator drops a constant group key (the TRUE of an uncorrelated EXISTS)
      // and with it the subquery: its rows become one constant row, a wrong result
      throw UnsupportedViewException.notYet(
          viewName,
          "an uncorrelated EXISTS or NOT EXISTS beside a correlated subquery",
          "write NOT EXISTS (q) as (SELECT COUNT(*) FROM ...) = 0, or EXISTS (q) as ... > 0");
    }
    return joined;
  }

  /** Whether {@code rel} has a correlated join left, which the decorrelator will rewrite. */
  private static boolean hasCorrelation(RelNode rel) {
    return rel instanceof Correlate
        || rel.getInputs().stream().anyMatch(SubqueryJoins::hasCorrelation);
  }

  /**
   * Whether {@code rel} has a DISTINCT whose keys are all constants outside a correlated subquery
   * (inside one, the correlation becomes a key too).
   */
  private static boolean hasConstantDistinct(RelNode rel) {
    if (rel instanceof Correlate correlate) {
      return hasConstantDistinct(correlate.getLeft());
    }
    if (rel instanceof Aggregate aggregate
        && aggregate.getAggCallList().isEmpty()
        && aggregate.getGroupCount() > 0
        && aggregate.getInput() instanceof Project project
        && aggregate.getGroupSet().asList().stream()
            .allMatch(key -> project.getProjects().get(key) instanceof RexLiteral)) {
      return true;
    }
    return rel.getInputs().stream().anyMatch(SubqueryJoins::hasConstantDistinct);
  }

  /** Whether {@code condition} has subqueries, and all are {@code EXISTS} or {@code IN}. */
  private static boolean onlySemiJoins(RexNode condition) {
    List<RexSubQuery> found = new ArrayList<>();
    condition.accept(
        new RexShuttle() {
          @Override
          public RexNode visitSubQuery(RexSubQuery subQuery) {
            found.add(subQuery);
            return subQuery;
          }
        });
    return !found.isEmpty()
        && found.stream().allMatch(q -> q.getKind() == SqlKind.EXISTS || q.getKind() == SqlKind.IN);
  }

  /** Whether {@code condition} negates an {@code IN} subquery. */
  private static boolean notIn(RexNode condition) {
    if (!(condition instanceof RexCall call)) {
      return false;
    }
    if (call.getKind() == SqlKind.NOT
        && call.getOperands().get(0) instanceof RexSubQuery q
        && q.getKind() == SqlKind.IN) {
      return true;
    }
    return call.getOperands().stream().anyMatch(SubqueryJoins::notIn);
  }
}
