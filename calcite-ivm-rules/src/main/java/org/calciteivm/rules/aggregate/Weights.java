package org.calciteivm.rules.aggregate;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.RelBuilder;

/** How a row's weight enters the change of a count or a sum. */
final class Weights {
  private Weights() {}

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
  static RexNode weighted(RelBuilder builder, RexNode weight, RexNode x) {
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
  static RexNode ifNotNull(RelBuilder builder, RexNode weight, List<RexNode> args) {
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

  /**
   * {@code x} in the rows whose weight has the sign of {@code positive} ({@code w > 0} or {@code w
   * < 0}), NULL in the others.
   */
  static RexNode onlyWhere(RelBuilder builder, RexNode weight, boolean positive, RexNode x) {
    RexNode zero = builder.literal(0);
    return builder.call(
        SqlStdOperatorTable.CASE,
        positive ? builder.greaterThan(weight, zero) : builder.lessThan(weight, zero),
        x,
        builder.getRexBuilder().makeNullLiteral(x.getType()));
  }

  /** {@code CASE WHEN count = 0 THEN NULL ELSE value END}: no value over no non-null row. */
  static RexNode nullWhenNone(RelBuilder builder, RexNode count, RexNode value) {
    return builder.call(
        SqlStdOperatorTable.CASE,
        builder.equals(count, builder.literal(0)),
        builder.getRexBuilder().makeNullLiteral(value.getType()),
        value);
  }
}
