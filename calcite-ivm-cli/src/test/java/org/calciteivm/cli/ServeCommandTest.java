package org.calciteivm.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.calciteivm.server.IvmServer;
import org.calciteivm.server.auth.UsersFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tests {@code serve}, {@code users add}, and {@code run --url} against a server. */
class ServeCommandTest {
  private static final Pattern CONNECT = Pattern.compile("connect with (jdbc:avatica:\\S+)");

  @TempDir Path dir;

  @Test
  void aNonLoopbackAddressWithoutUsersIsRefused() {
    CliRun run = CliRun.of("serve", "--port", "0", "--bind", "0.0.0.0");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("refusing to listen on 0.0.0.0", "--users", "--insecure");
  }

  @Test
  void maxRequestSizeTakesBytesOrBinaryUnits() {
    ServeCommand.ByteSize size = new ServeCommand.ByteSize();
    assertThat(size.convert("1048576")).isEqualTo(1L << 20);
    assertThat(size.convert("512K")).isEqualTo(512L << 10);
    assertThat(size.convert("16MiB")).isEqualTo(16L << 20);
    assertThat(size.convert("2 mb")).isEqualTo(2L << 20);
    assertThat(size.convert("1g")).isEqualTo(1L << 30);

    CliRun run = CliRun.of("serve", "--port", "0", "--max-request-size", "lots");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .contains("Invalid value for option '--max-request-size'", "not a size: lots");
  }

  @Test
  void usersAddStoresAHashOfThePasswordReadFromStandardInput() throws IOException {
    Path users = dir.resolve("users");

    CliRun run =
        withStdin(
            "s3cret pass\n", "users", "add", users.toString(), "alice", "--iterations", "100000");

    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.err()).contains("added user alice");
    assertThat(Files.readString(users))
        .contains("alice:pbkdf2-sha256:100000:")
        .doesNotContain("s3cret");
    assertThat(UsersFile.read(users).get("alice").matches("s3cret pass".toCharArray())).isTrue();

    CliRun again =
        withStdin("other\n", "users", "add", users.toString(), "alice", "--iterations", "100000");
    assertThat(again.err()).contains("changed the password of alice");
    assertThat(UsersFile.read(users).get("alice").matches("other".toCharArray())).isTrue();
  }

  @Test
  void runWithUrlUserAndPasswordWorksAgainstAServer() throws Exception {
    Path users = dir.resolve("users");
    withStdin("pw\n", "users", "add", users.toString(), "bob", "--iterations", "100000");
    Path script = dir.resolve("a.sql");
    Files.writeString(
        script,
        """
        CREATE TABLE t (id INTEGER, amount DECIMAL(10,2));
        CREATE MATERIALIZED VIEW v AS SELECT count(*) AS n, sum(amount) AS s FROM t;
        INSERT INTO t VALUES (1, 2.50), (2, 1.25);
        REFRESH MATERIALIZED VIEW v;
        SELECT n, s FROM v;
        """,
        UTF_8);
    try (IvmServer server =
        IvmServer.builder(dir.resolve("s.duckdb")).port(0).usersFile(users).start()) {
      CliRun run =
          CliRun.of(
              "run",
              "--url",
              server.jdbcUrl(),
              "--user",
              "bob",
              "--password=pw",
              script.toString());
      assertThat(run.err()).isEmpty();
      assertThat(run.out()).isEqualTo("INSERT\t2\nREFRESH\t2\nn\ts\n2\t3.75\n");

      CliRun refused =
          CliRun.of(
              "run",
              "--url",
              server.jdbcUrl(),
              "--user",
              "bob",
              "--password=wrong",
              script.toString());
      assertThat(refused.exitCode()).isEqualTo(1);
      assertThat(refused.err()).startsWith("error: ").contains("401");
    }
  }

  /**
   * Runs {@code serve} in its own JVM, writes through it, and stops it with SIGTERM: the shutdown
   * hook closes the database, which then holds everything that was written.
   */
  @Test
  void serveLogsWhereItListensAndStopsCleanlyOnSigterm() throws Exception {
    Path db = dir.resolve("served.duckdb");
    Process process = serve("--db", db.toString(), "--port", "0");
    try {
      BufferedReader err =
          new BufferedReader(new InputStreamReader(process.getErrorStream(), UTF_8));
      List<String> lines = readUntil(err, line -> CONNECT.matcher(line).find());
      String url = connectUrl(lines);
      assertThat(String.join("\n", lines)).doesNotContain("WARNING", "note:");
      assertThat(lines)
          .anySatisfy(
              line ->
                  assertThat(line)
                      .startsWith("calcite-ivm: serving " + db)
                      .contains("http://127.0.0.1:", "no authentication"))
          .anySatisfy(
              line ->
                  assertThat(line)
                      .matches("\\S+Z INFO started on 127\\.0\\.0\\.1:\\d+, serving .*")
                      .contains(db + " without authentication"));
      try (Connection c = DriverManager.getConnection(url);
          Statement s = c.createStatement()) {
        s.execute("CREATE TABLE t AS SELECT range AS i FROM range(1000)");
        s.execute("CREATE MATERIALIZED VIEW v AS SELECT count(*) AS n FROM t");
        s.execute("INSERT INTO t VALUES (1000)");
      }

      // SIGTERM; Process.destroy() would also close the streams this test still reads
      process.toHandle().destroy();
      // stderr ends when the process does
      String rest = String.join("\n", err.lines().toList());
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(rest).contains("stopping", "stopped, database closed");
      try (Connection c = DriverManager.getConnection(Databases.url(db));
          Statement s = c.createStatement()) {
        s.execute("REFRESH MATERIALIZED VIEW v");
        try (ResultSet rs = s.executeQuery("SELECT n FROM v")) {
          assertThat(rs.next()).isTrue();
          assertThat(rs.getLong(1)).isEqualTo(1001);
        }
      }
    } finally {
      process.destroyForcibly();
    }
  }

  /**
   * A server listening on all addresses without authentication says so loudly, and prints URLs to
   * connect with: the loopback address for this machine, others for other machines; never 0.0.0.0.
   * Each URL it prints works.
   */
  @Test
  void aWildcardInsecureServeWarnsLoudlyAndPrintsAddressesToConnectTo() throws Exception {
    Process process =
        serve("--port", "0", "--bind", "0.0.0.0", "--insecure", "--max-request-size", "1K");
    try {
      BufferedReader err =
          new BufferedReader(new InputStreamReader(process.getErrorStream(), UTF_8));
      List<String> lines =
          readUntil(err, line -> line.startsWith("calcite-ivm: from other machines: "));
      String text = String.join("\n", lines);

      assertThat(text).doesNotContain("http://0.0.0.0");
      assertThat(lines)
          .anySatisfy(
              line ->
                  assertThat(line)
                      .startsWith(
                          "calcite-ivm: serving in-memory on all addresses of this machine"
                              + " (0.0.0.0), port ")
                      .endsWith("(no authentication)"))
          .anySatisfy(
              line ->
                  assertThat(line)
                      .startsWith(
                          "calcite-ivm: WARNING: no authentication on 0.0.0.0: anyone who can"
                              + " reach port ")
                      .contains("read and change the database")
                      .endsWith(
                          "read and write every file this server process can (DuckDB's COPY,"
                              + " read_csv, ATTACH)."))
          .anySatisfy(
              line ->
                  assertThat(line).matches("\\S+Z WARNING no authentication on 0\\.0\\.0\\.0: .*"))
          .anySatisfy(line -> assertThat(line).contains("request bodies up to 1024 bytes"));
      String local = connectUrl(lines);
      assertThat(local).contains("url=http://127.0.0.1:");
      assertThat(text).contains(local + " (from this machine)");
      assertWorks(local);

      String others =
          lines.get(lines.size() - 1).substring("calcite-ivm: from other machines: ".length());
      if (!others.startsWith("no address")) {
        for (String url : others.split(" or ")) {
          assertThat(url).doesNotContain("127.0.0.1", "0.0.0.0", "localhost", "[::1]");
        }
        // This machine is one of the others' reach: the first address works from here too.
        assertWorks(others.split(" or ")[0]);
      }
    } finally {
      process.destroy();
      process.waitFor(60, TimeUnit.SECONDS);
      process.destroyForcibly();
    }
  }

  private static void assertWorks(String url) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT 42")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getInt(1)).isEqualTo(42);
    }
  }

  /** Starts {@code calcite-ivm serve args...} in a JVM of its own; standard output is dropped. */
  private static Process serve(String... args) throws IOException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command =
        new ArrayList<>(
            List.of(
                java, "-cp", System.getProperty("java.class.path"), Main.class.getName(), "serve"));
    command.addAll(List.of(args));
    return new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
  }

  /** Reads lines up to the first that {@code last} accepts, or to the end; returns them all. */
  private static List<String> readUntil(BufferedReader err, Predicate<String> last)
      throws IOException {
    List<String> lines = new ArrayList<>();
    for (String line = err.readLine(); line != null; line = err.readLine()) {
      lines.add(line);
      if (last.test(line)) {
        break;
      }
    }
    return lines;
  }

  /** The JDBC URL of the {@code connect with} line among {@code lines}. */
  private static String connectUrl(List<String> lines) {
    for (String line : lines) {
      Matcher matcher = CONNECT.matcher(line);
      if (matcher.find()) {
        return matcher.group(1);
      }
    }
    throw new AssertionError("no line says how to connect:\n" + String.join("\n", lines));
  }

  private static CliRun withStdin(String input, String... args) {
    InputStream saved = System.in;
    System.setIn(new ByteArrayInputStream(input.getBytes(UTF_8)));
    try {
      return CliRun.of(args);
    } finally {
      System.setIn(saved);
    }
  }
}
