package org.calciteivm.rules;

import java.util.Map;
import org.apache.calcite.rel.type.DelegatingTypeSystem;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystem;
import org.apache.calcite.sql.type.SqlTypeName;
import org.calciteivm.rules.sql.DuckDbTypeSystem;
import org.calciteivm.rules.sql.EngineTypes;

/**
 * DuckDB's type system with Calcite's types of sums and averages, for plans that Calcite's
 * enumerable engine runs: it sums in the argument's type only ({@code SUM} of INTEGERs typed {@code
 * DECIMAL(38, 0)}, as DuckDB's {@code HUGEINT}, does not compile there). The rules do not depend on
 * those types; the SQL they write for DuckDB does, and the scenario tests check it.
 */
final class EnumerableTypeSystem extends DelegatingTypeSystem implements EngineTypes {
  static final EnumerableTypeSystem INSTANCE = new EnumerableTypeSystem();

  private EnumerableTypeSystem() {
    super(DuckDbTypeSystem.INSTANCE);
  }

  @Override
  public RelDataType deriveSumType(RelDataTypeFactory types, RelDataType argumentType) {
    return RelDataTypeSystem.DEFAULT.deriveSumType(types, argumentType);
  }

  @Override
  public RelDataType deriveAvgAggType(RelDataTypeFactory types, RelDataType argumentType) {
    return RelDataTypeSystem.DEFAULT.deriveAvgAggType(types, argumentType);
  }

  @Override
  public Map<String, SqlTypeName> typeNames() {
    return DuckDbTypeSystem.INSTANCE.typeNames();
  }

  @Override
  public boolean castsBooleansAndNumbers() {
    return DuckDbTypeSystem.INSTANCE.castsBooleansAndNumbers();
  }

  @Override
  public boolean addsDaysToDates() {
    return DuckDbTypeSystem.INSTANCE.addsDaysToDates();
  }

  @Override
  public boolean keepsRealBesideExactNumbers() {
    return DuckDbTypeSystem.INSTANCE.keepsRealBesideExactNumbers();
  }

  @Override
  public boolean takesRemaindersOfApproximateNumbers() {
    return DuckDbTypeSystem.INSTANCE.takesRemaindersOfApproximateNumbers();
  }
}
