package org.calciteivm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tests {@code calcite-ivm shell} with piped input, each in a JVM of its own: sqlline reads the
 * file descriptor of standard input, and without a terminal the shell runs its input as a script.
 */
class ShellCommandTest {
  private static final String SCRIPT =
      """
      CREATE TABLE t AS SELECT 42 AS answer;
      SELECT * FROM no_such_table;
      SELECT answer + 1 AS next FROM t;
      """;

  @TempDir Path dir;

  @Test
  void runsPipedStatementsWithoutPromptsOnStdout() throws Exception {
    CliRun run = CliRun.inJvm(dir, "SELECT 42 AS answer;\nSELECT 'b' AS b;\n", Map.of(), "shell");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("answer", "42", "| b ").doesNotContain("jdbc:", ">");
  }

  @Test
  void stopsAtTheFirstFailingStatementAndExitsWith1() throws Exception {
    CliRun run = CliRun.inJvm(dir, SCRIPT, Map.of(), "shell");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("Error: Catalog Error: Table with name no_such_table");
    assertThat(run.out()).doesNotContain("next");
  }

  @Test
  void withForceGoesOnButStillExitsWith1() throws Exception {
    CliRun run = CliRun.inJvm(dir, SCRIPT, Map.of(), "shell", "--", "--force=true");

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).contains("next", "43");
  }

  @Test
  void aDatabaseFileKeepsWhatTheShellWrote() throws Exception {
    String db = dir.resolve("s.duckdb").toString();
    CliRun write =
        CliRun.inJvm(dir, "CREATE TABLE t AS SELECT 'kept' AS v;\n", Map.of(), "shell", "--db", db);
    assertThat(write.exitCode()).as(write.err()).isZero();

    CliRun read = CliRun.withStdin("SELECT v FROM t;", "run", "--db", db, "-");
    assertThat(read.out()).isEqualTo("v\nkept\n");
  }
}
