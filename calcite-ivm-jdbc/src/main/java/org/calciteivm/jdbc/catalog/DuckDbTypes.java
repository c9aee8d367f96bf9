package org.calciteivm.jdbc.catalog;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Maps DuckDB column types, as {@code duckdb_columns()} spells them, to Calcite types.
 *
 * <p>Types Calcite has no faithful counterpart for (nested types, UUID, INTERVAL, ...) become
 * {@code ANY}: a view may pass such a column through, and DuckDB computes every expression anyway.
 */
public final class DuckDbTypes {
  private static final Pattern DECIMAL = Pattern.compile("DECIMAL\\((\\d+),\\s*(\\d+)\\)");

  private DuckDbTypes() {}

  /** The Calcite type of a DuckDB column of type {@code duckDbType}. */
  public static RelDataType toCalcite(
      RelDataTypeFactory factory, String duckDbType, boolean nullable) {
    return factory.createTypeWithNullability(toCalcite(factory, duckDbType), nullable);
  }

  private static RelDataType toCalcite(RelDataTypeFactory factory, String duckDbType) {
    String type = duckDbType.trim().toUpperCase(Locale.ROOT);
    Matcher decimal = DECIMAL.matcher(type);
    if (decimal.matches()) {
      return factory.createSqlType(
          SqlTypeName.DECIMAL,
          Integer.parseInt(decimal.group(1)),
          Integer.parseInt(decimal.group(2)));
    }
    switch (type) {
      case "BOOLEAN":
        return factory.createSqlType(SqlTypeName.BOOLEAN);
      case "TINYINT":
        return factory.createSqlType(SqlTypeName.TINYINT);
      case "SMALLINT":
      case "UTINYINT":
        return factory.createSqlType(SqlTypeName.SMALLINT);
      case "INTEGER":
      case "USMALLINT":
        return factory.createSqlType(SqlTypeName.INTEGER);
      case "BIGINT":
      case "UINTEGER":
        return factory.createSqlType(SqlTypeName.BIGINT);
      case "HUGEINT":
      case "UBIGINT":
      case "UHUGEINT":
        return factory.createSqlType(SqlTypeName.DECIMAL, 38, 0);
      case "FLOAT":
        return factory.createSqlType(SqlTypeName.REAL);
      case "DOUBLE":
        return factory.createSqlType(SqlTypeName.DOUBLE);
      case "VARCHAR":
        return factory.createSqlType(SqlTypeName.VARCHAR);
      case "BLOB":
        return factory.createSqlType(SqlTypeName.VARBINARY);
      case "DATE":
        return factory.createSqlType(SqlTypeName.DATE);
      case "TIME":
        return factory.createSqlType(SqlTypeName.TIME);
      case "TIMESTAMP":
        return factory.createSqlType(SqlTypeName.TIMESTAMP, 6);
      case "TIMESTAMP_S":
        return factory.createSqlType(SqlTypeName.TIMESTAMP, 0);
      case "TIMESTAMP_MS":
        return factory.createSqlType(SqlTypeName.TIMESTAMP, 3);
      case "TIMESTAMP WITH TIME ZONE":
        return factory.createSqlType(SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE, 6);
      default:
        return factory.createSqlType(SqlTypeName.ANY);
    }
  }
}
