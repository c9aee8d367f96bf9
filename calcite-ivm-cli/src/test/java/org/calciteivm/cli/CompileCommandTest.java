package org.calciteivm.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tests {@code calcite-ivm compile}: what it prints, that it changes no database, its errors. */
class CompileCommandTest {
  @TempDir Path dir;

  private String script(String sql) throws IOException {
    Path file = dir.resolve("views.sql");
    Files.writeString(file, sql, UTF_8);
    return file.toString();
  }

  @Test
  void printsStateDeltaTablesAndRefreshOfEachView() throws IOException {
    CliRun run =
        CliRun.of(
            "compile",
            script(
                """
                CREATE TABLE t (k INTEGER, v VARCHAR, unused VARCHAR);
                CREATE MATERIALIZED VIEW big AS SELECT k, upper(v) AS v FROM t WHERE k > 1;
                CREATE MATERIALIZED VIEW counts AS SELECT v, COUNT(*) AS n FROM t GROUP BY v;
                """));

    assertThat(run.err()).isEmpty();
    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains("-- materialized view big")
        .contains("CREATE TABLE _ivm.view_1_big(k INTEGER, v VARCHAR);")
        .contains("CREATE VIEW big AS")
        // only the columns the view reads are captured
        .contains("CREATE TABLE _ivm.delta_1_t(k INTEGER, v VARCHAR, _ivm_weight BIGINT NOT NULL")
        .contains("--     merge when BAG_COUNTED:")
        .contains("-- materialized view counts")
        .contains("_ivm_count BIGINT")
        .contains("--     merge when GROUP_MERGE:");
  }

  @Test
  void readsTheSchemaFromADatabaseWithoutChangingIt() throws IOException, SQLException {
    Path db = dir.resolve("shop.duckdb");
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + db);
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE orders (id INTEGER PRIMARY KEY, amount DECIMAL(10,2))");
      s.execute("CREATE SCHEMA sales");
      s.execute("CREATE TABLE sales.items (order_id INTEGER, qty INTEGER)");
      s.execute("INSERT INTO orders VALUES (1, 2.50)");
    }
    long size = Files.size(db);

    CliRun run =
        CliRun.of(
            "compile",
            "--db",
            db.toString(),
            script(
                "CREATE MATERIALIZED VIEW totals AS SELECT o.id, SUM(i.qty) AS qty"
                    + " FROM orders o JOIN sales.items i ON i.order_id = o.id GROUP BY o.id"));

    assertThat(run.err()).isEmpty();
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("-- materialized view totals").contains("join expansion:");
    assertThat(Files.size(db)).isEqualTo(size);
    try (Connection c = DriverManager.getConnection("jdbc:duckdb:" + db);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery("SELECT count(*) FROM duckdb_schemas() WHERE schema_name = '_ivm'")) {
      rs.next();
      assertThat(rs.getLong(1)).isZero();
    }
  }

  @Test
  void refusesAScriptWithoutViewsAndNamesTheFailingStatement() throws IOException {
    CliRun none = CliRun.of("compile", script("CREATE TABLE t (k INTEGER);"));
    assertThat(none.exitCode()).isEqualTo(2);
    assertThat(none.err()).contains("no CREATE MATERIALIZED VIEW");

    CliRun unsupported =
        CliRun.of(
            "compile",
            script(
                "CREATE TABLE t (k INTEGER);\n"
                    + "CREATE MATERIALIZED VIEW w AS SELECT k, row_number() OVER () AS r FROM t;"));
    assertThat(unsupported.exitCode()).isEqualTo(1);
    assertThat(unsupported.err()).contains("views.sql:2").contains("w");

    CliRun missing = CliRun.of("compile", dir.resolve("nope.sql").toString());
    assertThat(missing.exitCode()).isEqualTo(2);
    assertThat(missing.err()).contains("nope.sql");
  }

  @Test
  void passwordsInErrorsAreMasked() throws IOException {
    CliRun run =
        CliRun.of(
            "compile",
            script(
                "CREATE TABLE t AS SELECT *"
                    + " FROM read_csv('/nonexistent/x?password=Sup3rSecret');"));

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("password=***").doesNotContain("Sup3rSecret");
  }
}
