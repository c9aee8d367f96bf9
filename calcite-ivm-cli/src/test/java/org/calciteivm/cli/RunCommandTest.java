package org.calciteivm.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tests {@code calcite-ivm run}: its output format, errors and exit codes. */
class RunCommandTest {
  @TempDir Path dir;

  private String script(String name, String sql) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, sql, UTF_8);
    return file.toString();
  }

  @Test
  void printsHeaderThenTabSeparatedRowsWithNull() throws IOException {
    String file =
        script(
            "a.sql",
            """
            CREATE TABLE t (id INTEGER, name VARCHAR, ok BOOLEAN);
            INSERT INTO t VALUES (1, 'one', true), (2, NULL, false), (3, 'three', NULL);
            SELECT id, name, ok AS "is ok" FROM t ORDER BY id;
            """);

    CliRun run = CliRun.of("run", file);

    assertThat(run.err()).isEmpty();
    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .isEqualTo("INSERT\t3\nid\tname\tis ok\n1\tone\ttrue\n2\tNULL\tfalse\n3\tthree\tNULL\n");
  }

  @Test
  void printsEveryResultSetAndTheCountOfEveryWrite() throws IOException {
    String file =
        script(
            "a.sql",
            "CREATE TABLE t AS SELECT 1 AS x; SELECT x FROM t; UPDATE t SET x = 2;"
                + " SELECT x, x * 10 AS y FROM t");

    CliRun run = CliRun.of("run", file);

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("x\n1\nUPDATE\t1\nx\ty\n2\t20\n");
  }

  @Test
  void writesAndRefreshesPrintTheirCountsOtherStatementsNothing() throws IOException {
    String file =
        script(
            "a.sql",
            """
            CREATE TABLE t (id INTEGER, g INTEGER);
            BEGIN;
            INSERT INTO t SELECT range, range % 3 FROM range(10);
            COMMIT;
            CREATE MATERIALIZED VIEW v AS SELECT g, count(*) AS n FROM t GROUP BY g;
            SET ivm_join_strategy = 'auto';
            UPDATE t SET g = 1 WHERE id < 3;
            DELETE FROM t WHERE id = 9;
            WITH more AS (SELECT 20 AS id, 2 AS g) INSERT INTO t SELECT * FROM more;
            REFRESH MATERIALIZED VIEW v;
            REFRESH MATERIALIZED VIEW v;
            TRUNCATE t;
            CREATE VIEW w AS SELECT 1 AS one;
            DROP VIEW w;
            """);

    CliRun run = CliRun.of("run", file);

    assertThat(run.err()).isEmpty();
    // UPDATE of 3 rows: 6 change rows; the second REFRESH finds nothing pending.
    assertThat(run.out())
        .isEqualTo(
            "INSERT\t10\nUPDATE\t3\nDELETE\t1\nINSERT\t1\nREFRESH\t8\nREFRESH\t0\n"
                + "TRUNCATE\t10\n");
  }

  @Test
  void semicolonsInStringsIdentifiersAndCommentsDoNotEndAStatement() throws IOException {
    String file =
        script(
            "a.sql",
            """
            -- a comment; not a statement
            CREATE TABLE "odd;name" (s VARCHAR);
            INSERT INTO "odd;name" VALUES ('a;b'), ('it''s; fine');
            /* also; a comment */ SELECT s FROM "odd;name" ORDER BY s;
            """);

    CliRun run = CliRun.of("run", file);

    assertThat(run.err()).isEmpty();
    assertThat(run.out()).isEqualTo("INSERT\t2\ns\na;b\nit's; fine\n");
  }

  @Test
  void runsSeveralFilesInOneSession() throws IOException {
    String first = script("first.sql", "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);");
    String second = script("second.sql", "INSERT INTO t VALUES (2); SELECT sum(x) AS s FROM t;");

    CliRun run = CliRun.of("run", first, second);

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("INSERT\t1\nINSERT\t1\ns\n3\n");
  }

  @Test
  void stopsAtFirstErrorNamingFileAndStatement() throws IOException {
    String first = script("first.sql", "SELECT 1 AS a;");
    String second =
        script("second.sql", "SELECT 2 AS b;\nSELECT * FROM no_such_table;\nSELECT 3 AS c;");
    String third = script("third.sql", "SELECT 4 AS d;");

    CliRun run = CliRun.of("run", first, second, third);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEqualTo("a\n1\nb\n2\n");
    assertThat(run.err()).startsWith("error: " + second + ":2: ").contains("no_such_table");
    assertThat(run.err().lines()).hasSize(1);
    assertThat(run.err()).doesNotContain("at org.", "Exception");
  }

  @Test
  void missingFileExitsWith2AndRunsNothing() throws IOException {
    Path db = dir.resolve("t.duckdb");
    String first = script("first.sql", "CREATE TABLE t (x INTEGER);");
    String missing = dir.resolve("missing.sql").toString();

    CliRun run = CliRun.of("run", "--db", db.toString(), first, missing);

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("error: " + missing + ": no such file\n");
    assertThat(db).doesNotExist();
  }

  @Test
  void unterminatedStringIsReportedBeforeAnythingRuns() throws IOException {
    Path db = dir.resolve("t.duckdb");
    String first = script("first.sql", "CREATE TABLE t (x INTEGER);");
    String broken = script("broken.sql", "SELECT 'no end;");

    CliRun run = CliRun.of("run", "--db", db.toString(), first, broken);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).startsWith("error: " + broken + ": ").contains("unterminated");
    assertThat(db).doesNotExist();
  }

  @Test
  void dbOptionKeepsTheDatabaseBetweenRuns() throws IOException {
    String db = dir.resolve("t.duckdb").toString();
    String create = script("create.sql", "CREATE TABLE t AS SELECT 'kept' AS v;");
    String select = script("select.sql", "SELECT v FROM t;");

    assertThat(CliRun.of("run", "--db", db, create).exitCode()).isZero();
    CliRun run = CliRun.of("run", "--db", db, select);

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("v\nkept\n");
  }

  @Test
  void withoutDbEachRunHasItsOwnDatabase() throws IOException {
    String create = script("create.sql", "CREATE TABLE t (x INTEGER);");

    assertThat(CliRun.of("run", create).exitCode()).isZero();
    assertThat(CliRun.of("run", create).exitCode()).isZero();
  }

  @Test
  void dashReadsStandardInput() {
    CliRun run = CliRun.withStdin("SELECT 'from stdin' AS s;", "run", "-");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("s\nfrom stdin\n");
  }

  /**
   * In a process of its own: standard input is a pipe, which Java 17 cannot read all of at once.
   */
  @Test
  void dashReadsAPipe() throws Exception {
    CliRun run = CliRun.inJvm(dir, "SELECT 'from a pipe' AS s;\n", Map.of(), "run", "-");

    assertThat(run.err()).isEmpty();
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("s\nfrom a pipe\n");
  }

  @Test
  void passwordWithoutValueDoesNotTakeTheScript() throws IOException {
    String file = script("a.sql", "SELECT 1 AS one;");

    // A value only after '='; the file is the script; DuckDB needs no password.
    CliRun run = CliRun.withStdin("\n", "run", "--user", "someone", "--password", file);

    assertThat(run.err()).isEqualTo(ConnectionOptions.PROMPT + "\n");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo("one\n1\n");
  }

  @Test
  void maintainsMaterializedView() throws IOException {
    String file =
        script(
            "view.sql",
            """
            CREATE TABLE orders (id INTEGER, status VARCHAR, amount INTEGER);
            INSERT INTO orders VALUES (1, 'open', 10), (2, 'shipped', 20), (3, 'open', 30);
            CREATE MATERIALIZED VIEW open_orders AS
              SELECT id, amount * 2 AS doubled FROM orders WHERE status = 'open';
            INSERT INTO orders VALUES (4, 'open', 40), (5, 'shipped', 50);
            UPDATE orders SET status = 'open' WHERE id = 2;
            UPDATE orders SET status = 'shipped' WHERE id = 1;
            DELETE FROM orders WHERE id = 3;
            REFRESH MATERIALIZED VIEW open_orders;
            SELECT * FROM open_orders ORDER BY id;
            """);

    CliRun run = CliRun.of("run", file);

    assertThat(run.err()).isEmpty();
    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .isEqualTo(
            "INSERT\t3\nINSERT\t2\nUPDATE\t1\nUPDATE\t1\nDELETE\t1\nREFRESH\t7\n"
                + "id\tdoubled\n2\t40\n4\t80\n");
  }
}
