package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import org.apache.calcite.avatica.AvaticaSqlException;
import org.calciteivm.server.IvmServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A statement that fails remotely fails as it does embedded: Avatica's client gets the message of
 * the embedded driver's {@link SQLException} once, its SQLState and its vendor code, and no stack
 * trace of the server. Each statement runs embedded first (on a database of its own with the same
 * schema), then remotely.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class ServerErrorsTest {
  private static final String SCHEMA =
      "CREATE TABLE t (id INTEGER PRIMARY KEY, name VARCHAR);"
          + " INSERT INTO t VALUES (1, 'one');"
          + " CREATE MATERIALIZED VIEW v AS SELECT count(*) AS n FROM t";

  private IvmServer server;
  private Connection embedded;
  private Connection remote;
  private ServerLogLines log;

  @BeforeAll
  void start(@TempDir Path dir) throws SQLException {
    log = new ServerLogLines();
    server = RemoteServer.start(dir.resolve("remote.duckdb"));
    remote = RemoteServer.connect(server);
    embedded = DriverManager.getConnection("jdbc:ivm:duckdb:" + dir.resolve("embedded.duckdb"));
    for (Connection c : new Connection[] {embedded, remote}) {
      try (Statement s = c.createStatement()) {
        for (String statement : SCHEMA.split(";")) {
          s.execute(statement);
        }
      }
    }
  }

  @AfterAll
  void stop() throws SQLException {
    remote.close();
    embedded.close();
    server.close();
    log.close();
  }

  private static SQLException failure(Connection c, String sql) {
    return catchThrowableOfType(
        () -> {
          try (Statement s = c.createStatement()) {
            s.execute(sql);
          }
        },
        SQLException.class);
  }

  private void assertFailsAsEmbedded(String sql, String expectedState) {
    SQLException local = failure(embedded, sql);
    assertThat((Throwable) local).as("embedded: " + sql).isNotNull();
    assertThat(local.getSQLState()).isEqualTo(expectedState);

    AvaticaSqlException remoteError =
        catchThrowableOfType(() -> execute(sql), AvaticaSqlException.class);

    assertThat((Throwable) remoteError).as("remote: " + sql).isNotNull();
    assertThat(remoteError.getSQLState()).isEqualTo(local.getSQLState());
    assertThat(remoteError.getErrorCode()).isEqualTo(local.getErrorCode());
    String message = remoteError.getErrorMessage();
    assertThat(message).contains(local.getMessage());
    assertThat(message.indexOf(local.getMessage()))
        .as("the message once: " + message)
        .isEqualTo(message.lastIndexOf(local.getMessage()));
    assertThat(message).doesNotContain("RuntimeException", "SQLException", " -> ");
    assertThat(String.join("\n", remoteError.getStackTraces()))
        .as("no stack trace of the server")
        .doesNotContain("\tat ");
  }

  private void execute(String sql) throws SQLException {
    try (Statement s = remote.createStatement()) {
      s.execute(sql);
    }
  }

  @Test
  void aSyntaxErrorHasDuckDbsMessageAndState() {
    assertFailsAsEmbedded("SELEC 1", null);
  }

  @Test
  void aMissingTableHasDuckDbsMessageAndState() {
    assertFailsAsEmbedded("SELECT * FROM nope", null);
  }

  @Test
  void anExistingMaterializedViewHasCalciteIvmsState() {
    assertFailsAsEmbedded("CREATE MATERIALIZED VIEW v AS SELECT count(*) AS n FROM t", "42P07");
  }

  @Test
  void aConstraintViolationHasItsMessage() {
    assertFailsAsEmbedded("INSERT INTO t VALUES (1, 'again')", null);
  }

  @Test
  void aFailedPrepareOrExecuteOfAPreparedStatementToo() throws SQLException {
    AvaticaSqlException prepare =
        catchThrowableOfType(
            () -> remote.prepareStatement("SELECT * FROM nope WHERE id = ?"),
            AvaticaSqlException.class);
    // Avatica's client puts its own message on a failed prepare; the server's travels along.
    assertThat(prepare.getErrorMessage())
        .isEqualTo("while preparing SQL: SELECT * FROM nope WHERE id = ?");
    assertThat(String.join("\n", prepare.getStackTraces()))
        .contains("Catalog Error: Table with name nope")
        .doesNotContain("\tat ", "SQLException");

    try (PreparedStatement insert = remote.prepareStatement("INSERT INTO t VALUES (?, ?)")) {
      insert.setInt(1, 1);
      insert.setString(2, "duplicate");
      AvaticaSqlException execute =
          catchThrowableOfType(insert::execute, AvaticaSqlException.class);
      assertThat(execute.getErrorMessage()).contains("Constraint Error").doesNotContain(" -> ");
    }
  }

  @Test
  void theLogSaysASqlErrorButNotItsStatement() throws SQLException, InterruptedException {
    assertThat((Throwable) failure(remote, "SELECT 'do not log me' FROM nope")).isNotNull();

    assertThat(log.linesOnceLogged("HTTP 500 (SQL error)"))
        .anySatisfy(
            line -> assertThat(line).endsWith("POST / from 127.0.0.1: HTTP 500 (SQL error)"))
        .noneSatisfy(line -> assertThat(line).contains("do not log me"));
    assertThat((Throwable) failure(remote, "CREATE MATERIALIZED VIEW v AS SELECT 1 AS one FROM t"))
        .isNotNull();
    assertThat(log.linesOnceLogged("SQLState 42P07"))
        .anySatisfy(line -> assertThat(line).endsWith("HTTP 500 (SQL error, SQLState 42P07)"));
  }
}
