package org.calciteivm.rules.delta;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.rules.TransformationRule;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.core.ZSets;
import org.calciteivm.rules.IvmRelBuilders;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.immutables.value.Value;

/**
 * Expands the change of a {@code LEFT}, {@code RIGHT} or {@code FULL} outer join into changes of
 * inner joins, which the join expansions then derive.
 *
 * <p>Identity: an outer join is its inner join plus, for each preserved input {@code X}, the rows
 * of {@code X} without a match, padded with NULLs for the other input {@code Y}: {@code L ⟕_θ R = L
 * ⋈_θ R + pad(L ▷_θ R)}. The rows without a match are {@code X ▷ Y = X - (X ⋉ Y)}, a difference of
 * bags where the subtrahend is contained in {@code X}, so it is linear: {@code Δ(X ▷ Y) = ΔX - Δ(X
 * ⋉ Y)}. The semi-join is an inner join with the set of the other side's keys, {@code X ⋉_θ Y =
 * π_X(X ⋈_θ' D)} with {@code D = δ(π_k(σ_q Y))}, where {@code θ} is the equalities {@code e_X =
 * e_Y}, conjuncts {@code p} of {@code X} alone and {@code q} of {@code Y} alone ({@link
 * OuterJoinCondition}), {@code k} the expressions {@code e_Y} and {@code θ'} the equalities of
 * {@code e_X} with {@code D}'s columns and {@code p}: a row of {@code X} has a match exactly when
 * it passes {@code p} and its key values are among those of the rows of {@code Y} that pass {@code
 * q}; {@code D} is a set, so each row of {@code X} joins at most one of its rows. NULL keys match
 * nothing under {@code =} on both sides, and match each other under {@code IS NOT DISTINCT FROM},
 * as in the join. Hence
 *
 * <pre>{@code Δ(L ⟕ R) = Δ(L ⋈ R) + pad(ΔL) - pad(Δ π_L(L ⋈ D_R))}</pre>
 *
 * <p>and the same with the inputs' roles swapped for the right input of a {@code RIGHT} or {@code
 * FULL} join. A condition of another form (an inequality between the sides, an {@code OR}) takes
 * the semi-join as {@code π_X(X ⋈_S D)} with {@code D = δ(π_S(X ⋈_θ Y))}, the values in the columns
 * {@code S} of {@code X} that {@code θ} reads of the rows that have a match: exact for any {@code
 * θ}, at the price of the join itself where keys would have sufficed. The change of {@code D} is
 * that of a {@code DISTINCT} ({@link ChangeDistinctRule}). An insert into {@code Y} can remove
 * padded rows, so a view with an outer join is not monotone: its insert-only changes take the
 * general merge.
 */
@Value.Enclosing
public class ChangeOuterJoinRule extends RelRule<ChangeOuterJoinRule.Config>
    implements TransformationRule {

  /** Creates the rule from its configuration. */
  protected ChangeOuterJoinRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Join join = call.rel(1);
    @Nullable OuterJoinCondition condition = OuterJoinCondition.of(join).orElse(null);
    RelBuilder builder = call.builder();
    builder.push(
        ChangeOf.create(
            join.copy(
                join.getTraitSet(),
                join.getCondition(),
                join.getLeft(),
                join.getRight(),
                JoinRelType.INNER,
                join.isSemiJoinDone())));
    int branches = 1;
    if (join.getJoinType().generatesNullsOnRight()) {
      branches += unmatched(builder, join, condition, true);
    }
    if (join.getJoinType().generatesNullsOnLeft()) {
      branches += unmatched(builder, join, condition, false);
    }
    call.transformTo(builder.union(true, branches).build());
  }

  /**
   * Pushes the change of the padded rows of the preserved input ({@code left} or the right one)
   * without a match: {@code pad(ΔX)} and {@code -pad(Δ(X ⋉ Y))}; returns how many it pushed. {@code
   * condition} is the join's condition taken apart, or null if it is not of that form.
   */
  private static int unmatched(
      RelBuilder builder, Join join, @Nullable OuterJoinCondition condition, boolean left) {
    RelNode preserved = left ? join.getLeft() : join.getRight();
    RelNode semiJoin =
        condition == null
            ? matchedRows(builder, join, left)
            : matchedByKeys(builder, join, condition, left);
    padded(builder, join, ChangeOf.create(preserved), left, false);
    padded(builder, join, ChangeOf.create(semiJoin), left, true);
    return 2;
  }

  /** {@code X ⋉ Y = π_X(X ⋈_θ' D)} with {@code D} the other side's key values. */
  private static RelNode matchedByKeys(
      RelBuilder builder, Join join, OuterJoinCondition condition, boolean left) {
    RexBuilder rex = builder.getRexBuilder();
    int leftColumns = join.getLeft().getRowType().getFieldCount();
    RelNode preserved = left ? join.getLeft() : join.getRight();
    RelNode other = left ? join.getRight() : join.getLeft();
    int preservedShift = left ? 0 : -leftColumns;
    int otherShift = left ? -leftColumns : 0;
    int preservedColumns = preserved.getRowType().getFieldCount();

    // D: the other side's key values, of its rows that pass its own conjuncts
    builder.push(other);
    List<RexNode> otherOnly = left ? condition.rightOnly() : condition.leftOnly();
    if (!otherOnly.isEmpty()) {
      builder.filter(otherOnly.stream().map(c -> RexUtil.shift(c, otherShift)).toList());
    }
    // one column per distinct expression: a column equated twice is kept once
    List<RexNode> otherKeys = new ArrayList<>();
    List<Integer> keyColumn = new ArrayList<>();
    for (OuterJoinCondition.Key key : condition.keys()) {
      RexNode expression = RexUtil.shift(left ? key.right() : key.left(), otherShift);
      if (!otherKeys.contains(expression)) {
        otherKeys.add(expression);
      }
      keyColumn.add(otherKeys.indexOf(expression));
    }
    if (otherKeys.isEmpty()) {
      // no key: D is one row if the other side has a row, none if not
      otherKeys.add(rex.makeLiteral(true));
    }
    // a set: RelBuilder leaves out the DISTINCT where declared keys prove the rows distinct
    builder.project(otherKeys).distinct();
    RelNode keys = builder.build();

    // X ⋉ Y = π_X(X ⋈_θ' D)
    builder.push(preserved).push(keys);
    List<RexNode> matches = new ArrayList<>();
    List<RelDataTypeField> keyFields = keys.getRowType().getFieldList();
    for (int i = 0; i < condition.keys().size(); i++) {
      OuterJoinCondition.Key key = condition.keys().get(i);
      matches.add(
          rex.makeCall(
              key.operator(),
              RexUtil.shift(left ? key.left() : key.right(), preservedShift),
              rex.makeInputRef(
                  keyFields.get(keyColumn.get(i)).getType(), preservedColumns + keyColumn.get(i))));
    }
    if (left) {
      matches.addAll(condition.leftOnly());
    } else {
      condition.rightOnly().forEach(c -> matches.add(RexUtil.shift(c, preservedShift)));
    }
    builder.join(JoinRelType.INNER, matches);
    builder.project(builder.fields().subList(0, preservedColumns));
    return builder.build();
  }

  /**
   * {@code X ⋉_θ Y = π_X(X ⋈_S D)} for any condition {@code θ}, with {@code S} the columns of
   * {@code X} that {@code θ} reads and {@code D = δ(π_S(X ⋈_θ Y))} their values in the rows of
   * {@code X} that have a match, joined with {@code X} on those columns ({@code IS NOT DISTINCT
   * FROM}): whether a row has a match depends only on its values in {@code S}, so all rows that
   * agree there match or none does. ({@code S} is also what a change of {@code X} is sure to hold:
   * the driver captures only the columns a view reads.)
   */
  private static RelNode matchedRows(RelBuilder builder, Join join, boolean left) {
    RelNode preserved = left ? join.getLeft() : join.getRight();
    int preservedColumns = preserved.getRowType().getFieldCount();
    int first = left ? 0 : join.getLeft().getRowType().getFieldCount();
    List<Integer> read = new ArrayList<>();
    for (int column : RelOptUtil.InputFinder.bits(join.getCondition())) {
      if (column >= first && column < first + preservedColumns) {
        read.add(column);
      }
    }
    builder.push(join.getLeft()).push(join.getRight()).join(JoinRelType.INNER, join.getCondition());
    builder.project(read.stream().map(builder::field).toList()).distinct();
    RelNode matched = builder.build();
    builder.push(preserved).push(matched);
    List<RexNode> sameValues = new ArrayList<>();
    for (int i = 0; i < read.size(); i++) {
      RexNode column = builder.field(2, 0, read.get(i) - first);
      sameValues.add(
          builder.call(
              column.getType().isNullable()
                  ? SqlStdOperatorTable.IS_NOT_DISTINCT_FROM
                  : SqlStdOperatorTable.EQUALS,
              column,
              builder.field(2, 1, i)));
    }
    builder.join(JoinRelType.INNER, sameValues);
    builder.project(builder.fields().subList(0, preservedColumns));
    return builder.build();
  }

  /**
   * Pushes {@code change}, a Z-set of the preserved input's rows, in the join's columns: NULLs for
   * the other input's, the weight negated if {@code subtract}.
   */
  private static void padded(
      RelBuilder builder, Join join, RelNode change, boolean left, boolean subtract) {
    RexBuilder rex = builder.getRexBuilder();
    builder.push(change);
    int preservedColumns = change.getRowType().getFieldCount() - 1;
    List<RexNode> columns = new ArrayList<>();
    List<RexNode> nulls = new ArrayList<>();
    for (RelDataTypeField field :
        (left ? join.getRight() : join.getLeft()).getRowType().getFieldList()) {
      nulls.add(
          rex.makeNullLiteral(
              builder.getTypeFactory().createTypeWithNullability(field.getType(), true)));
    }
    if (!left) {
      columns.addAll(nulls);
    }
    columns.addAll(builder.fields().subList(0, preservedColumns));
    if (left) {
      columns.addAll(nulls);
    }
    RexNode weight = builder.field(preservedColumns);
    columns.add(subtract ? builder.call(SqlStdOperatorTable.UNARY_MINUS, weight) : weight);
    List<String> names = new ArrayList<>(join.getRowType().getFieldNames());
    names.add(ZSets.WEIGHT_COLUMN);
    builder.project(columns, names, true);
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches the change of a left, right or full outer join. */
    Config DEFAULT =
        ImmutableChangeOuterJoinRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(
                b0 ->
                    b0.operand(ChangeOf.class)
                        .oneInput(
                            b1 ->
                                b1.operand(Join.class)
                                    .predicate(
                                        j ->
                                            j.getJoinType() == JoinRelType.LEFT
                                                || j.getJoinType() == JoinRelType.RIGHT
                                                || j.getJoinType() == JoinRelType.FULL)
                                    .anyInputs()));

    @Override
    default ChangeOuterJoinRule toRule() {
      return new ChangeOuterJoinRule(this);
    }
  }
}
