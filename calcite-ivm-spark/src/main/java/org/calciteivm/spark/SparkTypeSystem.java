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
}
