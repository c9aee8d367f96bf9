package org.calciteivm.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.calciteivm.cli.TestServer.PASSWORD;
import static org.calciteivm.cli.TestServer.USER;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tests {@code run} and {@code shell} against a running server with a users file, as the README's
 * "Server" section uses them: how the password is given, and what errors say.
 */
class RemoteCommandsTest {
  private static final String REPORT =
      """
      CREATE TABLE IF NOT EXISTS sales (region VARCHAR, amount INTEGER);
      INSERT INTO sales VALUES ('north', 10), ('south', 20), ('north', 5);
      SELECT region, sum(amount) AS total FROM sales GROUP BY region ORDER BY region;
      DROP TABLE sales;
      """;
  private static final String REPORT_OUTPUT = "INSERT\t3\nregion\ttotal\nnorth\t15\nsouth\t20\n";

  @TempDir static Path serverDir;
  @TempDir Path dir;

  private static TestServer server;

  @BeforeAll
  static void startServer() throws Exception {
    server = TestServer.start(serverDir);
  }

  @AfterAll
  static void stopServer() throws Exception {
    server.close();
  }

  private String report() throws IOException {
    Path file = dir.resolve("report.sql");
    Files.writeString(file, REPORT, UTF_8);
    return file.toString();
  }

  @Test
  void readmeExampleWithThePasswordOnStandardInput() throws IOException {
    CliRun run =
        CliRun.withStdin(
            PASSWORD + "\n", "run", "--url", server.url(), "--user", USER, "--password", report());

    assertThat(run.err()).isEqualTo(ConnectionOptions.PROMPT + "\n");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).isEqualTo(REPORT_OUTPUT);
  }

  /** In a process of its own: the environment variable, and a standard input with nothing. */
  @Test
  void readmeExampleWithThePasswordInTheEnvironment() throws Exception {
    CliRun run =
        CliRun.inJvm(
            dir,
            "",
            Map.of(ConnectionOptions.PASSWORD_VARIABLE, PASSWORD),
            "run",
            "--url",
            server.url(),
            "--user",
            USER,
            "--password",
            report());

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).isEqualTo(REPORT_OUTPUT);
    assertThat(run.err()).isEqualTo(ConnectionOptions.PROMPT + "\n");
  }

  @Test
  void withoutPasswordOptionTheEnvironmentVariableIsUsed() throws Exception {
    CliRun run =
        CliRun.inJvm(
            dir,
            "SELECT 1 AS one;",
            Map.of(ConnectionOptions.PASSWORD_VARIABLE, PASSWORD),
            "run",
            "--url",
            server.url(),
            "--user",
            USER,
            "-");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).isEqualTo("one\n1\n");
  }

  @Test
  void passwordThenScriptOnStandardInput() {
    CliRun run =
        CliRun.withStdin(
            PASSWORD + "\nSELECT 42 AS answer;\n",
            "run",
            "--url",
            server.url(),
            "--user",
            USER,
            "--password",
            "-");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).isEqualTo("answer\n42\n");
  }

  @Test
  void passwordAttachedWithEqualsIsTheValue() throws IOException {
    CliRun run =
        CliRun.of("run", "--url", server.url(), "--user", USER, "--password=" + PASSWORD, report());

    assertThat(run.err()).isEmpty();
    assertThat(run.out()).isEqualTo(REPORT_OUTPUT);
  }

  @Test
  void passwordWithoutUserIsAUsageError() throws IOException {
    CliRun run = CliRun.of("run", "--url", server.url(), "--password=" + PASSWORD, report());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--password needs --user").doesNotContain(PASSWORD);
  }

  @Test
  void aWrongPasswordIsRefusedAndNotPrinted() throws IOException {
    CliRun run =
        CliRun.of(
            "run", "--url", server.url(), "--user", USER, "--password=Wr0ngPassw0rd", report());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .startsWith("error: cannot open " + server.url() + ": ")
        .contains("401")
        .doesNotContain("Wr0ngPassw0rd");
  }

  @Test
  void credentialsInTheUrlAreMaskedInMessages() throws IOException {
    String url =
        server.url().replace(":" + server.server().port(), ":1")
            + ";authentication=BASIC;avatica_user="
            + USER
            + ";avatica_password="
            + PASSWORD;

    CliRun run = CliRun.of("run", "--url", url, report());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .startsWith("error: cannot open ")
        .contains("avatica_password=***", "Connection refused")
        .doesNotContain(PASSWORD);
  }

  @Test
  void thePasswordIsMaskedInErrorsOfStatements() throws IOException {
    Path script = dir.resolve("leak.sql");
    Files.writeString(
        script, "SELECT * FROM read_csv('/nonexistent/" + PASSWORD + ".csv');", UTF_8);

    CliRun run =
        CliRun.of(
            "run", "--url", server.url(), "--user", USER, "--password=" + PASSWORD, "" + script);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("/nonexistent/***.csv").doesNotContain(PASSWORD);
  }

  @Test
  void aRemoteErrorIsTheServersMessageOnce() throws IOException {
    Path script = dir.resolve("bad.sql");
    Files.writeString(script, "SELECT 1 AS one;\nSELEC 1;\n", UTF_8);

    CliRun run =
        CliRun.of(
            "run", "--url", server.url(), "--user", USER, "--password=" + PASSWORD, "" + script);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEqualTo("one\n1\n");
    assertThat(run.err())
        .isEqualTo("error: " + script + ":2: Parser Error: syntax error at or near \"SELEC\"\n");
  }

  @Test
  void aUrlWithoutProtobufGetsAHint() throws IOException {
    String json = server.url().replace(";serialization=protobuf", "");

    CliRun run =
        CliRun.of("run", "--url", json, "--user", USER, "--password=" + PASSWORD, report());

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .isEqualTo(
            "error: cannot open "
                + json
                + ": the server speaks protobuf: add ;serialization=protobuf to the URL\n");
  }

  /** In a process of its own: sqlline reads the file descriptor of standard input. */
  @Test
  void shellReadsThePasswordThenRunsTheRestOfStandardInput() throws Exception {
    CliRun run =
        CliRun.inJvm(
            dir,
            PASSWORD + "\nSELECT 42 AS answer;\n",
            Map.of(),
            "shell",
            "--url",
            server.url(),
            "--user",
            USER,
            "--password");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("answer", "42").doesNotContain(ConnectionOptions.PROMPT);
    assertThat(run.err()).startsWith(ConnectionOptions.PROMPT + "\n").doesNotContain(PASSWORD);
  }

  @Test
  void shellMasksCredentialsAndFailsWhenItCannotConnect() throws Exception {
    String url =
        server.url().replace(":" + server.server().port(), ":1") + ";avatica_password=" + PASSWORD;

    CliRun run = CliRun.inJvm(dir, "SELECT 1;\n", Map.of(), "shell", "--url", url, "--user", USER);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err()).contains("Connection refused").doesNotContain(PASSWORD);
    assertThat(run.out()).doesNotContain(PASSWORD);
  }

  @Test
  void shellShowsTheServersMessageOnce() throws Exception {
    CliRun run =
        CliRun.inJvm(
            dir,
            "SELEC 1;\n",
            Map.of(ConnectionOptions.PASSWORD_VARIABLE, PASSWORD),
            "shell",
            "--url",
            server.url(),
            "--user",
            USER);

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .contains("Error: Parser Error: syntax error at or near \"SELEC\"\n")
        .doesNotContain("Remote driver error", "00000", "->");
  }
}
