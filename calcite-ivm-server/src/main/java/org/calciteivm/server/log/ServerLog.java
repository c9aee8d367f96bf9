package org.calciteivm.server.log;

import java.io.PrintWriter;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The server's log: one line per event (start and stop, failed logins and refused ones, every HTTP
 * error answer, server errors), written through {@code java.util.logging} under the logger {@value
 * #NAME}, so that an application embedding the server routes it with the rest of its logging, and
 * {@code serve} writes it to standard error ({@link #writeTo}).
 *
 * <p>Nothing a client sends is logged verbatim: user names and paths are {@link #quote quoted}
 * (control characters escaped, length cut), so that a client cannot forge log lines. Passwords,
 * Authorization headers, request bodies and SQL are never logged: SQL may carry secrets too ({@code
 * CREATE SECRET}), and DuckDB repeats the statement in its error messages.
 */
public final class ServerLog {
  /** The name of the server's {@code java.util.logging} logger. */
  public static final String NAME = "org.calciteivm.server";

  /**
   * The logger, held here: {@code java.util.logging} keeps loggers only weakly, and a logger that
   * is collected loses the handler {@link #writeTo} gave it.
   */
  private static final Logger LOGGER = Logger.getLogger(NAME);

  /** The longest text of a client that a line repeats. */
  private static final int QUOTED_LENGTH = 64;

  private ServerLog() {}

  /** Logs an event of the server's normal life, such as start and stop or an HTTP error answer. */
  public static void info(String message) {
    LOGGER.info(message);
  }

  /** Logs what may be an attack or a misconfigured client, such as a failed login. */
  public static void warning(String message) {
    LOGGER.warning(message);
  }

  /** Logs a failure of the server itself; the line ends with {@link #summary} of {@code e}. */
  public static void error(String message, Throwable e) {
    LOGGER.log(Level.SEVERE, message, e);
  }

  /**
   * Sends the log to {@code out}, one line per event in {@link OneLineFormatter}'s form, instead of
   * to the handlers of the parent loggers; returns the handler, for {@link #stopWritingTo}.
   */
  public static Handler writeTo(PrintWriter out) {
    Handler handler =
        new Handler() {
          @Override
          public void publish(LogRecord record) {
            if (isLoggable(record)) {
              out.print(getFormatter().format(record));
              out.flush();
            }
          }

          @Override
          public void flush() {
            out.flush();
          }

          @Override
          public void close() {
            out.flush();
          }
        };
    handler.setFormatter(new OneLineFormatter());
    handler.setLevel(Level.INFO);
    LOGGER.addHandler(handler);
    LOGGER.setUseParentHandlers(false);
    return handler;
  }

  /** Undoes {@link #writeTo}: the log goes to the parent loggers' handlers again. */
  public static void stopWritingTo(Handler handler) {
    LOGGER.removeHandler(handler);
    if (LOGGER.getHandlers().length == 0) {
      LOGGER.setUseParentHandlers(true);
    }
  }

  /**
   * Text a client sent, safe to log: in quotes, with control and non-ASCII characters, quotes and
   * backslashes escaped as {@code \}{@code uXXXX}, and cut to {@value #QUOTED_LENGTH} characters.
   */
  public static String quote(String text) {
    return text == null ? "(none)" : "'" + escape(text, true) + "'" + cut(text);
  }

  /**
   * A word a client sent (a method, a path), safe to log: as {@link #quote} but without quotes,
   * spaces escaped too.
   */
  public static String word(String text) {
    return text == null ? "(none)" : escape(text, false) + cut(text);
  }

  private static String escape(String text, boolean spaces) {
    StringBuilder escaped = new StringBuilder();
    for (int i = 0; i < Math.min(text.length(), QUOTED_LENGTH); i++) {
      char c = text.charAt(i);
      if (c < 0x20 || c > 0x7e || c == '\'' || c == '\\' || (c == ' ' && !spaces)) {
        escaped.append(String.format("\\u%04x", (int) c));
      } else {
        escaped.append(c);
      }
    }
    return escaped.toString();
  }

  private static String cut(String text) {
    return text.length() > QUOTED_LENGTH ? "... (" + text.length() + " characters)" : "";
  }

  /**
   * An exception on one line: its class and message, then each cause's, joined by {@code <-}
   * (without stack traces: a server error's class and message say what failed; where is for a
   * debugger).
   */
  public static String summary(Throwable e) {
    StringBuilder line = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (line.length() > 0) {
        line.append(" <- ");
      }
      line.append(t.getClass().getSimpleName());
      if (t.getMessage() != null) {
        line.append(": ").append(t.getMessage().strip().replaceAll("\\s+", " "));
      }
    }
    return line.toString();
  }
}
