package org.calciteivm.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.calciteivm.server.IvmServer;
import org.calciteivm.server.auth.PasswordHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The "done when": another JVM, with nothing but Avatica's client driver and its
 * dependencies on its class path (no calcite-ivm, no DuckDB), authenticates, creates and refreshes
 * a view and reads exact values.
 */
class SecondJvmClientTest {
  /** The client program, run by the JDK's source launcher. */
  private static final String CLIENT =
      """
      import java.sql.*;
      import java.util.Properties;

      public class Client {
        public static void main(String[] args) throws Exception {
          Properties p = new Properties();
          p.setProperty("authentication", "BASIC");
          p.setProperty("avatica_user", "app");
          p.setProperty("avatica_password", args[1]);
          try (Connection c = DriverManager.getConnection(args[0], p)) {
            try (Statement s = c.createStatement()) {
              s.execute("CREATE TABLE orders (id INTEGER, amount DECIMAL(12,2), placed TIMESTAMP)");
              s.execute("CREATE MATERIALIZED VIEW totals AS"
                  + " SELECT count(*) AS n, sum(amount) AS total, max(placed) AS last FROM orders");
              s.execute("INSERT INTO orders VALUES (1, 10.25, '2024-01-01 10:00:00.000001'),"
                  + " (2, 99999999.99, '2024-01-02 23:59:59.999999')");
              s.execute("REFRESH MATERIALIZED VIEW totals");
            }
            try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT n, total, last FROM totals")) {
              rs.next();
              System.out.println(rs.getLong(1) + "|" + rs.getBigDecimal(2) + "|" + rs.getString(3));
            }
            System.out.println(Class.forName("org.calciteivm.jdbc.IvmDriver", false,
                Client.class.getClassLoader()) == null);
          } catch (ClassNotFoundException expected) {
            System.out.println("no calcite-ivm on the class path");
          }
        }
      }
      """;

  @TempDir Path dir;

  @Test
  void aJvmWithOnlyAvaticasDriverAuthenticatesCreatesRefreshesAndReadsExactValues()
      throws Exception {
    // Avatica's client and what it depends on; surefire names the test class path here.
    String avaticaOnly =
        Arrays.stream(System.getProperty("surefire.test.class.path").split(File.pathSeparator))
            .filter(
                jar ->
                    List.of(
                            "avatica-core",
                            "avatica-metrics",
                            "protobuf-java",
                            "jackson-",
                            "httpclient5",
                            "httpcore5",
                            "joou",
                            "slf4j-api")
                        .stream()
                        .anyMatch(jar::contains))
            .collect(Collectors.joining(File.pathSeparator));
    assertThat(avaticaOnly).doesNotContain("calcite-ivm", "duckdb");
    Path client = dir.resolve("Client.java");
    Files.writeString(client, CLIENT, UTF_8);
    String password = "second jvm";
    try (IvmServer server =
        IvmServer.builder(dir.resolve("second.duckdb"))
            .port(0)
            .users(Map.of("app", PasswordHash.create(password.toCharArray(), 1_000)))
            .start()) {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Process process =
          new ProcessBuilder(
                  java, "-cp", avaticaOnly, client.toString(), server.jdbcUrl(), password)
              .redirectErrorStream(true)
              .start();
      String output = new String(process.getInputStream().readAllBytes(), UTF_8);
      assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
      assertThat(process.exitValue()).as(output).isZero();
      assertThat(output)
          .contains("2|100000010.24|2024-01-02 23:59:59.999999")
          .contains("no calcite-ivm on the class path");
    }
  }
}
