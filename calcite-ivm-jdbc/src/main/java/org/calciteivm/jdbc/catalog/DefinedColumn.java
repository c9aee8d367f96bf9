package org.calciteivm.jdbc.catalog;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.sql.SqlStatement;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * A column of a query's result as {@code CREATE TABLE ... AS} defines it, collation included, so
 * that a table can be created with an explicit column list that matches the query exactly.
 *
 * <p>Why not create the table from the query: DuckDB 2.0 loses rows when a table created empty by
 * {@code CREATE TABLE ... AS} (with {@code WITH NO DATA}, {@code LIMIT 0} or a false filter) is
 * filled in the same transaction by a parallel INSERT of more than one row group (122,880 rows):
 * the INSERT reports them, later scans in the process see none (measured: a 150,000-row INSERT from
 * a table scan, persistent or temporary target; a table created by {@code CREATE TABLE (columns)}
 * keeps them). And DuckDB's description of a query ({@code DESCRIBE}, {@code duckdb_columns()})
 * leaves collations out, which a {@code VARCHAR COLLATE NOCASE} key needs. So the query's columns
 * are read from a temporary table created empty from it, which is dropped again and never filled:
 * DuckDB writes its definition back with the collations.
 *
 * @param name its name, unique in the result (as {@code CREATE TABLE ... AS} makes them: {@code a},
 *     {@code a_1}, ...)
 * @param type DuckDB's spelling of its type, without collation
 * @param definition its definition in a column list: quoted name, type, collation if any
 */
public record DefinedColumn(String name, String type, String definition) {
  private static final String PROBE = "_ivm_column_probe";

  /** The columns of {@code query}, in order. */
  public static List<DefinedColumn> of(Connection connection, String query) throws SQLException {
    String probe = IvmNames.qualified("temp", PROBE);
    List<String> names = new ArrayList<>();
    List<String> types = new ArrayList<>();
    try (Statement s = connection.createStatement()) {
      s.execute(
          "CREATE OR REPLACE TEMP TABLE "
              + PROBE
              + " AS SELECT * FROM ("
              + query
              + ") WITH NO DATA");
    }
    // (a failure leaves the probe to the rollback, or to the next probe's CREATE OR REPLACE)
    String sql = null;
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT c.column_name, c.data_type, t.sql FROM duckdb_tables() t"
                    + " JOIN duckdb_columns() c ON c.database_oid = t.database_oid AND c.table_oid = t.table_oid"
                    + " WHERE t.database_name = 'temp' AND t.table_name = '"
                    + PROBE
                    + "' ORDER BY c.column_index")) {
      while (rs.next()) {
        names.add(rs.getString(1));
        types.add(rs.getString(2));
        sql = rs.getString(3);
      }
    }
    if (sql == null) {
      throw new IllegalStateException("the column probe " + probe + " vanished");
    }
    try (Statement s = connection.createStatement()) {
      s.execute("DROP TABLE " + probe);
    }
    List<String> definitions = definitions(sql);
    if (definitions.size() != names.size()) {
      throw new IllegalStateException(
          "DuckDB defined " + definitions.size() + " columns of " + names.size() + ": " + sql);
    }
    List<DefinedColumn> columns = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      columns.add(new DefinedColumn(names.get(i), types.get(i), definitions.get(i)));
    }
    return columns;
  }

  /**
   * The column definitions of {@code createTable}, DuckDB's {@code CREATE TABLE t(a INTEGER,
   * ...);}: the texts between the top-level commas of its outermost parentheses.
   */
  private static List<String> definitions(String createTable) throws SQLException {
    SqlStatement statement = SqlStatement.of(createTable);
    List<SqlToken> tokens = statement.tokens();
    // the list opens at the first parenthesis and closes at the last: DuckDB writes nothing after
    int open = -1;
    int close = -1;
    for (int i = 0; i < tokens.size(); i++) {
      if (tokens.get(i).isSymbol("(")) {
        open = open < 0 ? i : open;
      } else if (tokens.get(i).isSymbol(")")) {
        close = i;
      }
    }
    if (open < 0 || close < 0) {
      throw new IllegalStateException("no column list in " + createTable);
    }
    List<String> definitions = new ArrayList<>();
    int from = open + 1;
    while (from < close) {
      int comma = statement.topLevel(from, close, t -> t.isSymbol(","));
      int to = comma < 0 ? close : comma;
      definitions.add(createTable.substring(tokens.get(from).start(), tokens.get(to - 1).end()));
      from = to + 1;
    }
    return definitions;
  }
}
