package org.calciteivm.rules.aggregate;

import java.util.Arrays;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * {@code VAR_POP(x)}, {@code VAR_SAMP(x)} ({@code variance}), {@code STDDEV_POP(x)} and {@code
 * STDDEV_SAMP(x)} ({@code stddev}): the state is the non-null count {@code n}, the sum {@code s}
 * and the sum of squares {@code q} of the values, each linear in the rows ({@code Δs = SUM(w * x)},
 * {@code Δq = SUM(w * x * x)}), so a delete is merged like an insert. The value is computed when
 * the view is read: {@code (n * q - s * s) / (n * n)} for the population variance, {@code / (n * (n
 * - 1))} for the sample variance (NULL below one value, resp. two, as DuckDB), the standard
 * deviations their square roots.
 *
 * <p>Only TINYINT, SMALLINT and INTEGER values (and the unsigned types Calcite reads as those) are
 * maintained: their sums are kept as HUGEINT, so the numerator {@code n * q - s * s} is exact and
 * the value is as close as DuckDB's own. Sums of other types would be kept as DOUBLE (a BIGINT
 * square overflows HUGEINT), and sums that add and remove rows keep rounding residues: the standard
 * deviation of equal values became the square root of a residue (1e-6 where DuckDB gives 0), so
 * those are refused ({@link #refusal}).
 */
final class VarianceAggregate implements MaintainedAggregate {
  private final boolean sample;
  private final boolean squareRoot;

  /**
   * @param sample the sample variance (divided by {@code n - 1}), else the population's
   * @param squareRoot the standard deviation, else the variance
   */
  VarianceAggregate(boolean sample, boolean squareRoot) {
    this.sample = sample;
    this.squareRoot = squareRoot;
  }

  @Override
  public List<StateColumn> stateColumns(String prefix) {
    return List.of(
        new StateColumn(prefix + "_count", StateColumn.Kind.COUNT),
        new StateColumn(prefix + "_sum", StateColumn.Kind.SUM),
        new StateColumn(prefix + "_sumsq", StateColumn.Kind.SUM));
  }

  @Override
  public List<StateColumn.@Nullable Measure> measures() {
    // its sums are of the value widened (summed), not of the value as SUM sums it
    return Arrays.asList(StateColumn.Measure.COUNT, null, null);
  }

  @Override
  public List<AggCall> state(RelBuilder builder, List<RexNode> args) {
    RexNode x = summed(builder, args.get(0));
    return List.of(
        builder.count(false, null, args),
        builder.sum(x),
        builder.sum(builder.call(SqlStdOperatorTable.MULTIPLY, x, x)));
  }

  @Override
  public List<AggCall> delta(RelBuilder builder, RexNode weight, List<RexNode> args) {
    RexNode x = summed(builder, args.get(0));
    RexNode weighted = builder.call(SqlStdOperatorTable.MULTIPLY, x, weight);
    return List.of(
        builder.sum(Weights.ifNotNull(builder, weight, args)),
        builder.sum(weighted),
        builder.sum(builder.call(SqlStdOperatorTable.MULTIPLY, weighted, x)));
  }

  @Override
  public RexNode value(RelBuilder builder, List<RexNode> state) {
    RexNode n = state.get(0);
    RexNode s = state.get(1);
    RexNode q = state.get(2);
    // n * q - s * s: exact in HUGEINT for the sums kept as HUGEINT
    RexNode numerator =
        builder.cast(
            builder.call(
                SqlStdOperatorTable.MINUS,
                builder.call(
                    SqlStdOperatorTable.MULTIPLY,
                    builder.getRexBuilder().makeAbstractCast(q.getType(), n, false),
                    q),
                builder.call(SqlStdOperatorTable.MULTIPLY, s, s)),
            SqlTypeName.DOUBLE);
    RexNode nonNegative =
        builder.call(
            SqlStdOperatorTable.CASE,
            builder.lessThanOrEqual(numerator, builder.literal(0)),
            builder.literal(0.0),
            numerator);
    RexNode nDouble = builder.cast(n, SqlTypeName.DOUBLE);
    RexNode divisor =
        builder.call(
            SqlStdOperatorTable.MULTIPLY,
            nDouble,
            sample
                ? builder.call(SqlStdOperatorTable.MINUS, nDouble, builder.literal(1.0))
                : nDouble);
    RexNode variance = builder.call(SqlStdOperatorTable.DIVIDE, nonNegative, divisor);
    RexNode value =
        squareRoot
            ? builder.call(SqlStdOperatorTable.POWER, variance, builder.literal(0.5))
            : variance;
    return builder.call(
        SqlStdOperatorTable.CASE,
        builder.lessThan(n, builder.literal(sample ? 2 : 1)),
        builder.getRexBuilder().makeNullLiteral(value.getType()),
        value);
  }

  @Override
  public boolean invertible() {
    return true;
  }

  @Override
  public @Nullable String refusal(List<RelDataType> argumentTypes) {
    SqlTypeName type = argumentTypes.get(0).getSqlTypeName();
    return type == SqlTypeName.TINYINT
            || type == SqlTypeName.SMALLINT
            || type == SqlTypeName.INTEGER
        ? null
        : "of a "
            + type
            + " value (maintained for TINYINT, SMALLINT and INTEGER values, whose sums of squares"
            + " are exact)";
  }

  /** {@code x} as the HUGEINT (DECIMAL(38, 0) to Calcite) its sums are kept in. */
  private static RexNode summed(RelBuilder builder, RexNode x) {
    RelDataTypeFactory types = builder.getTypeFactory();
    RelDataType target =
        types.createTypeWithNullability(
            types.createSqlType(SqlTypeName.DECIMAL, 38, 0), x.getType().isNullable());
    return builder.getRexBuilder().makeAbstractCast(target, x, false);
  }
}
