package org.calciteivm.rules.frontend;

import java.util.List;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeSystem;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.calciteivm.rules.sql.EngineTypes;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Calcite's type factory with the engine's rule for the common type of several: where the engine
 * keeps REAL beside exact numbers ({@link EngineTypes#keepsRealBesideExactNumbers}), {@code
 * DECIMAL} or {@code INTEGER} with {@code REAL} is {@code REAL}, as the engine types a union of
 * them, not Calcite's {@code DOUBLE}.
 */
final class EngineTypeFactory extends JavaTypeFactoryImpl {
  private EngineTypeFactory(RelDataTypeSystem typeSystem) {
    super(typeSystem);
  }

  /** The type factory of {@code typeSystem}: this one if it is an engine's that needs it. */
  static JavaTypeFactoryImpl of(RelDataTypeSystem typeSystem) {
    return typeSystem instanceof EngineTypes engine && engine.keepsRealBesideExactNumbers()
        ? new EngineTypeFactory(typeSystem)
        : new JavaTypeFactoryImpl(typeSystem);
  }

  @Override
  public @Nullable RelDataType leastRestrictive(List<RelDataType> types) {
    RelDataType common = super.leastRestrictive(types);
    if (common == null
        || common.getSqlTypeName() != SqlTypeName.DOUBLE
        || types.stream().noneMatch(t -> t.getSqlTypeName() == SqlTypeName.REAL)) {
      return common;
    }
    for (RelDataType type : types) {
      boolean exact = SqlTypeUtil.isExactNumeric(type) || type.getSqlTypeName() == SqlTypeName.NULL;
      if (type.getSqlTypeName() != SqlTypeName.REAL && !exact) {
        return common; // a DOUBLE among them, or another approximate type
      }
    }
    return createTypeWithNullability(createSqlType(SqlTypeName.REAL), common.isNullable());
  }
}
