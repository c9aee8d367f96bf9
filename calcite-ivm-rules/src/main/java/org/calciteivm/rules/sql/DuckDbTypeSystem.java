package org.calciteivm.rules.sql;

import java.util.Map;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * DuckDB's limits on types: DECIMAL up to precision 38, timestamps in microseconds; and its
 * strings: a union of text of different lengths is VARCHAR, never a blank-padded CHAR (DuckDB pads
 * nothing, so {@code 'b'} padded to {@code 'b '} would be another value).
 */
public final class DuckDbTypeSystem extends RelDataTypeSystemImpl implements EngineTypes {
  /** The type system instance. */
  public static final DuckDbTypeSystem INSTANCE = new DuckDbTypeSystem();

  /**
   * DuckDB's other names of types Calcite writes by a name DuckDB reads as the same type. Left out:
   * the names of types Calcite has no counterpart for (HUGEINT and the unsigned types, which
   * Calcite would cast to as DECIMAL(38, 0); UUID, JSON, lists).
   */
  private static final Map<String, SqlTypeName> TYPE_NAMES =
      Map.ofEntries(
          Map.entry("TEXT", SqlTypeName.VARCHAR),
          Map.entry("STRING", SqlTypeName.VARCHAR),
          Map.entry("BPCHAR", SqlTypeName.VARCHAR),
          Map.entry("INT1", SqlTypeName.TINYINT),
          Map.entry("INT2", SqlTypeName.SMALLINT),
          Map.entry("SHORT", SqlTypeName.SMALLINT),
          Map.entry("INT4", SqlTypeName.INTEGER),
          Map.entry("SIGNED", SqlTypeName.INTEGER),
          Map.entry("INT8", SqlTypeName.BIGINT),
          Map.entry("LONG", SqlTypeName.BIGINT),
          Map.entry("FLOAT4", SqlTypeName.REAL),
          Map.entry("FLOAT8", SqlTypeName.DOUBLE),
          Map.entry("TIMESTAMPTZ", SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE),
          Map.entry("BOOL", SqlTypeName.BOOLEAN),
          Map.entry("LOGICAL", SqlTypeName.BOOLEAN),
          Map.entry("BLOB", SqlTypeName.VARBINARY),
          Map.entry("BYTEA", SqlTypeName.VARBINARY));

  @Override
  public Map<String, SqlTypeName> typeNames() {
    return TYPE_NAMES;
  }

  @Override
  public boolean castsBooleansAndNumbers() {
    return true;
  }

  @Override
  public boolean addsDaysToDates() {
    return true;
  }

  @Override
  public boolean keepsRealBesideExactNumbers() {
    return true;
  }

  @Override
  public boolean takesRemaindersOfApproximateNumbers() {
    return true;
  }

  @Override
  public int getMaxPrecision(SqlTypeName typeName) {
    switch (typeName) {
      case DECIMAL:
        return 38;
      case TIMESTAMP:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
      case TIME:
        return 6;
      default:
        return super.getMaxPrecision(typeName);
    }
  }

  /**
   * DuckDB's type of a sum: {@code HUGEINT} for integers (here {@code DECIMAL(38, 0)}, which holds
   * the same values up to 10^38), {@code DECIMAL(38, s)} for decimals, {@code DOUBLE} for {@code
   * REAL}. Calcite's is the argument's type, and the refresh of a window's sum cast to it: a sum of
   * INTEGERs above 2^31 failed the refresh, one of REALs lost its double precision.
   */
  @Override
  public RelDataType deriveSumType(RelDataTypeFactory types, RelDataType argumentType) {
    SqlTypeName name = argumentType.getSqlTypeName();
    RelDataType sum;
    if (SqlTypeName.INT_TYPES.contains(name)) {
      sum = types.createSqlType(SqlTypeName.DECIMAL, 38, 0);
    } else if (name == SqlTypeName.DECIMAL) {
      sum = types.createSqlType(SqlTypeName.DECIMAL, 38, argumentType.getScale());
    } else if (name == SqlTypeName.REAL) {
      sum = types.createSqlType(SqlTypeName.DOUBLE);
    } else {
      return super.deriveSumType(types, argumentType);
    }
    return types.createTypeWithNullability(sum, argumentType.isNullable());
  }

  /** DuckDB's type of the average of {@code REAL}s: {@code DOUBLE} (Calcite's: {@code REAL}). */
  @Override
  public RelDataType deriveAvgAggType(RelDataTypeFactory types, RelDataType argumentType) {
    return argumentType.getSqlTypeName() == SqlTypeName.REAL
        ? types.createTypeWithNullability(
            types.createSqlType(SqlTypeName.DOUBLE), argumentType.isNullable())
        : super.deriveAvgAggType(types, argumentType);
  }

  @Override
  public int getMaxScale(SqlTypeName typeName) {
    return typeName == SqlTypeName.DECIMAL ? 38 : super.getMaxScale(typeName);
  }

  @Override
  public boolean shouldConvertRaggedUnionTypesToVarying() {
    return true;
  }
}
