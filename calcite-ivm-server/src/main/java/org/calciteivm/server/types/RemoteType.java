package org.calciteivm.server.types;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.sql.Date;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.sql.Types;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.util.Calendar;
import java.util.Locale;
import java.util.TimeZone;

/**
 * How a column of a DuckDB result reaches a remote client: the JDBC type the client is told and how
 * each value is read so that Avatica's protobuf serialization carries it exactly.
 *
 * <p>Avatica transports booleans, integers up to 64 bits, floats, doubles, {@link BigDecimal}s,
 * strings, bytes, dates as days and timestamps as milliseconds. Types it cannot carry, and
 * timestamps and times whose microseconds it would drop, travel as the text the embedded driver's
 * {@link ResultSet#getString} returns, so a remote {@code getString} equals an embedded one.
 *
 * @param jdbcType the {@link Types} code the client sees
 * @param precision the precision the client sees
 * @param scale the scale the client sees
 * @param className the Java class of the values the client receives
 * @param reading how the value is read from DuckDB's result
 */
public record RemoteType(
    int jdbcType, int precision, int scale, String className, Reading reading) {

  /** How a value is read from DuckDB's result before Avatica serializes it. */
  public enum Reading {
    /** DuckDB's own value already has a class Avatica serializes. */
    AS_IS,
    /** An unsigned 64-bit or 128-bit integer ({@link BigInteger}) as a {@link BigDecimal}. */
    BIG_INTEGER,
    /** A BLOB as bytes. */
    BYTES,
    /** A DATE as a {@link Date}, exact in the calendar the caller passes (days for Avatica). */
    DATE,
    /** A TIMESTAMP_S or TIMESTAMP_MS: milliseconds are all it has, so Avatica's form is exact. */
    TIMESTAMP_MILLIS,
    /** Everything else: the text of DuckDB's driver. */
    TEXT
  }

  /** The largest HUGEINT and UHUGEINT values have 39 digits. */
  private static final int INT128_DIGITS = 39;

  private static final int UBIGINT_DIGITS = 20;

  /** Chooses the remote type of column {@code column} of a DuckDB result. */
  public static RemoteType of(ResultSetMetaData metaData, int column) throws SQLException {
    String name = metaData.getColumnTypeName(column).toUpperCase(Locale.ROOT);
    int type = metaData.getColumnType(column);
    String asIsClass = metaData.getColumnClassName(column);
    int precision = metaData.getPrecision(column);
    int scale = metaData.getScale(column);
    return switch (name) {
      case "BOOLEAN" -> new RemoteType(Types.BOOLEAN, 1, 0, "java.lang.Boolean", Reading.AS_IS);
      // DuckDB's driver widens the unsigned types up to UINTEGER to the next signed type.
      case "TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER" ->
          new RemoteType(type, precision, 0, asIsClass, Reading.AS_IS);
      case "UBIGINT" -> bigInteger(UBIGINT_DIGITS);
      case "HUGEINT", "UHUGEINT" -> bigInteger(INT128_DIGITS);
      case "FLOAT" -> new RemoteType(Types.REAL, 7, 0, "java.lang.Float", Reading.AS_IS);
      case "DOUBLE" -> new RemoteType(Types.DOUBLE, 15, 0, "java.lang.Double", Reading.AS_IS);
      case "VARCHAR" ->
          new RemoteType(Types.VARCHAR, precision, 0, "java.lang.String", Reading.AS_IS);
      case "BLOB" -> new RemoteType(Types.VARBINARY, precision, 0, "[B", Reading.BYTES);
      case "DATE" -> new RemoteType(Types.DATE, 10, 0, "java.sql.Date", Reading.DATE);
      case "TIMESTAMP_S" ->
          new RemoteType(Types.TIMESTAMP, 0, 0, "java.sql.Timestamp", Reading.TIMESTAMP_MILLIS);
      case "TIMESTAMP_MS" ->
          new RemoteType(Types.TIMESTAMP, 3, 0, "java.sql.Timestamp", Reading.TIMESTAMP_MILLIS);
      default ->
          name.startsWith("DECIMAL")
              ? new RemoteType(
                  Types.DECIMAL, precision, scale, "java.math.BigDecimal", Reading.AS_IS)
              : text();
    };
  }

  private static RemoteType bigInteger(int digits) {
    return new RemoteType(Types.DECIMAL, digits, 0, "java.math.BigDecimal", Reading.BIG_INTEGER);
  }

  /**
   * A column whose values travel as text, typed VARCHAR. That includes TIMESTAMP WITH TIME ZONE:
   * Avatica declares JDBC's TIMESTAMP_WITH_TIMEZONE as a string too, but its client cannot {@code
   * getObject} a column of that type.
   */
  private static RemoteType text() {
    return new RemoteType(Types.VARCHAR, Integer.MAX_VALUE, 0, "java.lang.String", Reading.TEXT);
  }

  /** Whether the client sees a signed number (unsigned values arrive widened). */
  boolean signed() {
    return switch (jdbcType) {
      case Types.TINYINT,
          Types.SMALLINT,
          Types.INTEGER,
          Types.BIGINT,
          Types.REAL,
          Types.DOUBLE,
          Types.DECIMAL ->
          true;
      default -> false;
    };
  }

  /** Reads the value of {@code column} of the current row as the client receives it. */
  Object read(ResultSet resultSet, int column) throws SQLException {
    return switch (reading) {
      case AS_IS -> resultSet.getObject(column);
      case BIG_INTEGER -> {
        Object value = resultSet.getObject(column);
        yield value == null ? null : new BigDecimal((BigInteger) value);
      }
      case BYTES -> resultSet.getBytes(column);
      case DATE -> date(resultSet, column, TimeZone.getTimeZone("UTC"));
      case TIMESTAMP_MILLIS -> timestamp(resultSet, column, TimeZone.getTimeZone("UTC"));
      case TEXT -> resultSet.getString(column);
    };
  }

  /** A DATE value as midnight of its day in {@code zone}. */
  static Date date(ResultSet resultSet, int column, TimeZone zone) throws SQLException {
    LocalDate date = resultSet.getObject(column, LocalDate.class);
    return date == null
        ? null
        : new Date(date.atStartOfDay(zone.toZoneId()).toInstant().toEpochMilli());
  }

  /** A timestamp value as its wall-clock time in {@code zone}. */
  static Timestamp timestamp(ResultSet resultSet, int column, TimeZone zone) throws SQLException {
    LocalDateTime value = resultSet.getObject(column, LocalDateTime.class);
    if (value == null) {
      return null;
    }
    ZoneId zoneId = zone.toZoneId();
    Timestamp timestamp = new Timestamp(value.atZone(zoneId).toInstant().toEpochMilli());
    timestamp.setNanos(value.getNano());
    return timestamp;
  }

  /** The time zone of {@code calendar}, or the JVM's when the caller passes none. */
  static TimeZone zoneOf(Calendar calendar) {
    return calendar == null ? TimeZone.getDefault() : calendar.getTimeZone();
  }
}
