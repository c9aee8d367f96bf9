package org.calciteivm.rules.sql;

import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.calcite.avatica.util.TimeUnit;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.SqlAlienSystemTypeNameSpec;
import org.apache.calcite.sql.SqlBasicTypeNameSpec;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlCollectionTypeNameSpec;
import org.apache.calcite.sql.SqlDataTypeSpec;
import org.apache.calcite.sql.SqlDialect;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlIntervalLiteral;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.dialect.DuckDBSqlDialect;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.Optionality;
import org.calciteivm.rules.frontend.StructPacks;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Calcite's DuckDB dialect with fixes for the SQL calcite-ivm sends to DuckDB.
 *
 * <ul>
 *   <li>Character types are written without a character set: DuckDB rejects {@code VARCHAR
 *       CHARACTER SET "ISO-8859-1"}; so are the elements of a list ({@code VARCHAR ARRAY}).
 *   <li>Timestamps are written without a precision: DuckDB reads {@code TIMESTAMP(0)} as seconds
 *       precision and silently truncates, while its {@code TIMESTAMP} keeps microseconds.
 *   <li>{@code TRY_CAST}, which Calcite writes as {@code SAFE_CAST}, keeps its name.
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
    if (SqlTypeName.INTERVAL_TYPES.contains(name)) {
      // DuckDB has one INTERVAL type (Calcite wrote CAST(s AS INTERVAL) as INTERVAL_SECOND)
      return new SqlDataTypeSpec(
          new SqlAlienSystemTypeNameSpec("INTERVAL", name, SqlParserPos.ZERO), SqlParserPos.ZERO);
    }
    if (name == SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE || name == SqlTypeName.TIMESTAMP_TZ) {
      // DuckDB's TIMESTAMPTZ (Calcite wrote TIMESTAMP WITH LOCAL TIME ZONE, which DuckDB does not
      // parse)
      return new SqlDataTypeSpec(
          new SqlAlienSystemTypeNameSpec("TIMESTAMPTZ", name, SqlParserPos.ZERO),
          SqlParserPos.ZERO);
    }
    switch (name) {
      case CHAR:
      case VARCHAR:
        return spec(SqlTypeName.VARCHAR);
      case TIMESTAMP:
        return spec(SqlTypeName.TIMESTAMP);
      case TIME:
        // DuckDB's TIME takes no precision (Calcite writes TIME(0))
        return spec(SqlTypeName.TIME);
      case ARRAY:
        // its element written by the same rules (no character set, no timestamp precision)
        SqlNode element = getCastSpec(type.getComponentType());
        return element instanceof SqlDataTypeSpec elementSpec
            ? new SqlDataTypeSpec(
                new SqlCollectionTypeNameSpec(
                    elementSpec.getTypeNameSpec(), SqlTypeName.ARRAY, SqlParserPos.ZERO),
                SqlParserPos.ZERO)
            : null;
      case ANY:
      case ROW:
        // a DuckDB type Calcite does not know (a list, a map) or a STRUCT: the cast changes
        // nothing (it types a NULL that pads a row, which DuckDB types from its context), omitted
        return null;
      default:
        return super.getCastSpec(type);
    }
  }

  @Override
  public void unparseCall(SqlWriter writer, SqlCall call, int leftPrec, int rightPrec) {
    if (call.getKind() == SqlKind.CAST && call.operandCount() == 2 && call.operand(1) == null) {
      // a cast omitted (getCastSpec): a NULL, or the value as it is (a struct Calcite casts to
      // the same fields of other nullability, to compare it with another)
      if (call.operand(0) instanceof SqlLiteral literal && literal.getValue() == null) {
        writer.keyword("NULL");
      } else {
        call.operand(0).unparse(writer, leftPrec, rightPrec);
      }
      return;
    }
    if (call.getOperator() == StructPacks.STRUCT_PACK) {
      StructPacks.unparse(writer, call);
      return;
    }
    if (call.getOperator() instanceof SqlFunction function
        && function.getSyntax() == SqlSyntax.FUNCTION
        && !PLAIN_NAME.matcher(function.getName()).matches()) {
      // a DuckDB function named by symbols ("~~~", which GLOB stands for): read only quoted
      writer.print(quoteIdentifier(function.getName()));
      SqlWriter.Frame frame = writer.startList("(", ")");
      for (SqlNode operand : call.getOperandList()) {
        writer.sep(",");
        operand.unparse(writer, 0, 0);
      }
      writer.endList(frame);
      return;
    }
    if (call.getKind() == SqlKind.SAFE_CAST && call.operandCount() == 2) {
      // Calcite writes its TRY_CAST as SAFE_CAST (BigQuery's name), which DuckDB does not know
      SqlWriter.Frame frame = writer.startFunCall("TRY_CAST");
      call.operand(0).unparse(writer, 0, 0);
      writer.sep("AS");
      call.operand(1).unparse(writer, 0, 0);
      writer.endFunCall(frame);
      return;
    }
    if (call.getKind() == SqlKind.WITHIN_GROUP && call.operand(0) instanceof SqlCall called) {
      // with a FILTER, Calcite writes WITHIN_GROUP(FILTER(f(...), condition), keys)
      boolean filtered = called.getKind() == SqlKind.FILTER;
      SqlCall aggregate = filtered ? called.operand(0) : called;
      if (isOrderedInline(aggregate)) {
        unparseOrderedAggregate(writer, aggregate, call.operand(1));
        if (filtered) {
          writer.keyword("FILTER");
          SqlWriter.Frame condition = writer.startList("(WHERE", ")");
          called.operand(1).unparse(writer, 0, 0);
          writer.endList(condition);
        }
        return;
      }
    }
    super.unparseCall(writer, call, leftPrec, rightPrec);
  }

  /**
   * An interval of one unit as DuckDB reads it: the sign inside the quotes ({@code INTERVAL '-3'
   * MONTH}; Calcite writes {@code INTERVAL -'3' MONTH}, which DuckDB does not parse), and a literal
   * of weeks or quarters in the days or months Calcite keeps its value in ({@code INTERVAL 1 WEEK}
   * reaches the writer as the value 7 with the unit WEEK, which Calcite wrote as {@code INTERVAL
   * '7' WEEK}: seven weeks).
   */
  @Override
  public void unparseSqlIntervalLiteral(
      SqlWriter writer, SqlIntervalLiteral literal, int leftPrec, int rightPrec) {
    SqlIntervalLiteral.IntervalValue value =
        literal.getValueAs(SqlIntervalLiteral.IntervalValue.class);
    SqlIntervalQualifier qualifier = value.getIntervalQualifier();
    if (!qualifier.isSingleDatetimeField()) {
      super.unparseSqlIntervalLiteral(writer, literal, leftPrec, rightPrec);
      return;
    }
    TimeUnit unit =
        switch (qualifier.getUnit()) {
          case WEEK -> TimeUnit.DAY;
          case QUARTER -> TimeUnit.MONTH;
          default -> qualifier.getUnit();
        };
    writer.keyword("INTERVAL");
    writer.literal(
        "'" + (value.getSign() < 0 ? "-" : "") + value.getIntervalLiteral().replace("'", "") + "'");
    writer.keyword(unit.name());
  }

  /** A function name DuckDB reads unquoted. */
  private static final Pattern PLAIN_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]*");

  /**
   * Whether {@code aggregate} takes its ORDER BY inside the call, as DuckDB writes every aggregate
   * ({@code string_agg(s, ',' ORDER BY s)}, {@code first(x ORDER BY y)}); Calcite writes {@code
   * WITHIN GROUP (ORDER BY ...)}, which DuckDB reads only for the aggregates the standard gives
   * that form ({@code percentile_cont}, whose group order is mandatory).
   */
  private static boolean isOrderedInline(SqlCall aggregate) {
    return !(aggregate.getOperator() instanceof SqlAggFunction function
        && function.requiresGroupOrder() == Optionality.MANDATORY);
  }

  /** {@code f(DISTINCT args ORDER BY keys)}, {@code LISTAGG} written as {@code string_agg}. */
  private static void unparseOrderedAggregate(
      SqlWriter writer, SqlCall aggregate, SqlNodeList order) {
    String name = aggregate.getOperator().getName().toUpperCase(Locale.ROOT);
    writer.print(name.equals("LISTAGG") ? "STRING_AGG" : name);
    SqlWriter.Frame frame = writer.startList("(", ")");
    if (aggregate.getFunctionQuantifier() != null) {
      writer.keyword(aggregate.getFunctionQuantifier().toValue().toString());
    }
    for (SqlNode operand : aggregate.getOperandList()) {
      writer.sep(",");
      operand.unparse(writer, 0, 0);
    }
    writer.keyword("ORDER BY");
    SqlWriter.Frame keys = writer.startList("", "");
    for (SqlNode key : order) {
      writer.sep(",");
      key.unparse(writer, 0, 0);
    }
    writer.endList(keys);
    writer.endList(frame);
  }

  private static SqlNode spec(SqlTypeName name) {
    return new SqlDataTypeSpec(
        new SqlBasicTypeNameSpec(name, SqlParserPos.ZERO), SqlParserPos.ZERO);
  }
}
