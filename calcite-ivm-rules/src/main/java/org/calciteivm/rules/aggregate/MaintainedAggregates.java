package org.calciteivm.rules.aggregate;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.util.Locale;
import java.util.Optional;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.sql.SqlKind;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The aggregate kinds calcite-ivm maintains: by Calcite's kind of the aggregate function where it
 * has an algebraic state, else by DuckDB's name where its value is a function of the bag of its
 * input rows and touched groups are recomputed ({@link RecomputedAggregate}).
 */
public final class MaintainedAggregates {
  private static final ImmutableMap<SqlKind, MaintainedAggregate> KINDS =
      ImmutableMap.<SqlKind, MaintainedAggregate>builder()
          .put(SqlKind.COUNT, new CountAggregate())
          .put(SqlKind.SUM, new SumAggregate(false))
          .put(SqlKind.SUM0, new SumAggregate(true))
          .put(SqlKind.AVG, new AvgAggregate())
          .put(SqlKind.MIN, new ExtremeAggregate(true))
          .put(SqlKind.MAX, new ExtremeAggregate(false))
          .put(SqlKind.VAR_POP, new VarianceAggregate(false, false))
          .put(SqlKind.VAR_SAMP, new VarianceAggregate(true, false))
          .put(SqlKind.STDDEV_POP, new VarianceAggregate(false, true))
          .put(SqlKind.STDDEV_SAMP, new VarianceAggregate(true, true))
          .buildOrThrow();

  /**
   * The aggregates, by lower-case name, whose touched groups are recomputed: each a function of the
   * bag of its input rows (exact types, or a result that does not depend on the order of the rows).
   * So is approx_count_distinct, which Calcite plans as an approximate COUNT(DISTINCT), and so are
   * the standard percentiles, whose {@code WITHIN GROUP (ORDER BY x)} names the values.
   */
  private static final ImmutableSet<String> RECOMPUTED =
      ImmutableSet.of(
          "median",
          "percentile_cont",
          "percentile_disc",
          "quantile",
          "quantile_cont",
          "quantile_disc",
          "mad",
          "bit_and",
          "bit_or",
          "bit_xor",
          "histogram",
          "entropy");

  /**
   * The aggregates, by lower-case name, whose value depends on the order of their input rows and
   * that are maintained when the call orders them ({@code string_agg(s, ',' ORDER BY s)}): touched
   * groups are recomputed in that order. Whether the order leaves ties that matter is the
   * analysis's to check.
   */
  private static final ImmutableSet<String> ORDERED =
      ImmutableSet.of("string_agg", "listagg", "group_concat", "array_agg", "first", "last");

  /** Aggregates refused for good reason, by lower-case name, with the reason. */
  private static final ImmutableMap<String, String> ORDER_DEPENDENT =
      ImmutableMap.<String, String>builder()
          .put("string_agg", "depends on the order of the rows")
          .put("listagg", "depends on the order of the rows")
          .put("group_concat", "depends on the order of the rows")
          .put("list", "depends on the order of the rows")
          .put("array_agg", "depends on the order of the rows")
          .put("first", "depends on the order of the rows")
          .put("last", "depends on the order of the rows")
          .put("any_value", "depends on the order of the rows")
          .put("arbitrary", "depends on the order of the rows")
          .put("mode", "depends on the order of the rows when values tie")
          .put("arg_min", "depends on the order of the rows when values tie")
          .put("arg_max", "depends on the order of the rows when values tie")
          .put("argmin", "depends on the order of the rows when values tie")
          .put("argmax", "depends on the order of the rows when values tie")
          .put("min_by", "depends on the order of the rows when values tie")
          .put("max_by", "depends on the order of the rows when values tie")
          .buildOrThrow();

  /** The maintained aggregates as users write them, for messages. */
  public static final String NAMES =
      "SUM, COUNT, AVG, MIN, MAX, VAR_POP, VAR_SAMP (variance), STDDEV_POP, STDDEV_SAMP (stddev),"
          + " bool_and, bool_or, approx_count_distinct, "
          + String.join(", ", RECOMPUTED)
          + ", and with an ORDER BY in the call "
          + String.join(", ", ORDERED);

  private MaintainedAggregates() {}

  /** How {@code call} is maintained, if it is. */
  public static Optional<MaintainedAggregate> of(AggregateCall call) {
    if (call.isApproximate() || RECOMPUTED.contains(name(call)) || ordered(call)) {
      return Optional.of(new RecomputedAggregate(call));
    }
    MaintainedAggregate kind = KINDS.get(call.getAggregation().getKind());
    if (kind != null) {
      return Optional.of(kind);
    }
    return Optional.empty();
  }

  /**
   * Whether {@code call} is an aggregate whose value depends on the order of its rows, called with
   * an {@code ORDER BY} ({@link #ORDERED}).
   */
  public static boolean ordered(AggregateCall call) {
    return ORDERED.contains(name(call)) && !call.collation.getFieldCollations().isEmpty();
  }

  /**
   * Why {@code call} will never be maintained as it is (completing "aggregate NAME ..."), or null
   * if there is no such reason.
   */
  public static @Nullable String neverMaintained(AggregateCall call) {
    return ORDER_DEPENDENT.get(name(call));
  }

  private static String name(AggregateCall call) {
    return call.getAggregation().getName().toLowerCase(Locale.ROOT);
  }
}
