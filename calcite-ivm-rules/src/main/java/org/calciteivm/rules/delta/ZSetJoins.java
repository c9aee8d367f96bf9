package org.calciteivm.rules.delta;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.core.ZSets;

/**
 * Building blocks of the join expansions: the terms they sum, and the previous state of an input.
 *
 * <p>A term joins, for each side of a join, either its current state (each row once, no weight
 * column) or a Z-set (its delta or its previous state, with a weight column). The join of Z-sets
 * multiplies weights, so a term's weight is the product of its weighted sides' weights, negated for
 * a term that is subtracted.
 */
final class ZSetJoins {
  private ZSetJoins() {}

  /** The terms of one join expansion, given which sides of the join have a change. */
  interface Expansion {
    List<RelNode> terms(RelBuilder builder, Join join, boolean leftChanges, boolean rightChanges);
  }

  /** What both join expansions do on a match of {@link #deltaOfInnerJoin()}: sum their terms. */
  static void expand(RelOptRuleCall call, Expansion expansion) {
    ChangeOf change = call.rel(0);
    Join join = call.rel(1);
    DeltaContext context = DeltaContext.of(call);
    RelBuilder builder = call.builder();
    List<RelNode> terms =
        expansion.terms(
            builder, join, context.changes(join.getLeft()), context.changes(join.getRight()));
    call.transformTo(sum(builder, terms, change));
  }

  /**
   * The operand of the join expansions and of {@link ChangeJoinForeignKeyPruneRule}: a delta
   * directly above an inner join.
   */
  static RelRule.OperandTransform deltaOfInnerJoin() {
    return b0 ->
        b0.operand(ChangeOf.class)
            .oneInput(
                b1 ->
                    b1.operand(Join.class)
                        .predicate(j -> j.getJoinType() == JoinRelType.INNER)
                        .anyInputs());
  }

  /** One side of a term: a relation with the join input's columns, and a weight if {@code zset}. */
  record Side(RelNode rel, boolean zset) {
    /** The current state of a join input: the input itself. */
    static Side current(RelNode input) {
      return new Side(input, false);
    }

    /** The change of a join input. */
    static Side delta(RelNode input) {
      return new Side(ChangeOf.create(input), true);
    }
  }

  /**
   * The term {@code ± (left ⋈_c right)} of {@code join}: the join's columns followed by the weight.
   * The join condition is {@code join}'s, its references to the right side shifted past the left
   * side's weight column.
   */
  static RelNode term(RelBuilder builder, Join join, Side left, Side right, boolean subtract) {
    int leftColumns = join.getLeft().getRowType().getFieldCount();
    int rightColumns = join.getRight().getRowType().getFieldCount();
    int leftWidth = leftColumns + (left.zset() ? 1 : 0);
    builder.push(left.rel()).push(right.rel());
    builder.join(
        JoinRelType.INNER,
        RexUtil.shift(join.getCondition(), leftColumns, leftWidth - leftColumns));
    List<RexNode> columns = new ArrayList<>();
    for (int i = 0; i < leftColumns; i++) {
      columns.add(builder.field(i));
    }
    for (int i = 0; i < rightColumns; i++) {
      columns.add(builder.field(leftWidth + i));
    }
    List<RexNode> weights = new ArrayList<>();
    if (left.zset()) {
      weights.add(builder.field(leftColumns));
    }
    if (right.zset()) {
      weights.add(builder.field(leftWidth + rightColumns));
    }
    RexNode weight =
        weights.size() == 1
            ? weights.get(0)
            : builder.call(SqlStdOperatorTable.MULTIPLY, weights.get(0), weights.get(1));
    if (subtract) {
      weight = builder.call(SqlStdOperatorTable.UNARY_MINUS, weight);
    }
    columns.add(weight);
    List<String> names = new ArrayList<>(join.getRowType().getFieldNames());
    names.add(ZSets.WEIGHT_COLUMN);
    return builder.project(columns, names, true).build();
  }

  /**
   * The state of {@code input} before the change, as a Z-set: {@code R = R' - ΔR}, the current
   * state with weight 1 and the delta with negated weights. Nothing is consolidated here: a join is
   * linear in each side, so a tuple's copies may be spread over several rows, and the view delta is
   * consolidated before it is merged. Filters and projections inside {@code input} apply to both
   * branches, so only the rows and columns the join needs are read. {@link JoinTerms} recognizes
   * this union by its first input, which reads no delta relation.
   */
  static Side previous(RelBuilder builder, RelNode input) {
    int columns = input.getRowType().getFieldCount();
    List<String> names = new ArrayList<>(input.getRowType().getFieldNames());
    names.add(ZSets.WEIGHT_COLUMN);
    RexNode one =
        builder
            .getRexBuilder()
            .makeExactLiteral(BigDecimal.ONE, ChangeOf.weightType(builder.getTypeFactory()));
    builder.push(input);
    List<RexNode> current = new ArrayList<>(builder.fields());
    current.add(one);
    builder.project(current, names, true);
    builder.push(ChangeOf.create(input));
    List<RexNode> undone = new ArrayList<>(builder.fields().subList(0, columns));
    undone.add(builder.call(SqlStdOperatorTable.UNARY_MINUS, builder.field(columns)));
    builder.project(undone, names, true);
    return new Side(builder.union(true).build(), true);
  }

  /**
   * The sum of {@code terms}, or the empty relation of {@code rowType}'s shape if there is none.
   */
  static RelNode sum(RelBuilder builder, List<RelNode> terms, ChangeOf delta) {
    if (terms.isEmpty()) {
      return builder.values(delta.getRowType()).build();
    }
    if (terms.size() == 1) {
      return terms.get(0);
    }
    builder.pushAll(terms);
    return builder.union(true, terms.size()).build();
  }
}
