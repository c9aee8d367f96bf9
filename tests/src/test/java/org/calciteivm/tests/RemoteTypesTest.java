package org.calciteivm.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Date;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.sql.Types;
import java.util.List;
import java.util.TimeZone;
import org.calciteivm.server.IvmServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One round trip per DuckDB type through the Avatica server: a table holds a value and a NULL of
 * each type, a materialized view selects all of it, and a remote client reads the view. Each value
 * must arrive exactly: with the JDBC type the server announces, the Java class the client gets, and
 * the same text as the embedded driver's {@code getString}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class RemoteTypesTest {
  /**
   * A DuckDB type, a literal of it, the JDBC type a remote client is told, the value it receives
   * ({@code getObject}) and its text ({@code getString}).
   */
  record Case(String type, String literal, int jdbcType, Object object, String text) {
    @Override
    public String toString() {
      return type;
    }
  }

  static List<Case> cases() {
    return List.of(
        new Case("BOOLEAN", "true", Types.BOOLEAN, true, "true"),
        new Case("TINYINT", "-128", Types.TINYINT, (byte) -128, "-128"),
        new Case("SMALLINT", "-32768", Types.SMALLINT, (short) -32768, "-32768"),
        new Case("INTEGER", "-2147483648", Types.INTEGER, -2147483648, "-2147483648"),
        new Case(
            "BIGINT",
            "-9223372036854775808",
            Types.BIGINT,
            -9223372036854775808L,
            "-9223372036854775808"),
        new Case(
            "HUGEINT",
            "-170141183460469231731687303715884105728",
            Types.DECIMAL,
            new BigDecimal("-170141183460469231731687303715884105728"),
            "-170141183460469231731687303715884105728"),
        new Case("UTINYINT", "255", Types.SMALLINT, (short) 255, "255"),
        new Case("USMALLINT", "65535", Types.INTEGER, 65535, "65535"),
        new Case("UINTEGER", "4294967295", Types.BIGINT, 4294967295L, "4294967295"),
        new Case(
            "UBIGINT",
            "18446744073709551615",
            Types.DECIMAL,
            new BigDecimal("18446744073709551615"),
            "18446744073709551615"),
        new Case(
            "UHUGEINT",
            "340282366920938463463374607431768211455",
            Types.DECIMAL,
            new BigDecimal("340282366920938463463374607431768211455"),
            "340282366920938463463374607431768211455"),
        new Case("FLOAT", "0.1", Types.REAL, 0.1f, "0.1"),
        new Case("DOUBLE", "0.1", Types.DOUBLE, 0.1d, "0.1"),
        new Case(
            "DECIMAL(10,2)", "-12345678.90", Types.DECIMAL, new BigDecimal("-12345678.90"), null),
        new Case(
            "DECIMAL(38,10)",
            "1234567890123456789012345678.0123456789",
            Types.DECIMAL,
            new BigDecimal("1234567890123456789012345678.0123456789"),
            null),
        new Case("VARCHAR", "'héllo, ✓ 𝄞 日本'", Types.VARCHAR, "héllo, ✓ 𝄞 日本", "héllo, ✓ 𝄞 日本"),
        new Case(
            "BLOB",
            "'\\xAA\\x00\\xFFz'",
            Types.VARBINARY,
            new byte[] {-86, 0, -1, 'z'},
            // Avatica's client decodes the bytes as UTF-8 for getString: read BLOBs with getBytes
            new String(new byte[] {-86, 0, -1, 'z'}, UTF_8)),
        new Case("DATE", "'1969-12-31'", Types.DATE, null, "1969-12-31"),
        new Case("TIME", "'23:59:58.123456'", Types.VARCHAR, "23:59:58.123456", null),
        new Case(
            "TIMESTAMP",
            "'2024-02-29 12:34:56.123456'",
            Types.VARCHAR,
            "2024-02-29 12:34:56.123456",
            null),
        new Case(
            "TIMESTAMP_NS",
            "'2024-02-29 12:34:56.123456789'",
            Types.VARCHAR,
            "2024-02-29 12:34:56.123456789",
            null),
        new Case("TIMESTAMP_MS", "'1960-02-29 12:34:56.789'", Types.TIMESTAMP, null, null),
        new Case(
            "TIMESTAMP_S", "'2024-02-29 12:34:56'", Types.TIMESTAMP, null, "2024-02-29 12:34:56"),
        new Case(
            "TIMESTAMP WITH TIME ZONE",
            "'2024-02-29 12:34:56.123456+02'",
            Types.VARCHAR,
            null,
            null),
        new Case("TIME WITH TIME ZONE", "'12:34:56.5+02'", Types.VARCHAR, null, null),
        new Case(
            "UUID",
            "'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'",
            Types.VARCHAR,
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
            null),
        new Case(
            "INTERVAL",
            "INTERVAL 14 MONTH + INTERVAL 3 DAY + INTERVAL 5 MICROSECOND",
            Types.VARCHAR,
            null,
            null),
        new Case("INTEGER[]", "[1, NULL, 3]", Types.VARCHAR, "[1, NULL, 3]", null),
        new Case("VARCHAR[]", "['a', 'b c']", Types.VARCHAR, null, null),
        new Case("INTEGER[2]", "[7, 8]", Types.VARCHAR, null, null),
        new Case("STRUCT(a INTEGER, b VARCHAR)", "{'a': 1, 'b': 'x'}", Types.VARCHAR, null, null),
        new Case("MAP(VARCHAR, INTEGER)", "MAP {'k': 1, 'l': 2}", Types.VARCHAR, null, null),
        new Case("JSON", "'{\"a\": [1, 2]}'", Types.VARCHAR, null, null),
        new Case("ENUM('x', 'y')", "'y'", Types.VARCHAR, "y", "y"),
        new Case("BIT", "'10110'", Types.VARCHAR, "10110", "10110"));
  }

  private IvmServer server;
  private Connection embedded;
  private Connection remote;

  @BeforeAll
  void createTableAndView(@TempDir Path dir) throws SQLException {
    List<Case> cases = cases();
    StringBuilder columns = new StringBuilder("id INTEGER");
    StringBuilder values = new StringBuilder("1");
    StringBuilder nulls = new StringBuilder("2");
    for (int i = 0; i < cases.size(); i++) {
      columns.append(", c").append(i).append(' ').append(cases.get(i).type());
      values.append(", CAST(").append(cases.get(i).literal()).append(" AS ");
      values.append(cases.get(i).type()).append(')');
      nulls.append(", NULL");
    }
    server = RemoteServer.start(dir.resolve("types.duckdb"));
    remote = RemoteServer.connect(server);
    try (Statement s = remote.createStatement()) {
      s.execute("CREATE TABLE t (" + columns + ")");
      s.execute("CREATE MATERIALIZED VIEW v AS SELECT * FROM t");
      s.execute("INSERT INTO t VALUES (" + values + "), (" + nulls + ")");
      s.execute("REFRESH MATERIALIZED VIEW v");
    }
    // The server holds the database open, so this embedded connection shares it (same JVM).
    embedded = DriverManager.getConnection("jdbc:ivm:duckdb:" + dir.resolve("types.duckdb"));
  }

  @AfterAll
  void stop() throws SQLException {
    embedded.close();
    remote.close();
    server.close();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void valueAndNullArriveExactly(Case c) throws SQLException {
    int column = cases().stream().map(Case::type).toList().indexOf(c.type());
    String sql = "SELECT c" + column + " AS v FROM v ORDER BY id";
    String embeddedText;
    try (Statement s = embedded.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      embeddedText = rs.getString(1);
    }
    try (Statement s = remote.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      ResultSetMetaData metaData = rs.getMetaData();
      assertThat(metaData.getColumnType(1)).as("JDBC type").isEqualTo(c.jdbcType());
      assertThat(rs.next()).isTrue();
      Object value = rs.getObject(1);
      if (c.jdbcType() == Types.DATE) {
        assertThat(rs.getDate(1)).isEqualTo(Date.valueOf(embeddedText));
      } else if (c.jdbcType() == Types.TIMESTAMP) {
        assertThat(rs.getTimestamp(1)).isEqualTo(Timestamp.valueOf(embeddedText));
      }
      if (c.object() instanceof byte[] bytes) {
        assertThat(rs.getBytes(1)).isEqualTo(bytes);
      } else if (c.object() != null) {
        assertThat(value).isEqualTo(c.object());
      }
      assertThat(rs.getString(1)).isEqualTo(c.text() != null ? c.text() : embeddedText);
      assertThat(rs.next()).isTrue();
      assertThat(rs.getObject(1)).isNull();
      assertThat(rs.wasNull()).isTrue();
      assertThat(rs.getString(1)).isNull();
      assertThat(rs.next()).isFalse();
    }
  }

  /**
   * Dates travel as days and millisecond timestamps as milliseconds, both computed in UTC, so what
   * the server sends does not depend on its JVM's time zone. (Avatica's client fixes its own zone
   * when its classes load, so {@code getString}, which formats the value on the wire without a
   * zone, is what shows the server's part here.)
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"UTC", "Pacific/Kiritimati", "America/Los_Angeles"})
  void datesAndTimestampsDoNotDependOnTheTimeZone(String zone) throws SQLException {
    TimeZone saved = TimeZone.getDefault();
    TimeZone.setDefault(TimeZone.getTimeZone(zone));
    try (Connection c = RemoteServer.connect(server);
        Statement s = c.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT DATE '1969-12-31' AS d, DATE '2024-02-29' AS d2,"
                    + " TIMESTAMP_MS '1960-02-29 23:34:56.789' AS ms,"
                    + " TIMESTAMP '2024-02-29 23:59:59.999999' AS us")) {
      assertThat(rs.next()).isTrue();
      assertThat(rs.getString(1)).isEqualTo("1969-12-31");
      assertThat(rs.getString(2)).isEqualTo("2024-02-29");
      assertThat(rs.getString(3)).isEqualTo("1960-02-29 23:34:56.789");
      // microseconds arrive as text, which java.sql.Timestamp and LocalDateTime parse exactly
      assertThat(Timestamp.valueOf(rs.getString(4)).getNanos()).isEqualTo(999_999_000);
    } finally {
      TimeZone.setDefault(saved);
    }
  }
}
