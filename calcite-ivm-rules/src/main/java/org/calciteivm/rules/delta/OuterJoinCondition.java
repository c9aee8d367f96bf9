package org.calciteivm.rules.delta;

import com.google.common.collect.ImmutableList;
import java.util.Optional;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * The condition of an outer join, split into what {@link ChangeOuterJoinRule} needs: equalities
 * between an expression of the left input and one of the right ({@code l.a = r.b}, {@code CAST(l.a
 * AS BIGINT) = r.b}, or {@code IS NOT DISTINCT FROM}), and conjuncts that read one input only (or
 * none). Whether a row of one input has a match then depends only on the values of its side of the
 * equalities being among those of the other input's rows that pass its own conjuncts.
 *
 * <p>Expressions are in the join's coordinates: the left input's fields first, then the right's.
 *
 * @param keys the equalities between the two sides; none for a join on a condition of one side each
 *     (an uncorrelated {@code NOT EXISTS}: every row matches once the other side has one)
 * @param leftOnly conjuncts that read the left input only, or no input
 * @param rightOnly conjuncts that read the right input only
 */
public record OuterJoinCondition(
    ImmutableList<Key> keys, ImmutableList<RexNode> leftOnly, ImmutableList<RexNode> rightOnly) {

  /**
   * One equality between the sides.
   *
   * @param left the expression over the left input
   * @param right the expression over the right input
   * @param operator {@code =} or {@code IS NOT DISTINCT FROM}
   */
  public record Key(RexNode left, RexNode right, SqlOperator operator) {}

  /**
   * The split condition of {@code join}, or nothing if some conjunct compares the two inputs other
   * than by an equality of one expression of each.
   */
  public static Optional<OuterJoinCondition> of(Join join) {
    int leftColumns = join.getLeft().getRowType().getFieldCount();
    ImmutableBitSet left = ImmutableBitSet.range(leftColumns);
    ImmutableBitSet right =
        ImmutableBitSet.range(
            leftColumns, leftColumns + join.getRight().getRowType().getFieldCount());
    ImmutableList.Builder<Key> keys = ImmutableList.builder();
    ImmutableList.Builder<RexNode> leftOnly = ImmutableList.builder();
    ImmutableList.Builder<RexNode> rightOnly = ImmutableList.builder();
    for (RexNode written : RelOptUtil.conjunctions(join.getCondition())) {
      // Calcite writes IS NOT DISTINCT FROM out as a CASE or an OR of IS NULLs
      RexNode conjunct =
          written instanceof RexCall call
              ? RelOptUtil.collapseExpandedIsNotDistinctFromExpr(
                  call, join.getCluster().getRexBuilder())
              : written;
      ImmutableBitSet reads = RelOptUtil.InputFinder.bits(conjunct);
      if (left.contains(reads)) {
        leftOnly.add(conjunct);
      } else if (right.contains(reads)) {
        rightOnly.add(conjunct);
      } else if ((conjunct.getKind() == SqlKind.EQUALS
              || conjunct.getKind() == SqlKind.IS_NOT_DISTINCT_FROM)
          && conjunct instanceof RexCall equality) {
        RexNode a = equality.getOperands().get(0);
        RexNode b = equality.getOperands().get(1);
        ImmutableBitSet readsA = RelOptUtil.InputFinder.bits(a);
        ImmutableBitSet readsB = RelOptUtil.InputFinder.bits(b);
        if (!readsA.isEmpty()
            && left.contains(readsA)
            && !readsB.isEmpty()
            && right.contains(readsB)) {
          keys.add(new Key(a, b, equality.getOperator()));
        } else if (!readsB.isEmpty()
            && left.contains(readsB)
            && !readsA.isEmpty()
            && right.contains(readsA)) {
          keys.add(new Key(b, a, equality.getOperator()));
        } else {
          return Optional.empty();
        }
      } else {
        return Optional.empty();
      }
    }
    return Optional.of(new OuterJoinCondition(keys.build(), leftOnly.build(), rightOnly.build()));
  }
}
