package org.calciteivm.jdbc.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.StructKind;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * Maps DuckDB column types, as {@code duckdb_columns()} spells them, to Calcite types.
 *
 * <p>A {@code STRUCT} is a record type whose fields are read as {@code s.a} or {@code t.s.a}, as in
 * DuckDB. Types Calcite has no faithful counterpart for (lists, maps, UUID, INTERVAL, ...) become
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
    if (type.startsWith("STRUCT(") && type.endsWith(")")) {
      return struct(factory, duckDbType.trim());
    }
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

  /**
   * The record type of {@code STRUCT(a INTEGER, "b c" VARCHAR[], ...)}; its fields are nullable, as
   * DuckDB's are. Fields keep the case DuckDB spells them in.
   */
  private static RelDataType struct(RelDataTypeFactory factory, String structType) {
    List<String> names = new ArrayList<>();
    List<RelDataType> types = new ArrayList<>();
    for (String field : topLevelParts(structType.substring(7, structType.length() - 1))) {
      String name;
      String fieldType;
      if (field.startsWith("\"")) {
        int close = closingQuote(field);
        name = field.substring(1, close).replace("\"\"", "\"");
        fieldType = field.substring(close + 1);
      } else {
        int space = field.indexOf(' ');
        name = field.substring(0, Math.max(space, 0));
        fieldType = field.substring(space + 1);
      }
      names.add(name);
      types.add(toCalcite(factory, fieldType, true));
    }
    return factory.createStructType(StructKind.PEEK_FIELDS_NO_EXPAND, types, names);
  }

  /** The comma-separated parts of {@code list} outside parentheses and quotes, trimmed. */
  private static List<String> topLevelParts(String list) {
    List<String> parts = new ArrayList<>();
    int depth = 0;
    boolean quoted = false;
    int start = 0;
    for (int i = 0; i < list.length(); i++) {
      char c = list.charAt(i);
      if (c == '"') {
        quoted = !quoted;
      } else if (!quoted && c == '(') {
        depth++;
      } else if (!quoted && c == ')') {
        depth--;
      } else if (!quoted && depth == 0 && c == ',') {
        parts.add(list.substring(start, i).trim());
        start = i + 1;
      }
    }
    parts.add(list.substring(start).trim());
    return parts;
  }

  /** The position of the quote that closes the quoted name {@code field} starts with. */
  private static int closingQuote(String field) {
    int i = 1;
    while (i < field.length()) {
      if (field.charAt(i) == '"') {
        if (i + 1 < field.length() && field.charAt(i + 1) == '"') {
          i += 2;
          continue;
        }
        return i;
      }
      i++;
    }
    return field.length() - 1;
  }
}
