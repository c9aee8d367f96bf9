package org.calciteivm.rules.delta;

import static java.util.Objects.requireNonNull;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.core.ZSets;
import org.checkerframework.checker.nullness.qual.Nullable;

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

  /**
   * One side of a term: a relation with the join input's columns, and a weight if {@code zset};
   * {@code previousOf} is the input whose previous state it is, if it is one ({@link #previous}).
   */
  record Side(RelNode rel, boolean zset, @Nullable RelNode previousOf) {
    /** The current state of a join input: the input itself. */
    static Side current(RelNode input) {
      return new Side(input, false, null);
    }

    /** The change of a join input. */
    static Side delta(RelNode input) {
      return new Side(ChangeOf.create(input), true, null);
    }
  }

  /**
   * The term {@code ± (left ⋈_c right)} of {@code join}: the join's columns followed by the weight.
   * The join condition is {@code join}'s, its references to the right side shifted past the left
   * side's weight column.
   */
  static RelNode term(RelBuilder builder, Join join, Side left, Side right, boolean subtract) {
    if (!left.zset() && right.zset()) {
      left = narrowed(builder, join, left, right, true);
    } else if (left.zset() && !right.zset()) {
      right = narrowed(builder, join, right, left, false);
    } else if (left.previousOf() == null && right.previousOf() != null) {
      right = narrowedPrevious(builder, join, right, left, false);
    } else if (left.previousOf() != null && right.previousOf() == null) {
      left = narrowedPrevious(builder, join, left, right, true);
    }
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
   * {@code current}, the current state of a join input, or if it is a {@code DISTINCT} over some
   * input {@code I} with key equalities to {@code other} in the join condition, the {@code
   * DISTINCT} over only the rows of {@code I} whose keys some row of {@code other} has ({@code I ⋉
   * other}, a semi-join). The term joins {@code current} with {@code other} on those keys, so the
   * rows left out join nothing; {@code other} is a change, small, whereas the whole {@code
   * DISTINCT} would hash every row of {@code I} (a set of join keys made by {@link
   * ChangeOuterJoinRule}, or an {@code EXISTS} subquery's).
   */
  private static Side narrowed(
      RelBuilder builder, Join join, Side current, Side other, boolean currentIsLeft) {
    RelNode top = current.rel().stripped();
    // the DISTINCT, possibly under a projection of its columns and constants (EXISTS writes one)
    Project project = top instanceof Project p ? p : null;
    if (!((project == null ? top : project.getInput().stripped()) instanceof Aggregate distinct)
        || !ChangeDistinctRule.isDistinct(distinct)) {
      return current;
    }
    int leftColumns = join.getLeft().getRowType().getFieldCount();
    int currentStart = currentIsLeft ? 0 : leftColumns;
    int currentWidth = top.getRowType().getFieldCount();
    int otherStart = currentIsLeft ? leftColumns : 0;
    int otherWidth =
        (currentIsLeft ? join.getRight() : join.getLeft()).getRowType().getFieldCount();
    List<Integer> keys = distinct.getGroupSet().asList();
    // pairs (a key column of the DISTINCT's input, a column of the other side) the join equates
    List<Integer> inputKeys = new ArrayList<>();
    List<Integer> otherKeys = new ArrayList<>();
    List<SqlOperator> operators = new ArrayList<>();
    for (RexNode conjunct : RelOptUtil.conjunctions(join.getCondition())) {
      if ((conjunct.getKind() == SqlKind.EQUALS
              || conjunct.getKind() == SqlKind.IS_NOT_DISTINCT_FROM)
          && conjunct instanceof RexCall equality
          && equality.getOperands().get(0) instanceof RexInputRef a
          && equality.getOperands().get(1) instanceof RexInputRef b) {
        RexInputRef mine = inRange(a, currentStart, currentWidth) ? a : b;
        RexInputRef theirs = mine == a ? b : a;
        if (!inRange(mine, currentStart, currentWidth)
            || !inRange(theirs, otherStart, otherWidth)) {
          continue;
        }
        int column = mine.getIndex() - currentStart;
        if (project != null) {
          if (!(project.getProjects().get(column) instanceof RexInputRef ref)) {
            continue;
          }
          column = ref.getIndex();
        }
        inputKeys.add(keys.get(column));
        otherKeys.add(theirs.getIndex() - otherStart);
        operators.add(equality.getOperator());
      }
    }
    if (inputKeys.isEmpty()) {
      return current;
    }
    // an inner join with the other side's distinct key values, not a SEMI join: Calcite writes
    // a semi-join as EXISTS without qualifying the outer columns
    List<Integer> otherColumns = otherKeys.stream().distinct().toList();
    builder.push(distinct.getInput());
    builder
        .push(other.rel())
        .project(otherColumns.stream().map(builder::field).toList())
        .distinct();
    List<RexNode> matches = new ArrayList<>();
    for (int i = 0; i < inputKeys.size(); i++) {
      matches.add(
          builder.call(
              operators.get(i),
              builder.field(2, 0, inputKeys.get(i)),
              builder.field(2, 1, otherColumns.indexOf(otherKeys.get(i)))));
    }
    builder.join(JoinRelType.INNER, matches);
    builder.aggregate(builder.groupKey(keys.stream().map(k -> builder.field(k)).toList()));
    if (project != null) {
      builder.project(project.getProjects(), project.getRowType().getFieldNames(), true);
    }
    return new Side(builder.build(), false, null);
  }

  /**
   * {@code previous}, the previous state {@code R' - ΔR} of a join input, with its current state
   * {@code R'} {@linkplain #narrowed narrowed} to the key values of {@code other}; the rows of
   * {@code ΔR} with other key values join nothing.
   */
  private static Side narrowedPrevious(
      RelBuilder builder, Join join, Side previous, Side other, boolean previousIsLeft) {
    RelNode input = requireNonNull(previous.previousOf());
    Side current = narrowed(builder, join, Side.current(input), other, previousIsLeft);
    return current.rel() == input ? previous : previous(builder, current.rel(), input);
  }

  private static boolean inRange(RexInputRef ref, int start, int width) {
    return ref.getIndex() >= start && ref.getIndex() < start + width;
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
    return previous(builder, input, input);
  }

  /**
   * The previous state of {@code input} from {@code current}, its current state or a part of it.
   */
  private static Side previous(RelBuilder builder, RelNode current, RelNode input) {
    int columns = input.getRowType().getFieldCount();
    List<String> names = new ArrayList<>(input.getRowType().getFieldNames());
    names.add(ZSets.WEIGHT_COLUMN);
    RexNode one =
        builder
            .getRexBuilder()
            .makeExactLiteral(BigDecimal.ONE, ChangeOf.weightType(builder.getTypeFactory()));
    builder.push(current);
    List<RexNode> currentRows = new ArrayList<>(builder.fields());
    currentRows.add(one);
    builder.project(currentRows, names, true);
    builder.push(ChangeOf.create(input));
    List<RexNode> undone = new ArrayList<>(builder.fields().subList(0, columns));
    undone.add(builder.call(SqlStdOperatorTable.UNARY_MINUS, builder.field(columns)));
    builder.project(undone, names, true);
    return new Side(builder.union(true).build(), true, input);
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
