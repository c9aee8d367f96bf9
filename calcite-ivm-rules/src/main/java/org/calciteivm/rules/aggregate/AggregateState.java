package org.calciteivm.rules.aggregate;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The state a stored aggregate view keeps per group so that every change is invertible, and the
 * plans that compute it.
 *
 * <p>Per group: the group keys {@code k1..kn}; {@code _ivm_count}, the group's row count (a group
 * exists exactly while it is positive, never because a SUM became 0); and per aggregate {@code ai}:
 * SUM and AVG keep {@code ai_sum} and the non-null count {@code ai_count} (so that a SUM over only
 * NULLs stays NULL), COUNT keeps {@code ai_count}, MIN and MAX keep {@code ai_min}/{@code ai_max}.
 *
 * <p>Identity ({@link #deltaStateAggregate}): counts and sums are linear in the rows, so the state
 * of {@code R + ΔR} is the state of {@code R} plus the state of {@code ΔR} computed with weights:
 * {@code COUNT(*) → SUM(w)}, {@code COUNT(x) → SUM(CASE WHEN x IS NOT NULL THEN w ELSE 0 END)},
 * {@code SUM(x) → SUM(w * x)} (see {@link #weighted}). MIN and MAX are not invertible; their delta
 * state is only used when every weight is positive, where {@code MIN(R + ΔR) = LEAST(MIN(R),
 * MIN(ΔR))}.
 */
public final class AggregateState {
  /** The name of the row-count column of every group. */
  public static final String COUNT_COLUMN = "_ivm_count";

  /** What a state column holds, which decides how a change is merged into it. */
  public enum Kind {
    /** A count: merged by addition. */
    COUNT,
    /** A sum: merged by addition (NULL as zero: the matching count says whether it is NULL). */
    SUM,
    /** A minimum: merged with LEAST, only when nothing was deleted. */
    MIN,
    /** A maximum: merged with GREATEST, only when nothing was deleted. */
    MAX
  }

  /** A state column. */
  public record StateColumn(String name, Kind kind) {}

  /**
   * How one aggregate of the view is computed from the state.
   *
   * @param function the aggregate function
   * @param value the state column with its sum, minimum or maximum, or null for COUNT
   * @param count the state column with its (non-null) row count, or null for MIN and MAX
   */
  public record Output(SqlKind function, @Nullable String value, @Nullable String count) {}

  private final Aggregate aggregate;
  private final ImmutableList<String> keys;
  private final ImmutableList<StateColumn> state;
  private final ImmutableList<Output> outputs;

  private AggregateState(Aggregate aggregate) {
    this.aggregate = aggregate;
    ImmutableList.Builder<String> keys = ImmutableList.builder();
    for (int i = 1; i <= aggregate.getGroupCount(); i++) {
      keys.add("k" + i);
    }
    this.keys = keys.build();
    ImmutableList.Builder<StateColumn> state = ImmutableList.builder();
    ImmutableList.Builder<Output> outputs = ImmutableList.builder();
    state.add(new StateColumn(COUNT_COLUMN, Kind.COUNT));
    int i = 1;
    for (AggregateCall call : aggregate.getAggCallList()) {
      String prefix = "a" + i++;
      SqlKind kind = call.getAggregation().getKind();
      switch (kind) {
        case COUNT:
          state.add(new StateColumn(prefix + "_count", Kind.COUNT));
          outputs.add(new Output(kind, null, prefix + "_count"));
          break;
        case SUM:
        case SUM0:
        case AVG:
          state.add(new StateColumn(prefix + "_sum", Kind.SUM));
          state.add(new StateColumn(prefix + "_count", Kind.COUNT));
          outputs.add(new Output(kind, prefix + "_sum", prefix + "_count"));
          break;
        case MIN:
        case MAX:
          String name = prefix + (kind == SqlKind.MIN ? "_min" : "_max");
          state.add(new StateColumn(name, kind == SqlKind.MIN ? Kind.MIN : Kind.MAX));
          outputs.add(new Output(kind, name, null));
          break;
        default:
          throw new IllegalArgumentException("aggregate " + kind + " has no maintained state");
      }
    }
    this.state = state.build();
    this.outputs = outputs.build();
  }

  /** The state layout of {@code aggregate}, whose calls the view analysis has accepted. */
  public static AggregateState of(Aggregate aggregate) {
    return new AggregateState(aggregate);
  }

  /** The group key columns, {@code k1..kn}; none for an aggregate without GROUP BY. */
  public ImmutableList<String> keys() {
    return keys;
  }

  /** The state columns after the keys, {@link #COUNT_COLUMN} first. */
  public ImmutableList<StateColumn> state() {
    return state;
  }

  /** How each aggregate of the view (in order) is computed from the state. */
  public ImmutableList<Output> outputs() {
    return outputs;
  }

  /** Whether some aggregate is a MIN or MAX, which a delete cannot update in place. */
  public boolean hasMinMax() {
    return state.stream().anyMatch(c -> c.kind() == Kind.MIN || c.kind() == Kind.MAX);
  }

  /** Every column of the stored state, keys first. */
  public ImmutableList<String> columnNames() {
    ImmutableList.Builder<String> names = ImmutableList.builder();
    names.addAll(keys);
    state.forEach(c -> names.add(c.name()));
    return names.build();
  }

  /** The state of every group of {@code input} (the aggregate's input, or a part of it). */
  public RelNode stateAggregate(RelBuilder builder, RelNode input) {
    builder.push(input);
    List<AggCall> calls = new ArrayList<>();
    calls.add(builder.countStar(COUNT_COLUMN));
    int column = 1;
    for (AggregateCall call : aggregate.getAggCallList()) {
      for (AggCall stateCall : stateCalls(builder, call)) {
        calls.add(filtered(builder, call, stateCall.as(state.get(column++).name())));
      }
    }
    return aggregateWithKeys(builder, calls);
  }

  /**
   * The change of every group's state caused by {@code delta}, a Z-set of the aggregate's input
   * whose last column is the weight: one row per group the change touches, with the change of each
   * state column (see the class comment for the identity).
   */
  public RelNode deltaStateAggregate(RelBuilder builder, RelNode delta) {
    int weightIndex = delta.getRowType().getFieldCount() - 1;
    builder.push(delta);
    RexNode weight = builder.field(weightIndex);
    List<AggCall> calls = new ArrayList<>();
    calls.add(builder.sum(weight).as(COUNT_COLUMN));
    int column = 1;
    for (AggregateCall call : aggregate.getAggCallList()) {
      List<RexNode> args = builder.fields(call.getArgList());
      SqlKind kind = call.getAggregation().getKind();
      List<AggCall> deltaCalls = new ArrayList<>();
      switch (kind) {
        case COUNT:
          deltaCalls.add(builder.sum(weightIfNotNull(builder, weight, args)));
          break;
        case SUM:
        case SUM0:
        case AVG:
          deltaCalls.add(builder.sum(weighted(builder, weight, args.get(0))));
          deltaCalls.add(builder.sum(weightIfNotNull(builder, weight, args)));
          break;
        case MIN:
          deltaCalls.add(builder.min(args.get(0)));
          break;
        case MAX:
          deltaCalls.add(builder.max(args.get(0)));
          break;
        default:
          throw new IllegalArgumentException("aggregate " + kind + " has no maintained state");
      }
      for (AggCall deltaCall : deltaCalls) {
        calls.add(filtered(builder, call, deltaCall.as(state.get(column++).name())));
      }
    }
    return aggregateWithKeys(builder, calls);
  }

  /**
   * {@code w * x} for the change of a sum, computed so that it cannot overflow where the stored sum
   * does not: the product is taken in a type at least as wide as DuckDB's SUM of {@code x}, never
   * in {@code x}'s own type. Negating {@code x} in its own type overflows on the type's minimum
   * (the negation of {@code -2147483648} is no INTEGER) and on every positive unsigned value, which
   * left a view that failed on every refresh once such a row was deleted.
   *
   * <p>DuckDB multiplies by the weight, a BIGINT, in the wider of the two types: TINYINT, SMALLINT
   * and INTEGER (and UTINYINT and USMALLINT, which Calcite reads as those) in BIGINT, exact for any
   * value times a weight below 2^32; DECIMAL(p, s) in DECIMAL(38, s); REAL and DOUBLE as
   * themselves. BIGINT (and UINTEGER) is widened first to DECIMAL(38, 0), since a BIGINT product
   * overflows on BIGINT's minimum; a sum of BIGINTs fits in it, and DuckDB adds it to the stored
   * HUGEINT sum exactly. Calcite reads HUGEINT, UBIGINT and UHUGEINT as DECIMAL(38, 0); they are
   * multiplied as they are, which DuckDB does in HUGEINT, HUGEINT and DOUBLE, the types of their
   * sums. So each product's SUM has the type of the stored SUM or one DuckDB converts to it
   * exactly, and the stored state keeps its types.
   *
   * <p>The one value that still overflows is HUGEINT's minimum, -2^127, deleted (times -1): its
   * change, 2^127, is no HUGEINT, and DuckDB has no wider exact type to sum in. Such a refresh
   * fails with DuckDB's overflow error and changes nothing.
   */
  private static RexNode weighted(RelBuilder builder, RexNode weight, RexNode x) {
    RexNode factor = x;
    if (x.getType().getSqlTypeName() == SqlTypeName.BIGINT) {
      RelDataType wide =
          builder
              .getTypeFactory()
              .createTypeWithNullability(
                  builder.getTypeFactory().createSqlType(SqlTypeName.DECIMAL, 38, 0),
                  x.getType().isNullable());
      factor = builder.getRexBuilder().makeAbstractCast(wide, x, false);
    }
    return builder.call(SqlStdOperatorTable.MULTIPLY, factor, weight);
  }

  /** {@code w} where every argument is non-null, else 0: the weight a COUNT sees. */
  private static RexNode weightIfNotNull(RelBuilder builder, RexNode weight, List<RexNode> args) {
    if (args.isEmpty()) {
      return weight;
    }
    List<RexNode> notNull = new ArrayList<>();
    for (RexNode arg : args) {
      notNull.add(builder.isNotNull(arg));
    }
    return builder.call(
        SqlStdOperatorTable.CASE,
        builder.and(notNull),
        weight,
        builder.getRexBuilder().makeZeroLiteral(weight.getType()));
  }

  private static List<AggCall> stateCalls(RelBuilder builder, AggregateCall call) {
    List<RexNode> args = builder.fields(call.getArgList());
    switch (call.getAggregation().getKind()) {
      case COUNT:
        return List.of(builder.count(false, null, args));
      case SUM:
      case SUM0:
      case AVG:
        return List.of(builder.sum(args.get(0)), builder.count(false, null, args));
      case MIN:
        return List.of(builder.min(args.get(0)));
      case MAX:
        return List.of(builder.max(args.get(0)));
      default:
        throw new IllegalArgumentException("aggregate " + call + " has no maintained state");
    }
  }

  /** {@code stateCall} restricted by the aggregate's FILTER clause, if it has one. */
  private static AggCall filtered(RelBuilder builder, AggregateCall call, AggCall stateCall) {
    return call.filterArg < 0 ? stateCall : stateCall.filter(builder.field(call.filterArg));
  }

  /** Groups the builder's top by the aggregate's keys, named {@code k1..kn}. */
  private RelNode aggregateWithKeys(RelBuilder builder, List<AggCall> calls) {
    builder.aggregate(builder.groupKey(aggregate.getGroupSet()), calls);
    builder.project(builder.fields(), columnNames(), true);
    return builder.build();
  }
}
