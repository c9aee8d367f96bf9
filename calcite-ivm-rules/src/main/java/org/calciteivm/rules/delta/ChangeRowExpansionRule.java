package org.calciteivm.rules.delta;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.CorrelationId;
import org.apache.calcite.rel.core.TableFunctionScan;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.rules.TransformationRule;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexCorrelVariable;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.core.ZSets;
import org.calciteivm.rules.IvmRelBuilders;
import org.immutables.value.Value;

/**
 * Pushes a {@link ChangeOf} through a row expansion: a {@link Correlate} whose right side reads no
 * table, only the left row ({@code FROM t, unnest(t.xs) AS u(x)}, a {@code LATERAL} subquery over
 * the row's own values), inner or left.
 *
 * <p>Identity: {@code Δ(R ⋉_f) = (ΔR) ⋉_f}, with {@code R ⋉_f} the rows {@code f(r)} each row
 * {@code r} of {@code R} expands to. The expansion of a row depends on that row alone, so it is a
 * linear map of bags, like a projection that may give several rows or none: a change row of weight
 * {@code w} expands to the rows of {@code f(r)}, each with weight {@code w}. The expressions must
 * be deterministic ({@link #isRowExpansion}); the weight, appended to the left row, moves to the
 * end of the output row.
 */
@Value.Enclosing
public class ChangeRowExpansionRule extends RelRule<ChangeRowExpansionRule.Config>
    implements TransformationRule {

  /** Creates the rule from its configuration. */
  protected ChangeRowExpansionRule(Config config) {
    super(config);
  }

  /**
   * Whether {@code correlate} expands each left row on its own: inner or left, its right side reads
   * no table and computes only deterministic expressions.
   */
  public static boolean isRowExpansion(Correlate correlate) {
    if (!correlate.getJoinType().projectsRight()
        || correlate.getJoinType().generatesNullsOnLeft()) {
      return false;
    }
    boolean[] expands = {true};
    correlate
        .getRight()
        .accept(
            new RelHomogeneousShuttle() {
              @Override
              public RelNode visit(RelNode vertex) {
                // inside a planner, inputs are the planner's vertices: their current node
                RelNode other = vertex.stripped();
                if (other instanceof TableScan || other instanceof TableFunctionScan) {
                  expands[0] = false;
                }
                other.accept(
                    new RexShuttle() {
                      @Override
                      public RexNode visitCall(RexCall call) {
                        expands[0] &= RexUtil.isDeterministic(call);
                        return call;
                      }
                    });
                return super.visit(other);
              }
            });
    return expands[0];
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Correlate correlate = call.rel(1);
    if (!isRowExpansion(correlate)) {
      return;
    }
    RelNode left = ChangeOf.create(correlate.getLeft());
    CorrelationId id = correlate.getCluster().createCorrel();
    RelNode right = reading(correlate.getRight(), correlate.getCorrelationId(), left, id);
    RelNode expanded =
        correlate.copy(
            correlate.getTraitSet(),
            left,
            right,
            id,
            correlate.getRequiredColumns(),
            correlate.getJoinType());
    int leftColumns = correlate.getLeft().getRowType().getFieldCount();
    RelBuilder builder = call.builder().push(expanded);
    List<RexNode> columns = new ArrayList<>();
    List<String> names = new ArrayList<>(correlate.getRowType().getFieldNames());
    for (int i = 0; i < correlate.getRowType().getFieldCount(); i++) {
      // the weight sits after the left row's columns
      columns.add(builder.field(i < leftColumns ? i : i + 1));
    }
    columns.add(builder.field(leftColumns));
    names.add(ZSets.WEIGHT_COLUMN);
    call.transformTo(builder.project(columns, names, true).build());
  }

  /**
   * {@code right} reading the row of {@code left} as correlation {@code id} where it read {@code
   * old}: the same fields at the same positions, the weight after them.
   */
  private static RelNode reading(RelNode right, CorrelationId old, RelNode left, CorrelationId id) {
    RexBuilder rexBuilder = right.getCluster().getRexBuilder();
    RexShuttle renamed =
        new RexShuttle() {
          @Override
          public RexNode visitCorrelVariable(RexCorrelVariable variable) {
            return variable.id.equals(old)
                ? rexBuilder.makeCorrel(left.getRowType(), id)
                : variable;
          }
        };
    return right.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode vertex) {
            return super.visit(vertex.stripped()).accept(renamed);
          }
        });
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches a delta directly above any correlate. */
    Config DEFAULT =
        ImmutableChangeRowExpansionRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(
                b0 ->
                    b0.operand(ChangeOf.class)
                        .oneInput(b1 -> b1.operand(Correlate.class).anyInputs()));

    @Override
    default ChangeRowExpansionRule toRule() {
      return new ChangeRowExpansionRule(this);
    }
  }
}
