package org.calciteivm.rules.frontend;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.validate.SqlNameMatcher;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * An operator table that consults {@code fallback} only for names {@code primary} does not know, so
 * that a database's function of the same name never competes with Calcite's own operator (Calcite's
 * {@code TRIM} has a syntax of its own, for example).
 */
final class FallbackOperatorTable implements SqlOperatorTable {
  private final SqlOperatorTable primary;
  private final SqlOperatorTable fallback;

  FallbackOperatorTable(SqlOperatorTable primary, SqlOperatorTable fallback) {
    this.primary = primary;
    this.fallback = fallback;
  }

  @Override
  public void lookupOperatorOverloads(
      SqlIdentifier opName,
      @Nullable SqlFunctionCategory category,
      SqlSyntax syntax,
      List<SqlOperator> operatorList,
      SqlNameMatcher nameMatcher) {
    int before = operatorList.size();
    primary.lookupOperatorOverloads(opName, category, syntax, operatorList, nameMatcher);
    if (operatorList.size() == before) {
      fallback.lookupOperatorOverloads(opName, category, syntax, operatorList, nameMatcher);
    }
  }

  @Override
  public List<SqlOperator> getOperatorList() {
    List<SqlOperator> all = new ArrayList<>(primary.getOperatorList());
    all.addAll(fallback.getOperatorList());
    return all;
  }
}
