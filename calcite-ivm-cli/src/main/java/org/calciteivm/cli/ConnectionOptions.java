package org.calciteivm.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.Console;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Stack;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.IParameterPreprocessor;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Where {@code run} and {@code shell} connect: a calcite-ivm database ({@code --db}, or in-memory),
 * or any JDBC URL ({@code --url}, such as a {@code serve}r's), with an optional user and password.
 */
final class ConnectionOptions {
  /** The URL prefix of Avatica's remote driver, whose credentials have their own names. */
  static final String AVATICA_PREFIX = "jdbc:avatica:remote:";

  /** The environment variable that holds the password when none is given or typed. */
  static final String PASSWORD_VARIABLE = "CALCITE_IVM_PASSWORD";

  /** The prompt for {@code --password} without a value. */
  static final String PROMPT = "password: ";

  @ArgGroup(exclusive = true)
  Target target = new Target();

  /** Either a database file or a URL. */
  static final class Target {
    @Option(
        names = "--db",
        paramLabel = "PATH",
        description = "DuckDB database file, created if missing (default: in-memory)")
    Path db;

    @Option(
        names = "--url",
        paramLabel = "JDBC_URL",
        description =
            "connect to this JDBC URL instead, e.g. a server's"
                + " jdbc:avatica:remote:url=http://127.0.0.1:8765;serialization=protobuf")
    String url;
  }

  @Option(names = "--user", paramLabel = "NAME", description = "user name for --url")
  String user;

  // Not picocli's interactive option: it would take the next argument (a script) as the
  // password, print its prompt on stdout and read standard input through a buffer.
  @Option(
      names = "--password",
      paramLabel = "PASSWORD",
      arity = "0..1",
      preprocessor = ValueOnlyAfterEquals.class,
      description =
          "password for --user: --password=PASSWORD gives it; --password alone asks for it on the"
              + " terminal, or else reads the first line of standard input (an empty answer takes"
              + " the environment variable "
              + PASSWORD_VARIABLE
              + "); without --password, "
              + PASSWORD_VARIABLE
              + " is used if set")
  String password;

  /** Whether {@code --password} came without a value, so the password is to be asked for. */
  boolean askPassword;

  /**
   * Lets {@code --password} take a value only when it is attached with {@code =}: an option with an
   * optional value must not eat the next argument, a script or {@code -} for standard input.
   */
  static final class ValueOnlyAfterEquals implements IParameterPreprocessor {
    @Override
    public boolean preprocess(
        Stack<String> args, CommandSpec commandSpec, ArgSpec argSpec, Map<String, Object> info) {
      if ("=".equals(info.get("separator"))) {
        return false; // picocli takes the attached value
      }
      try {
        ConnectionOptions options = argSpec.scope().get();
        options.askPassword = true;
      } catch (Exception e) {
        throw new IllegalStateException("cannot reach the options of --password", e);
      }
      return true; // consumed: no value
    }
  }

  /**
   * A connection with its credentials settled: the URL, the properties to open it with, and the
   * password (or null), which messages must never show.
   */
  record Resolved(String url, Properties properties, String password) {
    /** The secrets to mask in messages. */
    List<String> secrets() {
      return password == null ? List.of() : List.of(password);
    }

    /** The URL as messages may show it. */
    String shownUrl() {
      return ErrorMessages.mask(url, secrets());
    }
  }

  /** The JDBC URL to connect to. */
  String url() {
    return target.url != null ? target.url : Databases.url(target.db);
  }

  /**
   * Settles the credentials: takes the password from the option, asks for it (see {@link #ask}) or
   * takes it from the environment. Commands call this before anything else reads standard input, so
   * that its first line is the password.
   *
   * @throws ParameterException if {@code --password} comes without {@code --user}
   */
  Resolved resolve(CommandSpec spec) throws IOException {
    if (user == null && (password != null || askPassword)) {
      throw new ParameterException(spec.commandLine(), "--password needs --user");
    }
    String url = url();
    if (user == null) {
      return new Resolved(url, new Properties(), null);
    }
    String secret = password;
    if (secret == null && askPassword) {
      secret = ask(spec.commandLine().getErr());
    }
    if (secret == null || secret.isEmpty()) {
      secret = System.getenv(PASSWORD_VARIABLE);
    }
    if (secret != null && secret.isEmpty()) {
      secret = null;
    }
    return new Resolved(url, properties(url, user, secret), secret);
  }

  /**
   * The connection properties: {@code user} and {@code password}, and for Avatica's remote driver
   * also its own names for them and BASIC authentication, unless the URL chooses otherwise.
   */
  private static Properties properties(String url, String user, String password) {
    Properties properties = new Properties();
    boolean avatica = url.startsWith(AVATICA_PREFIX);
    properties.setProperty("user", user);
    if (avatica) {
      properties.setProperty("avatica_user", user);
      if (!url.contains("authentication=")) {
        properties.setProperty("authentication", "BASIC");
      }
    }
    if (password != null) {
      properties.setProperty("password", password);
      if (avatica) {
        properties.setProperty("avatica_password", password);
      }
    }
    return properties;
  }

  /**
   * Asks for the password: on the terminal without echo when there is one; otherwise the prompt
   * goes to stderr (stdout carries only results) and the answer is the first line of standard
   * input.
   */
  private static String ask(PrintWriter err) throws IOException {
    Console console = System.console();
    if (console != null) {
      char[] answer = console.readPassword(PROMPT);
      return answer == null ? null : new String(answer);
    }
    err.print(PROMPT);
    err.flush();
    String answer = readLine(System.in);
    // The answer was not echoed: end the prompt's line.
    err.println();
    return answer;
  }

  /**
   * Reads one line of {@code in}, byte by byte: a buffered reader would take more than the line,
   * and the rest of standard input belongs to the script or the shell. Returns null at the end of
   * input.
   */
  static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int b = in.read();
    if (b == -1) {
      return null;
    }
    while (b != -1 && b != '\n') {
      line.write(b);
      b = in.read();
    }
    String text = line.toString(UTF_8);
    return text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
  }
}
