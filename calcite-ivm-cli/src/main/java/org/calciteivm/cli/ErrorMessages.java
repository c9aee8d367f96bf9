package org.calciteivm.cli;

import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Turns exception messages into the one-line form the tool prints after {@code error: }. */
final class ErrorMessages {
  /**
   * Lines of DuckDB's error context: {@code LINE 1: <statement>} and the line of carets under it.
   * They only make sense in a fixed-width block of several lines, so a one-line message drops them.
   */
  private static final Pattern CONTEXT_LINE = Pattern.compile("LINE \\d+:.*|\\s*\\^+\\s*");

  private ErrorMessages() {}

  /** Returns the message of {@code e} on one line, without DuckDB's statement context. */
  static String oneLine(Throwable e) {
    String message = e.getMessage();
    if (message == null || message.isBlank()) {
      return e.getClass().getSimpleName();
    }
    return message
        .lines()
        .map(String::strip)
        .filter(line -> !line.isEmpty() && !CONTEXT_LINE.matcher(line).matches())
        .collect(Collectors.joining(" "));
  }
}
