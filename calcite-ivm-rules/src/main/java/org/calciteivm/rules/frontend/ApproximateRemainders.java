package org.calciteivm.rules.frontend;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlUnresolvedFunction;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The remainder of approximate numbers as DuckDB computes it: {@code x % y} and {@code MOD(x, y)}
 * where {@code x} or {@code y} is a DOUBLE or REAL is C's {@code fmod} in that type (DOUBLE if
 * either is, else REAL). Calcite's MOD takes exact numbers only, so it would cast a DOUBLE to
 * DECIMAL and compute other values than DuckDB stores, and the deletes of a refresh would miss the
 * stored rows.
 *
 * <p>Every {@code %} and {@code MOD} of a parsed view is made one of this class's operators before
 * validation ({@link #remainders}); validated, each one over exact numbers is Calcite's own again.
 * The others stay calls of these operators in the plan, opaque to the rules, and are written back
 * as {@code x % y}: DuckDB computes them, as it does when it recomputes the view.
 */
final class ApproximateRemainders {
  private ApproximateRemainders() {}

  /** {@code x % y}. */
  static final SqlBinaryOperator PERCENT =
      new RemainderOperator(SqlStdOperatorTable.PERCENT_REMAINDER);

  /** {@code MOD(x, y)}. */
  static final SqlBinaryOperator MOD = new RemainderOperator(SqlStdOperatorTable.MOD);

  /** {@code parsed} with its {@code %} and {@code MOD} made {@link #PERCENT} and {@link #MOD}. */
  static SqlNode remainders(SqlNode parsed) {
    parsed.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public @Nullable Void visit(SqlCall call) {
            if (call instanceof SqlBasicCall basic && call.operandCount() == 2) {
              if (call.getOperator() == SqlStdOperatorTable.PERCENT_REMAINDER) {
                basic.setOperator(PERCENT);
              } else if (call.getOperator() == SqlStdOperatorTable.MOD
                  || (call.getOperator() instanceof SqlUnresolvedFunction function
                      && function.getName().equalsIgnoreCase("MOD"))) {
                basic.setOperator(MOD);
              }
            }
            return super.visit(call);
          }
        });
    return parsed;
  }

  /**
   * The type of the remainder of {@code left} and {@code right} where one of them is approximate,
   * as DuckDB types it; null where both are exact (or not numbers).
   */
  private static @Nullable RelDataType approximateType(
      RelDataTypeFactory types, RelDataType left, RelDataType right) {
    boolean doubles = isDouble(left) || isDouble(right);
    boolean reals = isReal(left) || isReal(right);
    if (!doubles && !reals) {
      return null;
    }
    RelDataType type = types.createSqlType(doubles ? SqlTypeName.DOUBLE : SqlTypeName.REAL);
    return types.createTypeWithNullability(type, left.isNullable() || right.isNullable());
  }

  private static boolean isDouble(RelDataType type) {
    return type.getSqlTypeName() == SqlTypeName.DOUBLE
        || type.getSqlTypeName() == SqlTypeName.FLOAT;
  }

  private static boolean isReal(RelDataType type) {
    return type.getSqlTypeName() == SqlTypeName.REAL;
  }

  /**
   * {@code %} or {@code MOD}: of approximate numbers as DuckDB computes it, written {@code x % y};
   * else Calcite's own operator, which it becomes when it is validated.
   */
  private static final class RemainderOperator extends EngineBinaryOperator {
    RemainderOperator(SqlOperator standard) {
      super("%", SqlStdOperatorTable.PERCENT_REMAINDER.getLeftPrec(), standard);
    }

    @Override
    @Nullable RelDataType engineType(
        RelDataTypeFactory types, RelDataType left, RelDataType right) {
      return approximateType(types, left, right);
    }
  }
}
