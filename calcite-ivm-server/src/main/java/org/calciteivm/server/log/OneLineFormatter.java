package org.calciteivm.server.log;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * Formats a log record as one line: the instant in UTC (ISO-8601), the level, the message, and the
 * {@link ServerLog#summary} of an exception, such as {@code 2026-12-01T14:05:09.120Z WARNING failed
 * login as 'alice' from 10.0.0.7}. One line per event keeps the log easy to read with {@code grep}
 * and safe to collect line by line.
 */
public final class OneLineFormatter extends Formatter {
  private static final DateTimeFormatter INSTANT =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

  @Override
  public String format(LogRecord record) {
    StringBuilder line =
        new StringBuilder()
            .append(INSTANT.format(record.getInstant()))
            .append(' ')
            .append(record.getLevel().getName())
            .append(' ')
            .append(formatMessage(record));
    if (record.getThrown() != null) {
      line.append(": ").append(ServerLog.summary(record.getThrown()));
    }
    // A message can hold line breaks only by mistake; they would split the event.
    return line.toString().replaceAll("[\\r\\n]+", " ") + System.lineSeparator();
  }
}
