package org.calciteivm.spark;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Spark's numeric types as Calcite types them: decimals of up to 38 digits, and the sum of a {@code
 * DECIMAL(p, s)} a {@code DECIMAL(p + 10, s)}, as Spark computes it, so that the casts Calcite
 * writes do not narrow what Spark computed (Spark's ANSI mode fails on overflow).
 */
final class SparkTypeSystem extends RelDataTypeSystemImpl {
  static final SparkTypeSystem INSTANCE = new SparkTypeSystem();

  private SparkTypeSystem() {}

  @Override
  public int getMaxPrecision(SqlTypeName typeName) {
    return typeName == SqlTypeName.DECIMAL ? 38 : super.getMaxPrecision(typeName);
  }

  @Override
  public int getMaxScale(SqlTypeName typeName) {
    return typeName == SqlTypeName.DECIMAL ? 38 : super.getMaxScale(typeName);
  }

  @Override
  public RelDataType deriveSumType(RelDataTypeFactory types, RelDataType argumentType) {
    if (argumentType.getSqlTypeName() == SqlTypeName.DECIMAL) {
      return types.createTypeWithNullability(
          types.createSqlType(
              SqlTypeName.DECIMAL,
              Math.min(38, argumentType.getPrecision() + 10),
              argumentType.getScale()),
          argumentType.isNullable());
    }
    if (SqlTypeName.INT_TYPES.contains(argumentType.getSqlTypeName())) {
      return types.createTypeWithNullability(
          types.createSqlType(SqlTypeName.BIGINT), argumentType.isNullable());
    }
    return super.deriveSumType(types, argumentType);
  }

  @Override
  public RelDataType deriveAvgAggType(RelDataTypeFactory types, RelDataType argumentType) {
    RelDataType type =
        argumentType.getSqlTypeName() == SqlTypeName.DECIMAL
            ? decimal(types, argumentType.getPrecision() + 4, argumentType.getScale() + 4)
            : types.createSqlType(SqlTypeName.DOUBLE);
    return types.createTypeWithNullability(type, argumentType.isNullable());
  }

  @Override
  public RelDataType deriveDecimalPlusType(
      RelDataTypeFactory types, RelDataType left, RelDataType right) {
    if (!bothDecimal(left, right)) {
      return super.deriveDecimalPlusType(types, left, right);
    }
    int scale = Math.max(left.getScale(), right.getScale());
    int integral =
        Math.max(left.getPrecision() - left.getScale(), right.getPrecision() - right.getScale());
    return decimal(types, integral + scale + 1, scale);
  }

  @Override
  public RelDataType deriveDecimalMultiplyType(
      RelDataTypeFactory types, RelDataType left, RelDataType right) {
    if (!bothDecimal(left, right)) {
      return super.deriveDecimalMultiplyType(types, left, right);
    }
    return decimal(
        types, left.getPrecision() + right.getPrecision() + 1, left.getScale() + right.getScale());
  }

  @Override
  public RelDataType deriveDecimalDivideType(
      RelDataTypeFactory types, RelDataType left, RelDataType right) {
    if (!bothDecimal(left, right)) {
      return super.deriveDecimalDivideType(types, left, right);
    }
    int scale = Math.max(6, left.getScale() + right.getPrecision() + 1);
    return decimal(types, left.getPrecision() - left.getScale() + right.getScale() + scale, scale);
  }

  private static boolean bothDecimal(RelDataType left, RelDataType right) {
    return left.getSqlTypeName() == SqlTypeName.DECIMAL
        && right.getSqlTypeName() == SqlTypeName.DECIMAL;
  }

  /** {@code DECIMAL(precision, scale)} as Spark bounds it: past 38 digits, scale is given up. */
  private static RelDataType decimal(RelDataTypeFactory types, int precision, int scale) {
    if (precision <= 38) {
      return types.createSqlType(SqlTypeName.DECIMAL, precision, scale);
    }
    int integral = precision - scale;
    int kept = Math.max(38 - integral, Math.min(scale, 6));
    return types.createSqlType(SqlTypeName.DECIMAL, 38, kept);
  }
}
