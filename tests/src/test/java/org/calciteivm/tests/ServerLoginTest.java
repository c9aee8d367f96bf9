package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.calciteivm.server.IvmServer;
import org.calciteivm.server.auth.LoginThrottle;
import org.calciteivm.server.auth.PasswordHash;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Password guessing over HTTP: failed logins are limited per client address and per user name (HTTP
 * 429 without a password check), a user who has logged in from an address keeps working from it
 * while the name is guessed elsewhere, and the log names the address and the user of every failed
 * login but never a password.
 *
 * <p>Guessers connect from other loopback addresses (127.0.0.2 and up) than the good clients
 * (127.0.0.1). The limits refill once an hour here, so that the counts are exact however slowly the
 * machine runs.
 */
class ServerLoginTest {
  private static final String ALICE = "alice's secret";
  private static final String BOB = "bob's secret";
  private static final Duration HOUR = Duration.ofHours(1);

  @TempDir Path dir;

  private IvmServer server;
  private final ServerLogLines log = new ServerLogLines();

  private IvmServer start(LoginThrottle.Limit perAddress, LoginThrottle.Limit perName)
      throws SQLException {
    server =
        IvmServer.builder(dir.resolve("login.duckdb"))
            .port(0)
            .users(
                Map.of(
                    "alice", PasswordHash.create(ALICE.toCharArray(), PasswordHash.MIN_ITERATIONS),
                    "bob", PasswordHash.create(BOB.toCharArray(), PasswordHash.MIN_ITERATIONS)))
            .loginLimits(perAddress, perName)
            .start();
    return server;
  }

  @AfterEach
  void stop() throws SQLException {
    if (server != null) {
      server.close();
    }
    log.close();
  }

  private Connection connect(String user, String password) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("authentication", "BASIC");
    properties.setProperty("avatica_user", user);
    properties.setProperty("avatica_password", password);
    return DriverManager.getConnection(server.jdbcUrl(), properties);
  }

  private static int query(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT 42")) {
      rs.next();
      return rs.getInt(1);
    }
  }

  /** The status of a valid Avatica request from {@code from} as {@code user}. */
  private int status(String from, String user, String password) throws Exception {
    return RawHttp.post(
            server, from, RawHttp.basic(user, password), RawHttp.openConnection("c-" + from))
        .status();
  }

  @Test
  void guessesAreLimitedPerAddressAndPerNameWhileGoodClientsGetIn() throws Exception {
    start(new LoginThrottle.Limit(3, HOUR), new LoginThrottle.Limit(5, HOUR));
    try (Connection alice = connect("alice", ALICE)) {
      assertThat(query(alice)).isEqualTo(42);

      for (int i = 1; i <= 3; i++) {
        assertThat(status("127.0.0.2", "alice", "guess-a" + i)).isEqualTo(401);
      }
      RawHttp.Response limited =
          RawHttp.post(
              server, "127.0.0.2", RawHttp.basic("alice", "guess-a4"), RawHttp.openConnection("x"));
      assertThat(limited.status()).as("the address has used up its failures").isEqualTo(429);
      assertThat(limited.headers().get("retry-after")).matches("\\d+");
      assertThat(limited.body()).isEqualTo("HTTP 429 Too Many Requests\n");
      assertThat(status("127.0.0.2", "bob", BOB)).as("even with a right password").isEqualTo(429);

      for (int i = 1; i <= 2; i++) {
        assertThat(status("127.0.0.3", "alice", "guess-b" + i)).isEqualTo(401);
      }
      // alice has failed 5 times: her name is limited where she has not logged in
      assertThat(status("127.0.0.3", "alice", ALICE)).isEqualTo(429);
      assertThat(status("127.0.0.4", "alice", ALICE)).isEqualTo(429);
      assertThat(status("127.0.0.4", "bob", BOB)).as("another name").isEqualTo(200);

      // where alice has logged in, she still gets in, on her connection and on new ones
      assertThat(query(alice)).isEqualTo(42);
      try (Connection again = connect("alice", ALICE)) {
        assertThat(query(again)).isEqualTo(42);
      }
      assertThat(status("127.0.0.1", "alice", ALICE)).isEqualTo(200);
    }

    List<String> lines = log.linesOnceLogged("from 127.0.0.4: HTTP 429");
    assertThat(lines.stream().filter(line -> line.contains(" WARNING failed login as 'alice'")))
        .hasSize(5)
        .anySatisfy(line -> assertThat(line).endsWith("failed login as 'alice' from 127.0.0.2"))
        .anySatisfy(line -> assertThat(line).endsWith("failed login as 'alice' from 127.0.0.3"));
    assertThat(lines)
        .anySatisfy(
            line ->
                assertThat(line)
                    .endsWith(
                        "WARNING too many failed logins: further attempts of the address"
                            + " 127.0.0.2 are refused (HTTP 429) until its budget refills"))
        .anySatisfy(line -> assertThat(line).contains("further attempts of the name 'alice'"))
        .anySatisfy(line -> assertThat(line).endsWith("INFO POST / from 127.0.0.4: HTTP 429"))
        .anySatisfy(line -> assertThat(line).endsWith("INFO POST / from 127.0.0.2: HTTP 401"));
    assertThat(String.join("\n", lines))
        .doesNotContain(ALICE, BOB, "guess-", "secret")
        .doesNotContainIgnoringCase("Authorization:");
  }

  /**
   * Sixteen guessers in parallel, each from its own address, guess bob's password while alice
   * works: alice's every statement succeeds, and the guessers get exactly as many password checks
   * as bob's name allows (the failures are taken before the check, so none slip through in
   * parallel); every other guess is refused without one.
   */
  @Test
  void parallelGuessersGetNoMoreChecksThanTheNameAllowsAndAGoodClientWorksMeanwhile()
      throws Exception {
    start(new LoginThrottle.Limit(10, HOUR), new LoginThrottle.Limit(20, HOUR));
    int guessers = 16;
    int guesses = 5;
    ExecutorService pool = Executors.newFixedThreadPool(guessers);
    try (Connection alice = connect("alice", ALICE)) {
      assertThat(query(alice)).isEqualTo(42);
      List<Future<List<Integer>>> results = new ArrayList<>();
      for (int g = 0; g < guessers; g++) {
        String from = "127.0.0." + (10 + g);
        Callable<List<Integer>> guesser =
            () -> {
              List<Integer> statuses = new ArrayList<>();
              for (int i = 0; i < guesses; i++) {
                statuses.add(status(from, "bob", "guess-" + from + "-" + i));
              }
              return statuses;
            };
        results.add(pool.submit(guesser));
      }
      for (int i = 0; i < 20; i++) {
        assertThat(query(alice)).isEqualTo(42);
      }
      List<Integer> statuses = new ArrayList<>();
      for (Future<List<Integer>> result : results) {
        statuses.addAll(result.get());
      }
      assertThat(statuses.stream().filter(s -> s == 401)).hasSize(20);
      assertThat(statuses.stream().filter(s -> s == 429)).hasSize(guessers * guesses - 20);
      assertThat(query(alice)).isEqualTo(42);
    } finally {
      pool.shutdownNow();
    }
    assertThat(String.join("\n", log.lines())).doesNotContain("guess-", ALICE, BOB);
  }
}
