package org.calciteivm.rules.frontend;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * DuckDB's arithmetic of dates and days, which Calcite's {@code +} and {@code -} refuse: {@code
 * DATE + INTEGER} and {@code INTEGER + DATE} are the date that many days later, {@code DATE -
 * INTEGER} the date that many days earlier, and {@code DATE - DATE} the number of days between
 * them, a BIGINT.
 *
 * <p>Every {@code +} and {@code -} of a parsed view is made one of this class's operators before
 * validation ({@link #days}); validated, each one that is not over a date and days is Calcite's own
 * again, so that numbers, intervals and Calcite's conversions of them are as before. The others
 * stay calls of these operators in the plan, opaque to the rules, and are written back as they were
 * written: DuckDB computes them.
 */
final class DateArithmetic {
  private DateArithmetic() {}

  /** {@code +} of a date and days. */
  static final SqlBinaryOperator PLUS = new DayOperator(SqlStdOperatorTable.PLUS);

  /** {@code -} of days from a date, or of two dates. */
  static final SqlBinaryOperator MINUS = new DayOperator(SqlStdOperatorTable.MINUS);

  /** {@code parsed} with its {@code +} and {@code -} made {@link #PLUS} and {@link #MINUS}. */
  static SqlNode days(SqlNode parsed) {
    parsed.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public @Nullable Void visit(SqlCall call) {
            if (call instanceof SqlBasicCall basic) {
              if (call.getOperator() == SqlStdOperatorTable.PLUS) {
                basic.setOperator(PLUS);
              } else if (call.getOperator() == SqlStdOperatorTable.MINUS) {
                basic.setOperator(MINUS);
              }
            }
            return super.visit(call);
          }
        });
    return parsed;
  }

  /**
   * The type of {@code left op right} where it is arithmetic of a date and days, as DuckDB types
   * it; null where it is not.
   */
  private static @Nullable RelDataType dayType(
      RelDataTypeFactory types, boolean plus, RelDataType left, RelDataType right) {
    boolean leftDate = left.getSqlTypeName() == SqlTypeName.DATE;
    boolean rightDate = right.getSqlTypeName() == SqlTypeName.DATE;
    boolean nullable = left.isNullable() || right.isNullable();
    SqlTypeName result;
    if (leftDate && SqlTypeUtil.isExactNumeric(right) && SqlTypeUtil.isIntType(right)) {
      result = SqlTypeName.DATE;
    } else if (plus && rightDate && SqlTypeUtil.isIntType(left)) {
      result = SqlTypeName.DATE;
    } else if (!plus && leftDate && rightDate) {
      result = SqlTypeName.BIGINT;
    } else {
      return null;
    }
    return types.createTypeWithNullability(types.createSqlType(result), nullable);
  }

  /**
   * {@code +} or {@code -}: of a date and days as DuckDB computes it, else Calcite's own operator,
   * which it becomes when it is validated.
   */
  private static final class DayOperator extends EngineBinaryOperator {
    DayOperator(SqlBinaryOperator standard) {
      super(standard.getName(), standard.getLeftPrec(), standard);
    }

    @Override
    @Nullable RelDataType engineType(
        RelDataTypeFactory types, RelDataType left, RelDataType right) {
      return dayType(types, standard() == SqlStdOperatorTable.PLUS, left, right);
    }
  }
}
