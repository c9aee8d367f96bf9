package org.calciteivm.jdbc.catalog;

import com.google.common.collect.ImmutableMap;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.sql.validate.SqlNameMatcher;
import org.apache.calcite.util.Optionality;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * DuckDB's scalar and aggregate functions, for the Calcite validator: a view may call a DuckDB
 * function that Calcite does not know (such as {@code strlen} or {@code regexp_matches}).
 *
 * <p>Calcite only needs to accept the call and know its result type; DuckDB resolves the overload
 * and computes the value. The result type is DuckDB's when all overloads agree on one that Calcite
 * can represent, and {@code ANY} otherwise. Calcite's own operators take precedence: this table is
 * consulted after them.
 *
 * <p>What cannot be maintained is known here too, so that the view analysis refuses it on the plan
 * by the name the query calls it: a scalar function DuckDB does not mark {@code CONSISTENT} ({@code
 * random()}, {@code now()}, {@code uuid()}, {@code nextval()}, ...) is not deterministic, and an
 * aggregate Calcite does not know is an aggregate of its own kind, which no maintained aggregate
 * matches. DuckDB's macros are left out, their bodies not checked, except the scalar ones over
 * lists and values it ships ({@code list_sum}, {@code split_part}, ...).
 */
public final class DuckDbFunctions implements SqlOperatorTable {
  private final ImmutableMap<String, SqlFunction> functions;

  private DuckDbFunctions(Map<String, SqlFunction> functions) {
    this.functions = ImmutableMap.copyOf(functions);
  }

  /** One name's overloads as DuckDB lists them. */
  private record Overloads(Set<String> returnTypes, boolean aggregate, boolean consistent) {}

  /** Reads the functions of the connection's DuckDB. */
  public static DuckDbFunctions read(Connection connection) throws SQLException {
    Map<String, Overloads> overloads = new HashMap<>();
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT lower(function_name), any_value(return_type), bool_or(function_type ="
                    + " 'aggregate'), bool_and(stability = 'CONSISTENT'"
                    + " OR function_type = 'macro'),"
                    + " list(DISTINCT return_type) FROM duckdb_functions()"
                    + " WHERE function_type IN ('scalar', 'aggregate')"
                    // DuckDB writes these scalar functions of lists and values as macros
                    + " OR function_type = 'macro' AND (starts_with(function_name, 'list_')"
                    + " OR starts_with(function_name, 'array_') OR function_name IN"
                    + " ('split_part', 'date_add', 'fdiv', 'fmod', 'days_in_month'))"
                    + " GROUP BY 1")) {
      while (rs.next()) {
        Set<String> types = new HashSet<>();
        for (Object type : (Object[]) rs.getArray(5).getArray()) {
          types.add(type == null ? null : type.toString());
        }
        overloads.put(rs.getString(1), new Overloads(types, rs.getBoolean(3), rs.getBoolean(4)));
      }
    }
    Map<String, SqlFunction> functions = new HashMap<>();
    overloads.forEach((name, o) -> functions.put(name, function(name, o)));
    return new DuckDbFunctions(functions);
  }

  private static SqlFunction function(String name, Overloads overloads) {
    String type =
        overloads.returnTypes().size() == 1 && overloads.returnTypes().iterator().next() != null
            ? overloads.returnTypes().iterator().next()
            : "ANY";
    SqlReturnTypeInference returnType =
        SERIES.contains(name)
            ? DuckDbFunctions::seriesType
            : binding -> DuckDbTypes.toCalcite(binding.getTypeFactory(), type, true);
    if (overloads.aggregate()) {
      return new SqlAggFunction(
          name,
          null,
          SqlKind.OTHER_FUNCTION,
          returnType,
          null,
          OperandTypes.VARIADIC,
          SqlFunctionCategory.SYSTEM,
          false,
          false,
          Optionality.FORBIDDEN) {};
    }
    boolean deterministic = overloads.consistent();
    return new SqlFunction(
        name,
        SqlKind.OTHER_FUNCTION,
        returnType,
        null,
        OperandTypes.VARIADIC,
        SqlFunctionCategory.SYSTEM) {
      @Override
      public boolean isDeterministic() {
        return deterministic;
      }
    };
  }

  /**
   * The functions that list a series ({@code range(3)}, {@code generate_series(1, n)}), whose
   * overloads return lists of BIGINT or of TIMESTAMP: typed here by their first argument, so that
   * {@code unnest} of one (a table function in FROM, {@link
   * org.calciteivm.jdbc.refresh.QueryRewrites}) has its element type.
   */
  private static final Set<String> SERIES = Set.of("range", "generate_series");

  private static RelDataType seriesType(SqlOperatorBinding binding) {
    RelDataTypeFactory types = binding.getTypeFactory();
    SqlTypeName element =
        binding.getOperandCount() > 0 && SqlTypeUtil.isDatetime(binding.getOperandType(0))
            ? SqlTypeName.TIMESTAMP
            : SqlTypeName.BIGINT;
    return types.createTypeWithNullability(
        types.createArrayType(types.createSqlType(element), -1), true);
  }

  /** Whether {@code name} is one of DuckDB's aggregate functions. */
  public boolean isAggregate(String name) {
    return functions.get(name.toLowerCase(Locale.ROOT)) instanceof SqlAggFunction;
  }

  @Override
  public void lookupOperatorOverloads(
      SqlIdentifier opName,
      @Nullable SqlFunctionCategory category,
      SqlSyntax syntax,
      List<SqlOperator> operatorList,
      SqlNameMatcher nameMatcher) {
    if (syntax != SqlSyntax.FUNCTION || !opName.isSimple()) {
      return;
    }
    SqlFunction function = functions.get(opName.getSimple().toLowerCase(Locale.ROOT));
    if (function != null) {
      operatorList.add(function);
    }
  }

  @Override
  public List<SqlOperator> getOperatorList() {
    return List.copyOf(functions.values());
  }
}
