package org.calciteivm.rules.normalize;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Intersect;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Minus;
import org.apache.calcite.rel.core.SetOp;
import org.apache.calcite.rel.rules.TransformationRule;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.rules.IvmRelBuilders;
import org.immutables.value.Value;

/**
 * Writes {@code INTERSECT} and {@code EXCEPT} (the set forms, without {@code ALL}) as joins of
 * {@code DISTINCT}s, which the delta rules maintain.
 *
 * <p>Identities, with {@code ≡} matching every column {@code IS NOT DISTINCT FROM} (set operations
 * treat NULLs as equal): {@code A INTERSECT B = π_A(δA ⋈_≡ δB)}, each row of {@code δA} joining at
 * most the one equal row of the set {@code δB}; {@code A EXCEPT B = π_A(σ_{m IS NULL}(δA ⟕_≡ π_{B,
 * TRUE AS m}(δB)))}, the rows of {@code δA} that no row of {@code B} equals, found by the marker
 * {@code m} that only a matched row has. More inputs chain: {@code A EXCEPT B EXCEPT C} is {@code
 * A} without the rows of either. The result takes the operation's column types.
 */
@Value.Enclosing
public class DistinctSetOpToJoinRule extends RelRule<DistinctSetOpToJoinRule.Config>
    implements TransformationRule {

  /** Creates the rule from its configuration. */
  protected DistinctSetOpToJoinRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    SetOp setOp = call.rel(0);
    RelBuilder builder = call.builder();
    RexBuilder rex = builder.getRexBuilder();
    boolean except = setOp instanceof Minus;
    List<RelNode> inputs = setOp.getInputs();
    int width = setOp.getRowType().getFieldCount();
    builder.push(inputs.get(0)).distinct();
    List<RexNode> unmatched = new ArrayList<>();
    for (int n = 1; n < inputs.size(); n++) {
      int leftWidth = builder.peek().getRowType().getFieldCount();
      builder.push(inputs.get(n)).distinct();
      if (except) {
        List<RexNode> marked = new ArrayList<>(builder.fields());
        marked.add(rex.makeLiteral(true));
        builder.project(marked);
      }
      List<RexNode> equal = new ArrayList<>();
      for (int i = 0; i < width; i++) {
        equal.add(
            builder.call(
                SqlStdOperatorTable.IS_NOT_DISTINCT_FROM,
                builder.field(2, 0, i),
                builder.field(2, 1, i)));
      }
      builder.join(except ? JoinRelType.LEFT : JoinRelType.INNER, equal);
      if (except) {
        unmatched.add(builder.call(SqlStdOperatorTable.IS_NULL, builder.field(leftWidth + width)));
      }
    }
    if (!unmatched.isEmpty()) {
      builder.filter(unmatched);
    }
    List<RexNode> columns = new ArrayList<>();
    List<RelDataTypeField> fields = setOp.getRowType().getFieldList();
    for (int i = 0; i < width; i++) {
      RexNode column = builder.field(i);
      columns.add(
          column.getType().equals(fields.get(i).getType())
              ? column
              : rex.makeCast(fields.get(i).getType(), column, true, false));
    }
    builder.project(columns, setOp.getRowType().getFieldNames(), true);
    call.transformTo(builder.build());
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches {@code INTERSECT} and {@code EXCEPT} without {@code ALL}. */
    Config DEFAULT =
        ImmutableDistinctSetOpToJoinRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(
                b ->
                    b.operand(SetOp.class)
                        .predicate(s -> !s.all && (s instanceof Intersect || s instanceof Minus))
                        .anyInputs());

    @Override
    default DistinctSetOpToJoinRule toRule() {
      return new DistinctSetOpToJoinRule(this);
    }
  }
}
