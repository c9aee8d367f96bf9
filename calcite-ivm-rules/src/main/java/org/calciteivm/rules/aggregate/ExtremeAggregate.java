package org.calciteivm.rules.aggregate;

import java.math.BigDecimal;
import java.util.List;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;
import org.calciteivm.core.IvmNames;

/**
 * {@code MIN(x)} and {@code MAX(x)}: the state is the extreme {@code m} and a lower bound {@code c}
 * of how many rows hold it (the counting of extremes). It is not invertible, but a delete loses the
 * extreme only when it deletes every row that holds it.
 *
 * <p>The state counts the rows at the extreme exactly, in a second pass over the group's rows. The
 * change of a group carries, in one pass, the extreme of its rows of positive weight ({@code _min})
 * with a lower bound of how many of them hold it ({@code _min_count}: one, if there is one), and
 * the extreme of its rows of negative weight ({@code _min_deleted}) with an upper bound of how many
 * of them hold it ({@code _min_deleted_count}: every deleted row with a value). Identity (for MIN):
 * in a consistent change every deleted value is at or beyond {@code m}, so a value below {@code m}
 * is a new row's and the new minimum is {@code LEAST(m, the inserted minimum)}, unless the inserted
 * minimum is not below {@code m} and {@code m}'s count, {@code c} plus the inserted rows at {@code
 * m} less the deleted ones, may reach zero: then the group is recomputed ({@link #stateLost}),
 * which counts it exactly again. A deleted value below {@code m} (a change whose rows of negative
 * weight a join expansion cancels elsewhere) also recomputes the group. The new count is the bound
 * of the inserted rows at a new minimum, else {@code c} plus the inserted and less the deleted
 * bound at {@code m} ({@link StateColumn#merged}): every step keeps it a lower bound, so a group is
 * never kept without the rows it counts. A count that is NULL is unknown (a view stored before
 * counts were kept): every delete at the extreme recomputes the group.
 */
final class ExtremeAggregate implements MaintainedAggregate {
  /** The suffix of the change-only columns of the rows of negative weight. */
  static final String DELETED = "_deleted";

  /** The suffix of the count of the rows at an extreme. */
  static final String COUNT = "_count";

  private final boolean min;

  /** MIN, or MAX if not {@code min}. */
  ExtremeAggregate(boolean min) {
    this.min = min;
  }

  @Override
  public List<StateColumn> stateColumns(String prefix) {
    String extreme = extremeColumn(prefix);
    return List.of(
        new StateColumn(extreme, min ? StateColumn.Kind.MIN : StateColumn.Kind.MAX),
        new StateColumn(
            extreme + COUNT,
            min ? StateColumn.Kind.MIN_COUNT : StateColumn.Kind.MAX_COUNT,
            extreme));
  }

  @Override
  public List<String> deltaOnlyColumns(String prefix) {
    String deleted = extremeColumn(prefix) + DELETED;
    return List.of(deleted, deleted + COUNT);
  }

  @Override
  public int countedColumns() {
    return 1;
  }

  @Override
  public List<AggCall> state(RelBuilder builder, List<RexNode> args) {
    return List.of(extreme(builder, args.get(0)));
  }

  @Override
  public List<RexNode> stateCounted(
      RelBuilder builder, List<RexNode> args, List<RexNode> firstPass) {
    return List.of(
        orZero(builder, builder.equals(args.get(0), firstPass.get(0)), builder.literal(1)));
  }

  @Override
  public List<AggCall> delta(RelBuilder builder, RexNode weight, List<RexNode> args) {
    RexNode x = args.get(0);
    RexNode zero = builder.literal(0);
    RexNode inserted = builder.and(builder.greaterThan(weight, zero), builder.isNotNull(x));
    RexNode deleted = builder.and(builder.lessThan(weight, zero), builder.isNotNull(x));
    return List.of(
        extreme(builder, Weights.onlyWhere(builder, weight, true, x)),
        // at least one inserted row holds the inserted extreme, if there is one
        builder.max(
            orZero(
                builder,
                inserted,
                builder.getRexBuilder().makeExactLiteral(BigDecimal.ONE, weight.getType()))),
        extreme(builder, Weights.onlyWhere(builder, weight, false, x)),
        // at most every deleted row with a value holds the deleted extreme
        builder.sum(
            orZero(builder, deleted, builder.call(SqlStdOperatorTable.UNARY_MINUS, weight))));
  }

  @Override
  public List<RexNode> deltaCounted(
      RelBuilder builder, RexNode weight, List<RexNode> args, List<RexNode> firstPass) {
    RexNode x = args.get(0);
    RexNode zero = builder.literal(0);
    RexNode negated = builder.call(SqlStdOperatorTable.UNARY_MINUS, weight);
    return List.of(
        orZero(
            builder,
            builder.and(builder.greaterThan(weight, zero), builder.equals(x, firstPass.get(0))),
            weight),
        orZero(
            builder,
            builder.and(builder.lessThan(weight, zero), builder.equals(x, firstPass.get(1))),
            negated));
  }

  @Override
  public String stateLost(String prefix, String stored, String change) {
    // a stored NULL extreme with a deleted value is not consistent: recompute rather than trust it
    String extreme = extremeColumn(prefix);
    String state = stored + "." + IvmNames.quote(extreme);
    String count = stored + "." + IvmNames.quote(extreme + COUNT);
    String inserted = change + "." + IvmNames.quote(extreme);
    String insertedCount = change + "." + IvmNames.quote(extreme + COUNT);
    String deleted = change + "." + IvmNames.quote(extreme + DELETED);
    String deletedCount = change + "." + IvmNames.quote(extreme + DELETED + COUNT);
    String beyond = min ? " < " : " > ";
    return "("
        + deleted
        + " IS NOT NULL AND ("
        + state
        + " IS NULL OR "
        + deleted
        + beyond
        + state
        + " OR ("
        + deleted
        + " = "
        + state
        + " AND NOT coalesce("
        + inserted
        + beyond
        + state
        + ", FALSE) AND coalesce("
        + count
        + ", 0) + CASE WHEN "
        + inserted
        + " = "
        + state
        + " THEN "
        + insertedCount
        + " ELSE 0 END - "
        + deletedCount
        + " <= 0)))";
  }

  @Override
  public RexNode value(RelBuilder builder, List<RexNode> state) {
    return state.get(0);
  }

  @Override
  public boolean invertible() {
    return false;
  }

  private String extremeColumn(String prefix) {
    return prefix + (min ? "_min" : "_max");
  }

  private AggCall extreme(RelBuilder builder, RexNode x) {
    return min ? builder.min(x) : builder.max(x);
  }

  /** {@code value} where {@code condition} holds, else 0. */
  private static RexNode orZero(RelBuilder builder, RexNode condition, RexNode value) {
    return builder.call(
        SqlStdOperatorTable.CASE,
        condition,
        value,
        builder.getRexBuilder().makeZeroLiteral(value.getType()));
  }
}
