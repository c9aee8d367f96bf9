package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Properties;
import org.calciteivm.server.IvmServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a remote client sees besides values: the driver's error messages, update counts, prepared
 * statements with parameters (captured like any write), settings as connection properties, and
 * connection properties that are not settings being ignored.
 */
class RemoteClientTest {
  @TempDir Path dir;

  @Test
  void errorsCountsParametersAndSettingsBehaveAsEmbedded() throws SQLException {
    Properties settings = new Properties();
    settings.setProperty("ivm_join_strategy", "telescoping");
    // not a setting: dropped by the server, so it cannot reach DuckDB's configuration
    settings.setProperty("allow_unsigned_extensions", "true");
    try (IvmServer server = RemoteServer.start(dir.resolve("client.duckdb"));
        Connection c = RemoteServer.connect(server, settings);
        Statement s = c.createStatement()) {
      assertThat(s.executeUpdate("CREATE TABLE t (id INTEGER, amount DECIMAL(10,2))")).isZero();
      assertThat(s.executeUpdate("INSERT INTO t VALUES (1, 1.50), (2, 2.25)")).isEqualTo(2);
      s.execute("CREATE TABLE u (id INTEGER, tag VARCHAR)");
      s.execute(
          "CREATE MATERIALIZED VIEW total AS SELECT t.id, sum(amount) AS s"
              + " FROM t JOIN u ON t.id = u.id GROUP BY t.id");

      try (PreparedStatement insert = c.prepareStatement("INSERT INTO u VALUES (?, ?)")) {
        insert.setInt(1, 1);
        insert.setString(2, "ü");
        assertThat(insert.executeUpdate()).isEqualTo(1);
        insert.setInt(1, 2);
        insert.setString(2, null);
        assertThat(insert.executeUpdate()).isEqualTo(1);
      }
      try (PreparedStatement update = c.prepareStatement("UPDATE t SET amount = ? WHERE id = ?")) {
        update.setBigDecimal(1, new BigDecimal("10.05"));
        update.setInt(2, 2);
        assertThat(update.executeUpdate()).isEqualTo(1);
      }
      s.execute("REFRESH MATERIALIZED VIEW total");
      assertThat(ViewCheck.rows(c, "SELECT * FROM total ORDER BY id"))
          .containsExactly("1\t1.50", "2\t10.05");
      assertThat(ViewCheck.rows(c, "SELECT current_setting('allow_unsigned_extensions')"))
          .isEqualTo(List.of("false"));
      assertThat(ViewCheck.rows(c, "EXPLAIN REFRESH MATERIALIZED VIEW total").toString())
          .as("the connection property reached the driver as a setting")
          .containsIgnoringCase("telescoping");

      // As with DuckDB's own driver, a statement that fails is closed: each try gets a new one.
      assertThatThrownBy(() -> c.createStatement().executeQuery("SELECT * FROM no_such_table"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("no_such_table");
      assertThatThrownBy(
              () ->
                  c.createStatement()
                      .execute("CREATE MATERIALIZED VIEW r AS SELECT id, random() AS x FROM t"))
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("random");
      assertThatThrownBy(() -> c.createStatement().execute("DROP TABLE t"))
          .as("the driver's own refusal reaches the client")
          .isInstanceOf(SQLException.class)
          .hasMessageContaining("total");
      assertThat(ViewCheck.rows(c, "SELECT count(*) FROM t")).containsExactly("2");
    }
  }
}
