package org.calciteivm.rules.analysis;

import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.avatica.util.TimeUnitRange;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Which expressions have a value that depends on the session's {@code TimeZone} setting.
 *
 * <p>A {@code TIMESTAMP WITH TIME ZONE} (Calcite's {@code TIMESTAMP WITH LOCAL TIME ZONE}) is an
 * instant; DuckDB turns it into local time, and local time into it, in the session's time zone: a
 * cast to {@code DATE}, {@code hour(tz)}, {@code date_trunc('day', tz)}, {@code strftime}, adding
 * an interval of days, or reading {@code '2024-01-01'} or a {@code TIMESTAMP} as an instant. The
 * session's zone can differ between the refresh that added a row and the one that deletes it, so
 * the delete's delta computes another value than the one stored and the row stays: such a view is
 * not a function of its base tables.
 *
 * <p>What does not depend on it: a zoned column as it is (selected, grouped, joined on, MIN, MAX,
 * COUNT), comparisons of two instants, {@code IS [NOT] NULL}, {@code CASE}/{@code COALESCE}/{@code
 * NULLIF}/{@code GREATEST}/{@code LEAST} that only pass instants through, casts between zoned
 * types, {@code EXTRACT(EPOCH FROM x)} and the epoch functions ({@code epoch}, {@code epoch_ms},
 * {@code epoch_us}, {@code epoch_ns}) and {@code timezone('zone', x)} with the zone written out.
 * Everything else that takes or produces a zoned value is treated as depending on it, including
 * zoned literals, whose text DuckDB reads in the session's zone.
 *
 * <p>Limits: only what Calcite types as zoned is seen (and {@code timezone('zone', x)} of a local
 * {@code x}). DuckDB's {@code TIME WITH TIME ZONE} and {@code TIMESTAMP_NS WITH TIME ZONE} columns
 * (Calcite reads them as {@code ANY}), and other DuckDB functions that return an instant only for
 * some arguments (such as {@code strptime} with {@code %z}), are not recognized as zoned.
 */
final class SessionTimeZone {
  private SessionTimeZone() {}

  /** Functions of an instant that read no time zone: seconds (etc.) since the epoch. */
  private static final Set<String> EPOCH_FUNCTIONS =
      Set.of("epoch", "epoch_ms", "epoch_us", "epoch_ns");

  /** Whether {@code type} is a time-zone-aware type. */
  static boolean zoned(RelDataType type) {
    SqlTypeName name = type.getSqlTypeName();
    return name == SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE
        || name == SqlTypeName.TIME_WITH_LOCAL_TIME_ZONE
        || name == SqlTypeName.TIMESTAMP_TZ
        || name == SqlTypeName.TIME_TZ;
  }

  /**
   * Whether {@code node}'s value is zoned: of a zoned type, or DuckDB's {@code timezone('zone', x)}
   * of a local {@code x}, an instant that Calcite types {@code ANY} (the function's overloads
   * return several types), so that what is done with it next is checked too.
   */
  static boolean zonedValue(RexNode node) {
    if (zoned(node.getType())) {
      return true;
    }
    return node instanceof RexCall call
        && call.getOperands().size() == 2
        && call.getOperator().getName().equalsIgnoreCase("timezone")
        && !zonedValue(call.getOperands().get(1));
  }

  /** Whether {@code literal} is a zoned value written as text (a zoned NULL reads no zone). */
  static boolean zonedLiteral(RexLiteral literal) {
    return zoned(literal.getType()) && !literal.isNull();
  }

  /** Whether the value of {@code call} (not of its operands) depends on the session's zone. */
  static boolean dependsOnTimeZone(RexCall call) {
    List<RexNode> operands = call.getOperands();
    boolean takesZoned = operands.stream().anyMatch(SessionTimeZone::zonedValue);
    boolean givesZoned = zonedValue(call);
    if (!takesZoned && !givesZoned) {
      return false;
    }
    switch (call.getKind()) {
      case EQUALS:
      case NOT_EQUALS:
      case LESS_THAN:
      case LESS_THAN_OR_EQUAL:
      case GREATER_THAN:
      case GREATER_THAN_OR_EQUAL:
      case IS_DISTINCT_FROM:
      case IS_NOT_DISTINCT_FROM:
        // two instants compare the same in every zone; against anything else, DuckDB converts
        return !operands.stream().allMatch(SessionTimeZone::instant);
      case IS_NULL:
      case IS_NOT_NULL:
        return false;
      case EXTRACT:
        // EXTRACT(EPOCH FROM tz) counts seconds since the epoch, in no zone
        return !(operands.get(0) instanceof RexLiteral unit
            && unit.getValue() instanceof TimeUnitRange range
            && range == TimeUnitRange.EPOCH);
      case CAST:
        return !(isNull(operands.get(0)) || (takesZoned && givesZoned));
      case CASE:
        // CASE WHEN c1 THEN v1 ... ELSE e END: only the values pass through
        for (int i = 0; i < operands.size(); i++) {
          boolean value = i % 2 == 1 || i == operands.size() - 1;
          if (value && !(instant(operands.get(i)) || isNull(operands.get(i)))) {
            return true;
          }
        }
        return !givesZoned;
      case COALESCE:
      case NULLIF:
      case GREATEST:
      case LEAST:
      case GREATEST_PG:
      case LEAST_PG:
        return !(givesZoned && operands.stream().allMatch(o -> instant(o) || isNull(o)));
      default:
        break;
    }
    String name = call.getOperator().getName().toLowerCase(Locale.ROOT);
    if (EPOCH_FUNCTIONS.contains(name)) {
      return givesZoned;
    }
    if (name.equals("timezone") && operands.size() == 2) {
      // timezone('UTC', x) names the zone it converts in
      return !(operands.get(0) instanceof RexLiteral zone
          && !zone.isNull()
          && SqlTypeFamily.CHARACTER.contains(zone.getType()));
    }
    return true;
  }

  /**
   * A zoned value that was never local time or text: not a zoned literal, nor a cast to a zoned
   * type from another (such as the one Calcite adds to compare {@code tz > '2024-01-01'}).
   */
  private static boolean instant(RexNode node) {
    if (!zonedValue(node)) {
      return false;
    }
    if (node instanceof RexLiteral literal) {
      return !zonedLiteral(literal);
    }
    return !(node instanceof RexCall cast
        && cast.getKind() == SqlKind.CAST
        && !zonedValue(cast.getOperands().get(0))
        && !isNull(cast.getOperands().get(0)));
  }

  private static boolean isNull(RexNode node) {
    return node instanceof RexLiteral literal && literal.isNull();
  }
}
