package org.calciteivm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.List;
import org.apache.calcite.avatica.AvaticaSqlException;
import org.junit.jupiter.api.Test;

/**
 * Tests the one-line messages on their own: the forms Avatica's client and server produce, of which
 * a running server shows only some (see {@link RemoteCommandsTest}).
 */
class ErrorMessagesTest {
  private static AvaticaSqlException remote(String errorMessage) {
    return new AvaticaSqlException(errorMessage, "00000", -1, List.of(), "127.0.0.1:8765");
  }

  @Test
  void aWrappedRemoteErrorIsSaidOnce() {
    AvaticaSqlException e =
        remote(
            "Error while executing SQL \"SELEC 1\": Remote driver error: RuntimeException:"
                + " java.sql.SQLException: Parser Error: syntax error at or near \"SELEC\"\n\n"
                + "LINE 1: SELEC 1\n        ^^^^^ -> SQLException: Parser Error: syntax error at"
                + " or near \"SELEC\"\n\nLINE 1: SELEC 1\n        ^^^^^");

    assertThat(ErrorMessages.oneLine(e))
        .isEqualTo("Parser Error: syntax error at or near \"SELEC\"");
  }

  @Test
  void aRemoteErrorWithItsCauseKeepsBoth() {
    AvaticaSqlException e =
        remote(
            "Error while executing SQL \"REFRESH MATERIALIZED VIEW v\": Remote driver error:"
                + " RuntimeException: java.sql.SQLException: cannot refresh v -> SQLException:"
                + " cannot refresh v -> SQLException: Binder Error: no column x");

    assertThat(ErrorMessages.oneLine(e)).isEqualTo("cannot refresh v: Binder Error: no column x");
  }

  @Test
  void theServersOwnMessageLosesOnlyTheClientsPrefix() {
    String sql = "SELECT 'a\": b' FROM nope";
    AvaticaSqlException e =
        remote(
            "Error while executing SQL \""
                + sql
                + "\": Catalog Error: Table with name nope does not exist!");

    assertThat(ErrorMessages.oneLine(e, sql, List.of()))
        .isEqualTo("Catalog Error: Table with name nope does not exist!");
    assertThat(ErrorMessages.oneLine(remote("Error while executing SQL \"x\": Binder Error: y")))
        .isEqualTo("Binder Error: y");
  }

  @Test
  void passwordsInUrlsPropertiesAndSecretsAreMasked() {
    SQLException e =
        new SQLException(
            "cannot open jdbc:avatica:remote:url=http://bob:hunter2@db:8765;"
                + "avatica_password=Sup3rSecret;truststore_password=tr;user=bob"
                + " with {password=pw123, user=bob}; typed Sup3rSecret again");

    String line = ErrorMessages.oneLine(e, List.of("Sup3rSecret"));

    assertThat(line)
        .isEqualTo(
            "cannot open jdbc:avatica:remote:url=http://bob:***@db:8765;"
                + "avatica_password=***;truststore_password=***;user=bob"
                + " with {password=***, user=bob}; typed *** again");
  }

  @Test
  void aWrapperOfItsCauseShowsTheCause() {
    Exception cause = new java.io.IOException("Connect to http://127.0.0.1:1 failed");
    RuntimeException e = new RuntimeException(cause);

    assertThat(ErrorMessages.oneLine(e)).isEqualTo("Connect to http://127.0.0.1:1 failed");
  }
}
