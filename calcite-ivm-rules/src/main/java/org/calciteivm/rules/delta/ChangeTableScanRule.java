package org.calciteivm.rules.delta;

import java.util.List;
import java.util.Optional;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.logical.LogicalTableScan;
import org.apache.calcite.rel.rules.TransformationRule;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.core.ZSets;
import org.calciteivm.rules.IvmRelBuilders;
import org.immutables.value.Value;

/**
 * Replaces the delta of a table scan by a scan of the table's delta relation.
 *
 * <p>Identity: {@code Δ(scan T) = scan ΔT} where {@code ΔT} is the change of {@code T}, a Z-set
 * that need not be consolidated (named by the {@link DeltaContext}'s resolver, by default the
 * {@link ChangingTable}), and {@code Δ(scan T) = ∅} for a table that is not changing or whose
 * change is empty in this refresh ({@link DeltaContext}). This is where the delta plan reaches the
 * data: every other delta rule only moves the marker towards the scans.
 */
@Value.Enclosing
public class ChangeTableScanRule extends RelRule<ChangeTableScanRule.Config>
    implements TransformationRule {

  /** Creates the rule from its configuration. */
  protected ChangeTableScanRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    ChangeOf delta = call.rel(0);
    TableScan scan = call.rel(1);
    RelBuilder builder = call.builder();
    DeltaContext context = DeltaContext.of(call);
    Optional<List<String>> deltaName = context.deltaRelation().apply(scan.getTable());
    if (deltaName.isEmpty() || !context.hasDelta().test(scan.getTable())) {
      call.transformTo(builder.values(delta.getRowType()).build());
      return;
    }
    RelOptTable deltaTable = scan.getTable().getRelOptSchema().getTableForMember(deltaName.get());
    if (deltaTable == null) {
      throw new IllegalArgumentException(
          "the delta relation "
              + deltaName.get()
              + " of table "
              + scan.getTable().getQualifiedName()
              + " is not in the schema the view is planned in");
    }
    RelDataType expected = delta.getRowType();
    if (!RelOptUtil.areRowTypesEqual(expected, deltaTable.getRowType(), false)) {
      throw new IllegalArgumentException(
          "the delta relation "
              + deltaName.get()
              + " of table "
              + scan.getTable().getQualifiedName()
              + " has the row type "
              + deltaTable.getRowType().getFullTypeString()
              + " but must have "
              + expected.getFullTypeString()
              + ": the table's columns with their types and nullability, then "
              + ZSets.WEIGHT_COLUMN
              + " "
              + expected
                  .getFieldList()
                  .get(expected.getFieldCount() - 1)
                  .getType()
                  .getFullTypeString()
              + " (ChangeOf.weightedRowType gives it)");
    }
    call.transformTo(LogicalTableScan.create(scan.getCluster(), deltaTable, List.of()));
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches a delta directly above a table scan. */
    Config DEFAULT =
        ImmutableChangeTableScanRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(
                b0 ->
                    b0.operand(ChangeOf.class)
                        .oneInput(b1 -> b1.operand(TableScan.class).noInputs()));

    @Override
    default ChangeTableScanRule toRule() {
      return new ChangeTableScanRule(this);
    }
  }
}
