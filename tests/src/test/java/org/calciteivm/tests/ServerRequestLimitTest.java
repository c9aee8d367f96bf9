package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.calciteivm.server.IvmServer;
import org.calciteivm.server.auth.PasswordHash;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Request bodies are limited: a body over the limit gets HTTP 413 and is not read beyond the limit,
 * whether its size is announced ({@code Content-Length}) or not (chunked), authenticated or not;
 * the server stays healthy, and a body just under the limit works.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerRequestLimitTest {
  private static final long LIMIT = 1 << 20;
  private static final String PASSWORD = "size matters";

  private IvmServer server;
  private ServerLogLines log;

  @BeforeAll
  void start(@TempDir Path dir) throws SQLException {
    log = new ServerLogLines();
    server =
        IvmServer.builder(dir.resolve("limit.duckdb"))
            .port(0)
            .users(
                java.util.Map.of(
                    "alice",
                    PasswordHash.create(PASSWORD.toCharArray(), PasswordHash.MIN_ITERATIONS)))
            .maxRequestSize(LIMIT)
            .start();
  }

  @AfterAll
  void stop() throws SQLException {
    server.close();
    log.close();
  }

  private Connection connect() throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("authentication", "BASIC");
    properties.setProperty("avatica_user", "alice");
    properties.setProperty("avatica_password", PASSWORD);
    return DriverManager.getConnection(server.jdbcUrl(), properties);
  }

  private void assertHealthy() throws SQLException {
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT 42")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getInt(1)).isEqualTo(42);
    }
  }

  @Test
  void theDefaultLimitIs16MiB(@TempDir Path dir) throws SQLException {
    try (IvmServer plain = IvmServer.builder(dir.resolve("d.duckdb")).port(0).start()) {
      assertThat(plain.maxRequestSize()).isEqualTo(16L * 1024 * 1024);
    }
  }

  @Test
  void anAnnouncedBodyOverTheLimitIsRefusedUnread()
      throws IOException, SQLException, InterruptedException {
    for (String authorization : new String[] {RawHttp.basic("alice", PASSWORD), "Basic x"}) {
      RawHttp.Response response = RawHttp.announce(server, authorization, 2_500_000_000L);

      assertThat(response.status()).isEqualTo(413);
      assertThat(response.body()).isEqualTo("HTTP 413 Payload Too Large\n");
    }
    assertThat(log.linesOnceLogged("HTTP 413"))
        .anySatisfy(line -> assertThat(line).endsWith(" INFO POST / from 127.0.0.1: HTTP 413"));
    assertHealthy();
  }

  @Test
  void aChunkedBodyOverTheLimitIsCutOff() throws Exception {
    long cap = 64 * LIMIT;

    RawHttp.Streamed streamed =
        RawHttp.streamChunked(server, RawHttp.basic("alice", PASSWORD), cap);

    assertThat(streamed.response().status()).isEqualTo(413);
    assertThat(streamed.response().body()).doesNotContain("Exception", "at org.");
    assertThat(streamed.written())
        .as("the server stopped taking the body (it read up to the limit, plus socket buffers)")
        .isLessThan(cap);
    assertHealthy();
  }

  @Test
  void aBodyUnderTheLimitWorks() throws SQLException {
    String text = "x".repeat((int) LIMIT - 64 * 1024);
    try (Connection c = connect();
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT length('" + text + "')")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getInt(1)).isEqualTo(text.length());
    }
  }
}
