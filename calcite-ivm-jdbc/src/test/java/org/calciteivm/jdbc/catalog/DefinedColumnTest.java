package org.calciteivm.jdbc.catalog;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The columns of a query as DuckDB defines them for CREATE TABLE, read on plain DuckDB. */
class DefinedColumnTest {

  @Test
  void definitionsKeepCollationsNestedTypesAndQuotedNames() throws SQLException {
    try (Connection connection = DriverManager.getConnection("jdbc:duckdb:");
        Statement s = connection.createStatement()) {
      s.execute(
          "CREATE TABLE c (a VARCHAR COLLATE NOCASE, \"b, c\" DECIMAL(15,2),"
              + " d STRUCT(x INTEGER, \"y z\" VARCHAR), e INTEGER[], f MAP(VARCHAR, INTEGER),"
              + " g VARCHAR COLLATE nocase.noaccent)");
      List<DefinedColumn> columns =
          DefinedColumn.of(
              connection, "SELECT *, a AS a, e AS \"quo\"\"te\", SUM(1) FROM c GROUP BY ALL");
      assertThat(columns)
          .extracting(DefinedColumn::name)
          .containsExactly("a", "b, c", "d", "e", "f", "g", "a_1", "quo\"te", "sum(1)");
      assertThat(columns.get(0).definition()).isEqualTo("a VARCHAR COLLATE NOCASE");
      assertThat(columns.get(1).definition()).isEqualTo("\"b, c\" DECIMAL(15,2)");
      assertThat(columns.get(2).definition()).isEqualTo("d STRUCT(x INTEGER, \"y z\" VARCHAR)");
      assertThat(columns.get(5).definition()).isEqualTo("g VARCHAR COLLATE nocase.noaccent");
      assertThat(columns.get(8).type()).isEqualTo("HUGEINT");
      // a table created from the definitions has the query's columns, and the probe is gone
      s.execute(
          "CREATE TABLE copy ("
              + String.join(", ", columns.stream().map(DefinedColumn::definition).toList())
              + ")");
      s.execute(
          "INSERT INTO copy VALUES ('A', 1, {'x': 1, 'y z': 'q'}, [1], MAP {'k': 1},"
              + " 'é', 'A', [2], 3)");
      try (var rs = s.executeQuery("SELECT count(*) FROM copy WHERE a = 'a' AND g = 'E'")) {
        rs.next();
        assertThat(rs.getLong(1)).isEqualTo(1);
      }
      try (var rs =
          s.executeQuery("SELECT count(*) FROM duckdb_tables() WHERE table_name LIKE '%probe%'")) {
        rs.next();
        assertThat(rs.getLong(1)).isZero();
      }
    }
  }
}
