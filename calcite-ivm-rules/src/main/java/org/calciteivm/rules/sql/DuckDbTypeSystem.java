package org.calciteivm.rules.sql;

import org.apache.calcite.rel.type.RelDataTypeSystemImpl;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * DuckDB's limits on types: DECIMAL up to precision 38, timestamps in microseconds; and its
 * strings: a union of text of different lengths is VARCHAR, never a blank-padded CHAR (DuckDB pads
 * nothing, so {@code 'b'} padded to {@code 'b '} would be another value).
 */
public final class DuckDbTypeSystem extends RelDataTypeSystemImpl {
  /** The type system instance. */
  public static final DuckDbTypeSystem INSTANCE = new DuckDbTypeSystem();

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

  @Override
  public int getMaxScale(SqlTypeName typeName) {
    return typeName == SqlTypeName.DECIMAL ? 38 : super.getMaxScale(typeName);
  }

  @Override
  public boolean shouldConvertRaggedUnionTypesToVarying() {
    return true;
  }
}
