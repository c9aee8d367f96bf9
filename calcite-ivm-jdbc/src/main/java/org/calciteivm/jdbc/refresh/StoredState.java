package org.calciteivm.jdbc.refresh;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.catalog.DuckDbCatalog;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.rules.aggregate.AggregateState;

/**
 * The table that stores an aggregate view's state, read by its columns' names in the order of the
 * state's layout: a table an earlier version stored may have some of them at its end (columns a
 * later version added, {@code ExtremeCounts}), so its physical order is not the layout's.
 */
final class StoredState {
  private StoredState() {}

  /** The stored state of {@code view}, aliased {@code alias} if not empty. */
  static String select(AggregateState state, ViewEntry view, String alias) {
    return "SELECT "
        + columns(state, alias)
        + " FROM "
        + view.dataTable()
        + (alias.isEmpty() ? "" : " AS " + alias);
  }

  /** The columns of {@code state}, in order, qualified by {@code alias} if not empty. */
  static String columns(AggregateState state, String alias) {
    return state.columnNames().stream()
        .map(c -> (alias.isEmpty() ? "" : alias + ".") + IvmNames.quote(c))
        .collect(Collectors.joining(", "));
  }

  /** DuckDB's types of the columns of {@code state} in the table that stores {@code view}. */
  static List<String> types(Connection connection, ViewEntry view, AggregateState state)
      throws SQLException {
    Map<String, String> stored =
        DuckDbCatalog.columnTypes(
            connection, IvmNames.SCHEMA, IvmNames.viewDataTable(view.id(), view.name()));
    List<String> ordered = new ArrayList<>();
    for (String column : state.columnNames()) {
      String type = stored.get(column);
      if (type == null) {
        throw new IllegalStateException(
            "the table of view " + view.displayName() + " has no column " + column);
      }
      ordered.add(type);
    }
    return ordered;
  }

  /**
   * Whether {@code view}'s table has columns {@code state} lacks: an earlier version stored it with
   * a column per aggregate call and measure, and it keeps that layout ({@link
   * org.calciteivm.rules.api.IvmCompiler#withSeparateState}).
   */
  static boolean separate(Connection connection, ViewEntry view, AggregateState state)
      throws SQLException {
    List<String> stored =
        DuckDbCatalog.columnNames(
            connection, IvmNames.SCHEMA, IvmNames.viewDataTable(view.id(), view.name()));
    return !state.columnNames().containsAll(stored);
  }
}
