package org.calciteivm.rules.frontend;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.validate.SqlNameMatcher;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * An operator table that consults {@code fallback} only for names {@code primary} does not know, so
 * that a database's function of the same name never competes with Calcite's own operator (Calcite's
 * {@code TRIM} has a syntax of its own, for example); except that operators of {@code primary} of a
 * kind in {@code yielding} give way to the fallback's of the same name, where it has one (Calcite
 * converts them into another meaning than the database's).
 */
final class FallbackOperatorTable implements SqlOperatorTable {
  private final SqlOperatorTable primary;
  private final SqlOperatorTable fallback;
  private final Set<SqlKind> yielding;

  FallbackOperatorTable(
      SqlOperatorTable primary, SqlOperatorTable fallback, Set<SqlKind> yielding) {
    this.primary = primary;
    this.fallback = fallback;
    this.yielding = yielding;
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
    List<SqlOperator> found = operatorList.subList(before, operatorList.size());
    if (found.stream().anyMatch(operator -> yielding.contains(operator.getKind()))) {
      List<SqlOperator> database = new ArrayList<>();
      fallback.lookupOperatorOverloads(opName, category, syntax, database, nameMatcher);
      if (!database.isEmpty()) {
        found.removeIf(operator -> yielding.contains(operator.getKind()));
      }
    }
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
