package org.calciteivm.cli;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.calcite.avatica.AvaticaSqlException;

/**
 * Turns exception messages into the one-line form the tool prints after {@code error: }: without
 * credentials, without the wrapping Avatica's remote driver adds, with a hint where the cause is a
 * known mistake.
 */
final class ErrorMessages {
  /** What every masked credential is replaced with. */
  static final String MASK = "***";

  /**
   * Lines of DuckDB's error context: {@code LINE 1: <statement>} and the line of carets under it.
   * They only make sense in a fixed-width block of several lines, so a one-line message drops them.
   */
  private static final Pattern CONTEXT_LINE = Pattern.compile("LINE \\d+:.*|\\s*\\^+\\s*");

  /**
   * A password-like parameter of a JDBC URL or a property list: {@code avatica_password=...},
   * {@code password=...}, {@code truststore_password=...}, {@code pwd=...}, {@code secret=...}; the
   * value runs to the next separator.
   */
  private static final Pattern SECRET_PARAMETER =
      Pattern.compile("(?i)(\\b\\w*(?:password|passwd|pwd|secret)\\s*=\\s*)([^;&,}\\s'\"]+)");

  /** The user information of a URL with a password: {@code http://user:password@host}. */
  private static final Pattern URL_USER_INFO = Pattern.compile("(//[^/@:\\s;]*:)([^/@\\s;]+)@");

  /**
   * What Avatica's client puts before the server's message, {@code Error while executing SQL
   * "<statement>": }, for when the statement is not known: up to the server's wrapping if there is
   * one, else up to the first {@code ": }.
   */
  private static final Pattern EXECUTING_PREFIX =
      Pattern.compile(
          "^Error while executing SQL \"(?s:.*?)\": (?=Remote driver error: )"
              + "|^Error while executing SQL \"(?s:.*?)\": ");

  /** Avatica's server's wrapping of an exception it did not expect: its causal chain. */
  private static final String REMOTE_DRIVER_ERROR = "Remote driver error: ";

  /** The separator of the causal chain, before the next exception's class name. */
  private static final Pattern CHAIN_SEPARATOR =
      Pattern.compile(" -> (?=[\\w$.]*(?:Exception|Error|Throwable): )");

  /** An exception's class name before its message, as {@code toString()} writes it. */
  private static final Pattern CLASS_PREFIX =
      Pattern.compile("^(?:[a-z][\\w$]*\\.)*[A-Z][\\w$]*(?:Exception|Error|Throwable): ");

  /** Said when Avatica's JSON client got protobuf from a calcite-ivm server. */
  static final String PROTOBUF_HINT =
      "the server speaks protobuf: add ;serialization=protobuf to the URL";

  /** Avatica's client's message when the server refuses the credentials. */
  private static final String HTTP_401 = "got HTTP/401";

  /** Said instead. */
  static final String UNAUTHORIZED =
      "the server refused the user name or password (HTTP 401: check --user and --password)";

  private ErrorMessages() {}

  /** Returns the message of {@code e} on one line, without DuckDB's statement context. */
  static String oneLine(Throwable e) {
    return oneLine(e, null, List.of());
  }

  /**
   * Returns the message of {@code e} on one line, without DuckDB's statement context, with every
   * password-like URL parameter and every one of {@code secrets} masked.
   */
  static String oneLine(Throwable e, Collection<String> secrets) {
    return oneLine(e, null, secrets);
  }

  /**
   * Returns the message of {@code e}, thrown by running {@code sql} (or null if not known), on one
   * line, without DuckDB's statement context, with every password-like URL parameter and every one
   * of {@code secrets} masked.
   */
  static String oneLine(Throwable e, String sql, Collection<String> secrets) {
    if (causedByJsonParsing(e)) {
      return PROTOBUF_HINT;
    }
    String message = message(e, sql);
    if (message == null || message.isBlank()) {
      return e.getClass().getSimpleName();
    }
    if (message.endsWith(HTTP_401)) {
      return UNAUTHORIZED;
    }
    String line =
        message
            .lines()
            .map(String::strip)
            .filter(l -> !l.isEmpty() && !CONTEXT_LINE.matcher(l).matches())
            .collect(Collectors.joining(" "));
    return mask(line, secrets);
  }

  /** Returns {@code text} with password-like URL parameters and {@code secrets} masked. */
  static String mask(String text, Collection<String> secrets) {
    String masked = text;
    for (String secret : secrets) {
      if (secret != null && !secret.isEmpty()) {
        masked = masked.replace(secret, MASK);
      }
    }
    masked = SECRET_PARAMETER.matcher(masked).replaceAll("$1" + Matcher.quoteReplacement(MASK));
    return URL_USER_INFO.matcher(masked).replaceAll("$1" + Matcher.quoteReplacement(MASK) + "@");
  }

  /** Returns {@code url} with password-like parameters masked. */
  static String maskUrl(String url) {
    return mask(url, List.of());
  }

  /**
   * The message worth printing: for Avatica's remote driver the server's message, once; for an
   * exception that only wraps its cause (as Avatica's client wraps connection failures), the
   * cause's.
   */
  private static String message(Throwable e, String sql) {
    if (e instanceof AvaticaSqlException remote && remote.getErrorMessage() != null) {
      return remoteMessage(remote.getErrorMessage(), sql);
    }
    Throwable shown = e;
    while (shown.getCause() != null
        && shown.getMessage() != null
        && shown.getMessage().equals(shown.getCause().toString())) {
      shown = shown.getCause();
    }
    return shown.getMessage();
  }

  /**
   * Returns the server's message of an Avatica error: without the client's {@code Error while
   * executing SQL "...": } and, where the server wrapped the exception, without {@code Remote
   * driver error:}, class names and repeats of its causal chain ({@code RuntimeException:
   * java.sql.SQLException: m -> SQLException: m} is {@code m}). {@code sql} is the statement that
   * failed, or null if not known.
   */
  static String remoteMessage(String errorMessage, String sql) {
    String knownPrefix = sql == null ? null : "Error while executing SQL \"" + sql + "\": ";
    String message =
        knownPrefix != null && errorMessage.startsWith(knownPrefix)
            ? errorMessage.substring(knownPrefix.length())
            : EXECUTING_PREFIX.matcher(errorMessage).replaceFirst("");
    if (!message.startsWith(REMOTE_DRIVER_ERROR)) {
      return message;
    }
    message = message.substring(REMOTE_DRIVER_ERROR.length());
    List<String> kept = new ArrayList<>();
    for (String part : CHAIN_SEPARATOR.split(message)) {
      String text = part;
      for (Matcher m = CLASS_PREFIX.matcher(text); m.find(); m = CLASS_PREFIX.matcher(text)) {
        text = text.substring(m.end());
      }
      String stripped = text.strip();
      // A wrapper's message often is its cause's, or contains it: say each thing once.
      if (kept.stream().anyMatch(k -> k.contains(stripped))) {
        continue;
      }
      kept.removeIf(stripped::contains);
      kept.add(stripped);
    }
    return String.join(": ", kept);
  }

  /**
   * Whether {@code e} failed because Avatica's JSON client read something that is not JSON, which
   * is what a calcite-ivm server's protobuf answers look like to it.
   */
  private static boolean causedByJsonParsing(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t.getClass().getName().endsWith("JsonParseException")) {
        return true;
      }
    }
    return false;
  }
}
