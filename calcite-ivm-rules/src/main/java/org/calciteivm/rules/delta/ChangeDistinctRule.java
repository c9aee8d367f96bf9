package org.calciteivm.rules.delta;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.rules.TransformationRule;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.core.ZSets;
import org.calciteivm.rules.IvmRelBuilders;
import org.immutables.value.Value;

/**
 * Replaces the change of a {@code DISTINCT} inside a plan (an aggregate without aggregate calls,
 * such as the set of join keys {@link ChangeOuterJoinRule} builds) by a Z-set of its rows, computed
 * from its input's change and a count of the touched tuples in its input's current state.
 *
 * <p>Identity: for {@code D = δ(R)}, {@code ΔD(t) = [c'(t) > 0] - [c'(t) - d(t) > 0]} for every
 * tuple {@code t} of {@code ΔR}, where {@code d(t)} is the sum of {@code ΔR}'s weights on {@code t}
 * and {@code c'(t)} the number of copies of {@code t} in the current state {@code R'}: a tuple is
 * in {@code D} exactly when its count is positive, its count before the change was {@code c'(t) -
 * d(t)}, and a tuple {@code ΔR} does not touch keeps its count. Tuples are compared with {@code IS
 * NOT DISTINCT FROM}, as {@code DISTINCT} groups NULLs together (with {@code =} on columns that
 * cannot be NULL). The rows of weight 0 (a tuple that was and stays present, or absent) are
 * dropped. No state is kept: the count reads {@code R'} joined with the touched tuples. A view's
 * own {@code DISTINCT} is not maintained this way but by the counts it stores ({@link
 * ChangeAggregateTransposeRule}).
 */
@Value.Enclosing
public class ChangeDistinctRule extends RelRule<ChangeDistinctRule.Config>
    implements TransformationRule {

  /** Creates the rule from its configuration. */
  protected ChangeDistinctRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Aggregate distinct = call.rel(1);
    RelBuilder builder = call.builder();
    RexBuilder rex = builder.getRexBuilder();
    RelDataType weightType = ChangeOf.weightType(builder.getTypeFactory());
    RexNode zero = rex.makeExactLiteral(BigDecimal.ZERO, weightType);
    RexNode one = rex.makeExactLiteral(BigDecimal.ONE, weightType);
    List<Integer> keys = distinct.getGroupSet().asList();
    int width = keys.size();
    int inputWidth = distinct.getInput().getRowType().getFieldCount();

    // the touched tuples with the sum of their weights d
    builder.push(ChangeOf.create(distinct.getInput()));
    builder.aggregate(
        builder.groupKey(keys.stream().map(builder::field).toList()),
        builder.sum(builder.field(inputWidth)).as("d"));
    List<RexNode> changed = new ArrayList<>(builder.fields());
    changed.add(zero);
    builder.project(changed, names(width, distinct), true);
    RelNode touched = builder.peek();

    // each copy of a touched tuple in the current state, counted by c
    builder.push(distinct.getInput());
    builder.project(keys.stream().map(builder::field).toList());
    builder.push(touched).project(builder.fields().subList(0, width));
    List<RexNode> sameTuple = new ArrayList<>();
    for (int i = 0; i < width; i++) {
      // = where the column has no NULL: DuckDB then pushes the touched values' range into the
      // scan of the input, skipping row groups by their zone maps
      boolean nullable = builder.field(2, 0, i).getType().isNullable();
      sameTuple.add(
          builder.call(
              nullable ? SqlStdOperatorTable.IS_NOT_DISTINCT_FROM : SqlStdOperatorTable.EQUALS,
              builder.field(2, 0, i),
              builder.field(2, 1, i)));
    }
    builder.join(JoinRelType.INNER, sameTuple);
    List<RexNode> copies = new ArrayList<>(builder.fields().subList(0, width));
    copies.add(zero);
    copies.add(one);
    builder.project(copies, names(width, distinct), true);

    builder.union(true, 2);
    builder.aggregate(
        builder.groupKey(builder.fields().subList(0, width)),
        builder.sum(builder.field(width)).as("d"),
        builder.sum(builder.field(width + 1)).as("c"));
    RexNode d = builder.field(width);
    RexNode c = builder.field(width + 1);
    RexNode weight =
        builder.call(
            SqlStdOperatorTable.MINUS,
            present(builder, c, one, zero),
            present(builder, builder.call(SqlStdOperatorTable.MINUS, c, d), one, zero));
    List<RexNode> rows = new ArrayList<>(builder.fields().subList(0, width));
    rows.add(rex.makeCast(weightType, weight, true, false));
    List<String> rowNames = new ArrayList<>(distinct.getRowType().getFieldNames());
    rowNames.add(ZSets.WEIGHT_COLUMN);
    builder.project(rows, rowNames, true);
    builder.filter(builder.call(SqlStdOperatorTable.NOT_EQUALS, builder.field(width), zero));
    call.transformTo(builder.build());
  }

  /**
   * Whether {@code aggregate} is a {@code DISTINCT}: grouped by some columns, no aggregate call.
   */
  public static boolean isDistinct(Aggregate aggregate) {
    return aggregate.getAggCallList().isEmpty()
        && aggregate.getGroupType() == Aggregate.Group.SIMPLE
        && !aggregate.getGroupSet().isEmpty();
  }

  /** {@code CASE WHEN count > 0 THEN 1 ELSE 0 END}. */
  private static RexNode present(RelBuilder builder, RexNode count, RexNode one, RexNode zero) {
    return builder.call(
        SqlStdOperatorTable.CASE,
        builder.call(SqlStdOperatorTable.GREATER_THAN, count, zero),
        one,
        zero);
  }

  /** The distinct's columns, then {@code d} and {@code c}. */
  private static List<String> names(int width, Aggregate distinct) {
    List<String> names = new ArrayList<>(distinct.getRowType().getFieldNames().subList(0, width));
    names.add("d");
    names.add("c");
    return names;
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches the change of the rows of a {@code DISTINCT}. */
    Config DEFAULT =
        ImmutableChangeDistinctRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(
                b0 ->
                    b0.operand(ChangeOf.class)
                        .predicate(change -> !change.ofState())
                        .oneInput(
                            b1 ->
                                b1.operand(Aggregate.class)
                                    .predicate(ChangeDistinctRule::isDistinct)
                                    .anyInputs()));

    @Override
    default ChangeDistinctRule toRule() {
      return new ChangeDistinctRule(this);
    }
  }
}
