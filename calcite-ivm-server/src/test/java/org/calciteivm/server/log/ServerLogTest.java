package org.calciteivm.server.log;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.junit.jupiter.api.Test;

/** Tests that what {@link ServerLog} writes stays one line and cannot be forged by a client. */
class ServerLogTest {
  @Test
  void textOfClientsIsEscapedAndCut() {
    assertThat(ServerLog.quote("alice")).isEqualTo("'alice'");
    assertThat(ServerLog.quote("a\nINFO forged\u00e9'\\"))
        .isEqualTo("'a\\u000aINFO forged\\u00e9\\u0027\\u005c'");
    assertThat(ServerLog.quote("x".repeat(100)))
        .isEqualTo("'" + "x".repeat(64) + "'... (100 characters)");
    assertThat(ServerLog.quote(null)).isEqualTo("(none)");
    assertThat(ServerLog.word("/a b")).isEqualTo("/a\\u0020b");
  }

  @Test
  void aRecordIsOneLineWithTheSummaryOfItsException() {
    LogRecord record = new LogRecord(Level.SEVERE, "server error in fetch");
    record.setThrown(
        new RuntimeException(
            "wrapped", new SQLException("Parser Error: syntax error\n\nLINE 1: SELEC\n  ^")));

    String line = new OneLineFormatter().format(record);

    assertThat(line)
        .matches(
            "\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z SEVERE server error in fetch:"
                + " RuntimeException: wrapped <- SQLException: Parser Error: syntax error LINE 1:"
                + " SELEC \\^"
                + System.lineSeparator());
  }
}
