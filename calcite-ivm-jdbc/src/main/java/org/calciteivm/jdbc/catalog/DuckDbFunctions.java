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
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.validate.SqlNameMatcher;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * DuckDB's deterministic scalar functions and macros, for the Calcite validator: a view may call a
 * DuckDB function that Calcite does not know (such as {@code strlen} or {@code regexp_matches}).
 *
 * <p>Calcite only needs to accept the call and know its result type; DuckDB resolves the overload
 * and computes the value. The result type is DuckDB's when all overloads agree on one that Calcite
 * can represent, and {@code ANY} otherwise. Calcite's own operators take precedence: this table is
 * consulted after them.
 */
public final class DuckDbFunctions implements SqlOperatorTable {
  private final ImmutableMap<String, SqlFunction> functions;

  private DuckDbFunctions(Map<String, SqlFunction> functions) {
    this.functions = ImmutableMap.copyOf(functions);
  }

  /** Reads the functions of the connection's DuckDB. */
  public static DuckDbFunctions read(Connection connection) throws SQLException {
    Map<String, Set<String>> returnTypes = new HashMap<>();
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT DISTINCT lower(function_name), return_type FROM duckdb_functions()"
                    + " WHERE function_type IN ('scalar', 'macro')"
                    + " AND stability = 'CONSISTENT'")) {
      while (rs.next()) {
        returnTypes.computeIfAbsent(rs.getString(1), k -> new HashSet<>()).add(rs.getString(2));
      }
    }
    Map<String, SqlFunction> functions = new HashMap<>();
    returnTypes.forEach(
        (name, types) -> {
          String type =
              types.size() == 1 && types.iterator().next() != null
                  ? types.iterator().next()
                  : "ANY";
          functions.put(
              name,
              new SqlFunction(
                  name,
                  SqlKind.OTHER_FUNCTION,
                  binding -> DuckDbTypes.toCalcite(binding.getTypeFactory(), type, true),
                  null,
                  OperandTypes.VARIADIC,
                  SqlFunctionCategory.SYSTEM));
        });
    return new DuckDbFunctions(functions);
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
