package org.calciteivm.rules.frontend;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.type.InferTypes;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql.validate.SqlValidatorScope;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A binary operator of the engine's arithmetic that Calcite's own operator refuses or types
 * otherwise ({@link DateArithmetic}, {@link ApproximateRemainders}). A parsed view's calls of
 * {@code standard} are made calls of it before validation; validated over operands the engine types
 * itself ({@link #engineType}) it stays, opaque to the rules, and is written back as written, so
 * the engine computes it; over any others it becomes {@code standard} again, and Calcite's types
 * and conversions are as before.
 */
abstract class EngineBinaryOperator extends SqlBinaryOperator {
  private final SqlOperator standard;

  EngineBinaryOperator(String name, int precedence, SqlOperator standard) {
    super(name, SqlKind.OTHER, precedence, true, null, InferTypes.FIRST_KNOWN, null);
    this.standard = standard;
  }

  /** Calcite's operator it stands for. */
  final SqlOperator standard() {
    return standard;
  }

  /**
   * The engine's type of this operator over {@code left} and {@code right}; null where it is {@link
   * #standard()}'s to type.
   */
  abstract @Nullable RelDataType engineType(
      RelDataTypeFactory types, RelDataType left, RelDataType right);

  @Override
  public final RelDataType deriveType(
      SqlValidator validator, SqlValidatorScope scope, SqlCall call) {
    RelDataType left = validator.deriveType(scope, call.operand(0));
    RelDataType right = validator.deriveType(scope, call.operand(1));
    RelDataType engine = engineType(validator.getTypeFactory(), left, right);
    if (engine != null) {
      return engine;
    }
    ((SqlBasicCall) call).setOperator(standard);
    return standard.deriveType(validator, scope, call);
  }

  @Override
  public final RelDataType inferReturnType(SqlOperatorBinding binding) {
    RelDataType engine =
        engineType(binding.getTypeFactory(), binding.getOperandType(0), binding.getOperandType(1));
    if (engine == null) {
      throw new IllegalStateException(
          getName() + " is not the engine's over " + binding.collectOperandTypes());
    }
    return engine;
  }
}
