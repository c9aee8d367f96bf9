package org.calciteivm.jdbc.refresh;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.catalog.DefinedColumn;
import org.calciteivm.jdbc.catalog.DuckDbCatalog;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.rules.aggregate.AggregateState;

/**
 * The table that stores an aggregate view's state, read by its columns' names in the order of the
 * state's layout: a table an earlier version stored may have some of them at its end (columns a
 * later version added, {@code ExtremeCounts}), so its physical order is not the layout's.
 */
final class StoredState {
  /** DuckDB's types that it keeps in 128 bits: HUGEINT, UHUGEINT, DECIMAL of 19 to 38 digits. */
  private static final Pattern WIDE =
      Pattern.compile("U?HUGEINT|DECIMAL\\((19|[23][0-9]),[0-9]+\\)");

  private StoredState() {}

  /**
   * The statements that create the table of {@code view} and fill it with the state {@code
   * contentSql} computes, its columns named and typed as {@code CREATE TABLE ... AS} names and
   * types the query's, collations included ({@link DefinedColumn}: the table is created from a
   * column list, since DuckDB loses a large INSERT into a table created empty from a query in the
   * same transaction).
   *
   * <p>Columns of a type DuckDB keeps in 128 bits (the sums of DECIMALs and of BIGINTs) are stored
   * uncompressed. DuckDB 2.0 bit-packs them once checkpointed, and then changing a few of them
   * rewrites whole segments: measured on the 100,000 groups of a per-customer sum (SF 1), updating
   * 1,500 of them took 7.4 ms bit-packed and 2.0 ms uncompressed, a scan of the column 4.5 and 1.8
   * ms; BIGINT, DOUBLE and 18-digit DECIMAL columns take 1.9 to 2.3 ms either way. Every refresh
   * updates such sums, so they cost 16 bytes a value rather than time.
   */
  static List<String> create(Connection connection, ViewEntry view, String contentSql)
      throws SQLException {
    List<DefinedColumn> columns = DefinedColumn.of(connection, contentSql);
    String definitions =
        columns.stream()
            .map(
                c ->
                    c.definition()
                        + (WIDE.matcher(c.type()).matches()
                            ? " USING COMPRESSION uncompressed"
                            : ""))
            .collect(Collectors.joining(", "));
    String names =
        columns.stream().map(c -> IvmNames.quote(c.name())).collect(Collectors.joining(", "));
    return List.of(
        "CREATE TABLE " + view.dataTable() + " (" + definitions + ")",
        "INSERT INTO " + view.dataTable() + " (" + names + ") " + contentSql);
  }

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
   * Whether {@code view}'s table has exactly the columns of {@code state}: it was stored in the
   * {@link org.calciteivm.rules.aggregate.StateVersion} {@code state} was planned in.
   */
  static boolean laidOut(Connection connection, ViewEntry view, AggregateState state)
      throws SQLException {
    List<String> stored =
        DuckDbCatalog.columnNames(
            connection, IvmNames.SCHEMA, IvmNames.viewDataTable(view.id(), view.name()));
    return new HashSet<>(state.columnNames()).equals(new HashSet<>(stored));
  }
}
