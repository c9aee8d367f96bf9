package org.calciteivm.rules.sql;

import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDialect;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.dialect.DuckDBSqlDialect;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Calcite's DuckDB dialect with three fixes for the SQL calcite-ivm sends to DuckDB.
 *
 * <ul>
 *   <li>Character types are written without a character set: DuckDB rejects {@code VARCHAR
 *       CHARACTER SET "ISO-8859-1"}.
 *   <li>Timestamps are written without a precision: DuckDB reads {@code TIMESTAMP(0)} as seconds
 *       precision and silently truncates, while its {@code TIMESTAMP} keeps microseconds.
 *   <li>A cast to the type of an untyped {@code NULL} (a {@code VALUES} column of NULLs only),
 *       which has no type name, is written as the bare {@code NULL}; DuckDB types it from where it
 *       is used, as it types the user's query.
 * </ul>
 */
public class IvmDuckDbDialect extends DuckDBSqlDialect {
  /** The dialect instance; stateless. */
  public static final SqlDialect INSTANCE = new IvmDuckDbDialect(DuckDBSqlDialect.DEFAULT_CONTEXT);

  /** Creates a dialect; use {@link #INSTANCE} unless the context must differ. */
  public IvmDuckDbDialect(Context context) {
    super(context);
  }

  @Override
  public @Nullable SqlNode getCastSpec(RelDataType type) {
    SqlTypeName name = type.getSqlTypeName();
    switch (name) {
      case CHAR:
      case VARCHAR:
        return spec(SqlTypeName.VARCHAR);
      case TIMESTAMP:
        return spec(SqlTypeName.TIMESTAMP);
      default:
        return super.getCastSpec(type);
    }
  }

  @Override
  public void unparseCall(SqlWriter writer, SqlCall call, int leftPrec, int rightPrec) {
    if (call.getKind() == SqlKind.CAST
        && call.operandCount() == 2
        && call.operand(1) == null
        && call.operand(0) instanceof SqlLiteral literal
        && literal.getValue() == null) {
      writer.keyword("NULL");
      return;
    }
    super.unparseCall(writer, call, leftPrec, rightPrec);
  }

  private static SqlNode spec(SqlTypeName name) {
    return new SqlDataTypeSpec(
        new SqlBasicTypeNameSpec(name, SqlParserPos.ZERO), SqlParserPos.ZERO);
  }
}
