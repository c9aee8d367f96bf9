package org.calciteivm.jdbc.catalog;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * When a materialized view is brought up to date: the option {@code refresh} of {@code CREATE
 * MATERIALIZED VIEW v WITH (refresh = '...')} and {@code ALTER MATERIALIZED VIEW v SET (refresh =
 * '...')}. Not to be confused with the refresh mode ({@code ivm_refresh_mode}), which says how a
 * refresh applies a change (incremental or full), not when it runs.
 *
 * @param kind deferred, immediate or scheduled
 * @param text the option's value as {@code ivm_views} shows it: {@code deferred}, {@code immediate}
 *     or {@code every <interval>}, with the interval as the user wrote it
 * @param intervalMillis for a scheduled view, the time between two refreshes; 0 otherwise
 */
public record RefreshTiming(Kind kind, String text, long intervalMillis) {
  /** The timing of a view created without the option, and of every view before there was one. */
  public static final RefreshTiming DEFERRED = new RefreshTiming(Kind.DEFERRED, "deferred", 0);

  /** The timing of an immediate view. */
  public static final RefreshTiming IMMEDIATE = new RefreshTiming(Kind.IMMEDIATE, "immediate", 0);

  /** The shortest interval of a scheduled view: the scheduler's own granularity. */
  static final long SHORTEST_INTERVAL_MILLIS = 100;

  /** When a view is refreshed. */
  public enum Kind {
    /** By {@code REFRESH MATERIALIZED VIEW} only (the default). */
    DEFERRED,
    /** By every captured write to a table it reads, in the writer's transaction. */
    IMMEDIATE,
    /** In the background, every {@link #intervalMillis}. */
    SCHEDULED
  }

  /**
   * The timing a {@code refresh} option's value names: {@code deferred}, {@code immediate} or
   * {@code every <interval>}, with any interval DuckDB parses ({@code every 5 seconds}, {@code
   * every 1 hour 30 minutes}), case-insensitively; {@code duckDb} parses the interval.
   *
   * @throws SQLException SQLState 22023 naming the problem if the value is none of these
   */
  public static RefreshTiming parse(Connection duckDb, String value) throws SQLException {
    String text = value.strip();
    String lower = text.toLowerCase(Locale.ROOT);
    if (lower.equals("deferred")) {
      return DEFERRED;
    }
    if (lower.equals("immediate")) {
      return IMMEDIATE;
    }
    if (lower.startsWith("every ") || lower.startsWith("every\t")) {
      String interval = text.substring("every".length()).strip();
      long millis = intervalMillis(duckDb, interval, value);
      if (millis < SHORTEST_INTERVAL_MILLIS) {
        throw invalid(
            value, "the interval must be at least " + SHORTEST_INTERVAL_MILLIS + " milliseconds");
      }
      return new RefreshTiming(Kind.SCHEDULED, "every " + interval, millis);
    }
    throw invalid(
        value, "use 'deferred', 'immediate' or 'every <interval>', e.g. 'every 5 seconds'");
  }

  /**
   * The timing a {@code refresh} option's value names ({@link #parse}), or {@link #DEFERRED} if the
   * option is not given ({@code value} null).
   */
  public static RefreshTiming option(Connection duckDb, @Nullable String value)
      throws SQLException {
    return value == null ? DEFERRED : parse(duckDb, value);
  }

  /** The timing stored in the catalog as {@code text} and {@code intervalMillis}. */
  static RefreshTiming stored(String text, long intervalMillis) {
    String lower = text.toLowerCase(Locale.ROOT);
    if (lower.equals("immediate")) {
      return IMMEDIATE;
    }
    if (lower.startsWith("every")) {
      return new RefreshTiming(Kind.SCHEDULED, text, intervalMillis);
    }
    return DEFERRED;
  }

  /** Whether every captured write to a table the view reads brings it up to date. */
  public boolean isImmediate() {
    return kind == Kind.IMMEDIATE;
  }

  /** Whether a scheduler refreshes the view in the background. */
  public boolean isScheduled() {
    return kind == Kind.SCHEDULED;
  }

  private static long intervalMillis(Connection duckDb, String interval, String value)
      throws SQLException {
    try (PreparedStatement s =
        duckDb.prepareStatement(
            "SELECT CAST(round(epoch(CAST(? AS INTERVAL)) * 1000) AS BIGINT)")) {
      s.setString(1, interval);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1);
      }
    } catch (SQLException e) {
      throw invalid(value, "DuckDB cannot read \"" + interval + "\" as an interval");
    }
  }

  private static SQLException invalid(String value, String why) {
    return new SQLException("invalid value for option refresh: '" + value + "': " + why, "22023");
  }
}
