package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Base64;
import java.util.Properties;
import org.calciteivm.server.IvmServer;
import org.calciteivm.server.auth.PasswordHash;
import org.calciteivm.server.auth.UsersFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * Authentication: a server with a users file accepts Avatica clients that give a listed name and
 * its password, and answers everything else with HTTP 401 and no data; a server refuses to listen
 * on a non-loopback address without users unless told it is insecure.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerAuthTest {
  /**
   * The cheapest hashes a users file accepts keep the test fast; real entries get {@link
   * PasswordHash#DEFAULT_ITERATIONS}.
   */
  private static final int ITERATIONS = PasswordHash.MIN_ITERATIONS;

  private static final String SECRET = "correct horse battery staple";

  private IvmServer server;
  private Path users;

  @BeforeAll
  void start(@TempDir Path dir) throws IOException, SQLException {
    users = dir.resolve("users");
    UsersFile.put(users, "alice", PasswordHash.create(SECRET.toCharArray(), ITERATIONS));
    UsersFile.put(users, "bob", PasswordHash.create("other".toCharArray(), ITERATIONS));
    server = IvmServer.builder(dir.resolve("auth.duckdb")).port(0).usersFile(users).start();
    try (Connection c = connect("alice", SECRET);
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE secrets AS SELECT 'the data' AS s");
    }
  }

  @AfterAll
  void stop() throws SQLException {
    server.close();
  }

  private Connection connect(String user, String password) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("authentication", "BASIC");
    if (user != null) {
      properties.setProperty("avatica_user", user);
      properties.setProperty("avatica_password", password);
    }
    return DriverManager.getConnection(server.jdbcUrl(), properties);
  }

  private static String read(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT s FROM secrets")) {
      rs.next();
      return rs.getString(1);
    }
  }

  @Test
  void listedUsersWithTheirPasswordsGetIn() throws SQLException {
    try (Connection c = connect("alice", SECRET)) {
      assertThat(read(c)).isEqualTo("the data");
      // the second request is accepted from the remembered check, and must still be right
      assertThat(read(c)).isEqualTo("the data");
    }
    try (Connection c = connect("bob", "other")) {
      assertThat(read(c)).isEqualTo("the data");
    }
  }

  @Test
  void wrongMissingOrUnknownCredentialsAreRefused() {
    assertThatThrownBy(() -> read(connect("alice", "wrong"))).hasStackTraceContaining("HTTP/401");
    assertThatThrownBy(() -> read(connect("alice", "other"))).hasStackTraceContaining("HTTP/401");
    assertThatThrownBy(() -> read(connect("carol", SECRET))).hasStackTraceContaining("HTTP/401");
    assertThatThrownBy(() -> read(connect(null, null))).hasStackTraceContaining("HTTP/401");
  }

  @Test
  void rawHttpRequestsWithoutTheRightPasswordGet401AndNoData()
      throws IOException, InterruptedException {
    HttpClient http = HttpClient.newHttpClient();
    for (String authorization : new String[] {null, "alice:wrong", "nobody:" + SECRET}) {
      HttpRequest.Builder request =
          HttpRequest.newBuilder(URI.create(server.url()))
              .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {1, 2, 3}));
      if (authorization != null) {
        String encoded =
            Base64.getEncoder().encodeToString(authorization.getBytes(StandardCharsets.UTF_8));
        request.header("Authorization", "Basic " + encoded);
      }
      HttpResponse<String> response =
          http.send(request.build(), HttpResponse.BodyHandlers.ofString());
      assertThat(response.statusCode()).as(String.valueOf(authorization)).isEqualTo(401);
      assertThat(response.headers().firstValue("WWW-Authenticate"))
          .hasValueSatisfying(value -> assertThat(value).startsWithIgnoringCase("Basic realm="));
      assertThat(response.body()).doesNotContain("the data");
    }
  }

  /**
   * Malformed credentials get 400 (not base64 of name:password) or 401 (none, another scheme, a
   * name no user can have), a header over Jetty's limit (8 KiB) 400; never a stack trace. They come
   * from their own address, so that the failures they count do not limit the other tests.
   */
  @Test
  void malformedAuthorizationHeadersGet400Or401AndNoStackTrace() throws IOException, SQLException {
    byte[] latin1 = {'B', 'a', 's', 'i', 'c', ' ', (byte) 0xff, (byte) 0xfe, '=', '='};
    String notUtf8 =
        Base64.getEncoder().encodeToString(new byte[] {(byte) 0xff, (byte) 0xfe, ':', (byte) 0xff});
    Object[][] cases = {
      {"Basic !!!notbase64", 400},
      {"Basic " + base64("no colon here"), 400},
      {"Basic", 400},
      {"Basic ====", 400},
      {"", 401},
      {"Bearer abc", 401},
      {"Basic " + notUtf8, 401},
      {"Basic " + base64("no such user\n:" + SECRET), 401},
      {"Basic " + base64("alice:" + "x".repeat(6000)), 401},
      {"Basic " + "A".repeat(20_000), 400},
    };
    for (Object[] c : cases) {
      String header = "Authorization: " + c[0] + "\r\n";
      RawHttp.Response response =
          RawHttp.post(
              server, "127.0.0.30", header.getBytes(StandardCharsets.UTF_8), new byte[] {1, 2, 3});
      String what = c[0].toString();
      assertNoDetails(
          response, what.length() > 80 ? what.substring(0, 80) + "..." : what, (int) c[1]);
    }
    byte[] header = new byte[latin1.length + "Authorization: \r\n".length()];
    System.arraycopy("Authorization: ".getBytes(StandardCharsets.US_ASCII), 0, header, 0, 15);
    System.arraycopy(latin1, 0, header, 15, latin1.length);
    header[header.length - 2] = '\r';
    header[header.length - 1] = '\n';
    assertNoDetails(
        RawHttp.post(server, "127.0.0.30", header, new byte[] {1, 2, 3}), "raw bytes", 400);
    try (Connection c = connect("alice", SECRET)) {
      assertThat(read(c)).isEqualTo("the data");
    }
  }

  private static void assertNoDetails(RawHttp.Response response, String what, int status) {
    assertThat(response.status()).as(what).isEqualTo(status);
    assertThat(response.body())
        .as(what)
        .matches("HTTP \\d{3} [A-Za-z ]+\n")
        .doesNotContain("Exception", "at org.", "jetty");
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void theUsersFileHoldsSaltedHashesNotPasswords() throws IOException {
    String text = Files.readString(users);
    assertThat(text).doesNotContain(SECRET).doesNotContain("other");
    assertThat(UsersFile.read(users)).containsOnlyKeys("alice", "bob");
    assertThat(UsersFile.read(users).get("alice").matches(SECRET.toCharArray())).isTrue();
  }

  @Test
  void nonLoopbackAddressNeedsUsersOrInsecure(@TempDir Path dir) throws Exception {
    Path db = dir.resolve("open.duckdb");
    assertThatThrownBy(() -> IvmServer.builder(db).port(0).bind("0.0.0.0").start())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("refusing to listen on 0.0.0.0 without authentication")
        .hasMessageContaining("--users")
        .hasMessageContaining("--insecure");
    assertThat(db).doesNotExist();
    try (IvmServer open = IvmServer.builder(db).port(0).bind("0.0.0.0").insecure(true).start()) {
      assertThat(open.authenticated()).isFalse();
      assertThat(open.host()).isEqualTo("0.0.0.0");
      assertThat(open.listensOnAllAddresses()).isTrue();
      assertThat(open.url())
          .as("0.0.0.0 is no address to connect to")
          .startsWith("http://127.0.0.1:");
      assertThat(open.remoteJdbcUrls()).noneSatisfy(url -> assertThat(url).contains("0.0.0.0"));
      try (Connection c = DriverManager.getConnection(open.jdbcUrl());
          Statement s = c.createStatement();
          ResultSet rs = s.executeQuery("SELECT 1")) {
        assertThat(rs.next()).isTrue();
      }
    }
    try (IvmServer guarded =
        IvmServer.builder(db).port(0).bind("0.0.0.0").usersFile(users).start()) {
      assertThat(guarded.authenticated()).isTrue();
    }
  }
}
