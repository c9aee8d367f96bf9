package org.calciteivm.rules.aggregate;

import com.google.common.collect.ImmutableMap;
import java.util.Optional;
import org.apache.calcite.sql.SqlKind;

/** The aggregate kinds calcite-ivm maintains, by Calcite's kind of the aggregate function. */
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

  /** The maintained aggregates as users write them, for messages. */
  public static final String NAMES =
      "SUM, COUNT, AVG, MIN, MAX, VAR_POP, VAR_SAMP (variance), STDDEV_POP, STDDEV_SAMP (stddev)";

  private MaintainedAggregates() {}

  /** How an aggregate function of {@code kind} is maintained, if it is. */
  public static Optional<MaintainedAggregate> of(SqlKind kind) {
    return Optional.ofNullable(KINDS.get(kind));
  }
}
