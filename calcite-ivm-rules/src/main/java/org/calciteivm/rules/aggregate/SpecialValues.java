package org.calciteivm.rules.aggregate;

import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;

/**
 * The NaNs and infinities of a sum of floating-point values, kept apart from the sum of its finite
 * values: a running sum that took one would keep it after its row went ({@code NaN - NaN} and
 * {@code inf - inf} are NaN), so each is counted per group instead, and the finite values summed.
 *
 * <p>Identity: a sum over a bag holding a NaN, or both infinities, is NaN; else one holding an
 * infinity is that infinity; else it is the sum of its values. Each count is linear in the rows
 * ({@code Δn = SUM(CASE WHEN x > 'Infinity' THEN w ELSE 0 END)}, NaN ordered above +infinity) and
 * merges as a COUNT; the finite values as a SUM, a special value counting 0 there. A finite sum
 * that overflows to an infinity still stays one (DuckDB sums {@code 1e308 + 1e308} to infinity),
 * and values of very different magnitudes still cancel, as any sum maintained by subtraction.
 */
final class SpecialValues {
  private SpecialValues() {}

  /** Whether a call over arguments of {@code argumentTypes} sums floating-point values. */
  static boolean sumsFloatingPoint(List<RelDataType> argumentTypes) {
    return !argumentTypes.isEmpty() && SqlTypeUtil.isApproximateNumeric(argumentTypes.get(0));
  }

  /** The counts' state columns, named after {@code prefix}: NaNs, +infinities, -infinities. */
  static List<StateColumn> stateColumns(String prefix) {
    return List.of(
        new StateColumn(prefix + "_nan", StateColumn.Kind.COUNT),
        new StateColumn(prefix + "_posinf", StateColumn.Kind.COUNT),
        new StateColumn(prefix + "_neginf", StateColumn.Kind.COUNT));
  }

  /** The measures of {@link #stateColumns}, which every sum of the same value shares. */
  static List<StateColumn.Measure> measures() {
    return List.of(
        StateColumn.Measure.NAN_COUNT,
        StateColumn.Measure.POSITIVE_INFINITY_COUNT,
        StateColumn.Measure.NEGATIVE_INFINITY_COUNT);
  }

  /** {@code x} where it is finite (or NULL), else 0: what the finite sum adds of it. */
  static RexNode finite(RelBuilder builder, RexNode x) {
    return builder.call(
        SqlStdOperatorTable.CASE,
        builder.or(conditions(builder, x)),
        builder.getRexBuilder().makeZeroLiteral(x.getType()),
        x);
  }

  /**
   * The counts of a group's rows, in the order of {@link #stateColumns}: counts, so that they are
   * 0, not NULL, over no rows (the one group of an aggregate without GROUP BY over an empty table).
   */
  static List<AggCall> state(RelBuilder builder, RexNode x) {
    RexNode one = builder.literal(1);
    RexNode none = builder.getRexBuilder().makeNullLiteral(one.getType());
    return conditions(builder, x).stream()
        .map(c -> builder.count(false, null, builder.call(SqlStdOperatorTable.CASE, c, one, none)))
        .toList();
  }

  /** The change of the counts from a Z-set of rows whose weight is {@code weight}. */
  static List<AggCall> delta(RelBuilder builder, RexNode weight, RexNode x) {
    RexNode zero = builder.getRexBuilder().makeZeroLiteral(weight.getType());
    return conditions(builder, x).stream()
        .map(c -> builder.sum(builder.call(SqlStdOperatorTable.CASE, c, weight, zero)))
        .toList();
  }

  /**
   * The sum's value from the counts {@code nan}, {@code positive} and {@code negative}, where its
   * finite values give {@code finite} (their sum, or their average).
   */
  static RexNode value(
      RelBuilder builder, RexNode nan, RexNode positive, RexNode negative, RexNode finite) {
    RexBuilder rex = builder.getRexBuilder();
    RelDataType type = finite.getType();
    RexNode zero = builder.literal(0);
    return builder.call(
        SqlStdOperatorTable.CASE,
        builder.or(
            builder.greaterThan(nan, zero),
            builder.and(builder.greaterThan(positive, zero), builder.greaterThan(negative, zero))),
        rex.makeApproxLiteral(Double.NaN, type),
        builder.greaterThan(positive, zero),
        rex.makeApproxLiteral(Double.POSITIVE_INFINITY, type),
        builder.greaterThan(negative, zero),
        rex.makeApproxLiteral(Double.NEGATIVE_INFINITY, type),
        finite);
  }

  /**
   * Whether {@code x} is NaN, +infinity, -infinity (NULL for a NULL). NaN is the value above
   * +infinity: DuckDB, Spark, PostgreSQL and H2 order it there (and take it equal to itself), and
   * their names for a test of it differ ({@code isnan} is neither standard nor H2's).
   */
  private static List<RexNode> conditions(RelBuilder builder, RexNode x) {
    RexBuilder rex = builder.getRexBuilder();
    RexNode positive = rex.makeApproxLiteral(Double.POSITIVE_INFINITY, x.getType());
    return List.of(
        builder.greaterThan(x, positive),
        builder.equals(x, positive),
        builder.equals(x, rex.makeApproxLiteral(Double.NEGATIVE_INFINITY, x.getType())));
  }
}
