package org.calciteivm.cli;

import java.nio.file.Path;
import java.util.Properties;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Option;

/**
 * Where {@code run} and {@code shell} connect: a calcite-ivm database ({@code --db}, or in-memory),
 * or any JDBC URL ({@code --url}, such as a {@code serve}r's), with an optional user and password.
 */
final class ConnectionOptions {
  /** The URL prefix of Avatica's remote driver, whose credentials have their own names. */
  static final String AVATICA_PREFIX = "jdbc:avatica:remote:";

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

  @Option(
      names = "--password",
      paramLabel = "PASSWORD",
      arity = "0..1",
      interactive = true,
      prompt = "password: ",
      description =
          "password for --url; without a value it is asked for (an empty answer takes the"
              + " environment variable CALCITE_IVM_PASSWORD)")
  char[] password;

  /** The JDBC URL to connect to. */
  String url() {
    return target.url != null ? target.url : Databases.url(target.db);
  }

  /** Whether the URL is the calcite-ivm driver's own. */
  boolean isIvm() {
    return url().startsWith(Databases.URL_PREFIX);
  }

  /** The password, from the option or the environment, or null. */
  String password() {
    if (password != null && password.length > 0) {
      return new String(password);
    }
    return System.getenv("CALCITE_IVM_PASSWORD");
  }

  /**
   * The connection properties: {@code user} and {@code password}, and for Avatica's remote driver
   * also its own names for them and BASIC authentication, unless the URL chooses otherwise.
   */
  Properties properties() {
    Properties properties = new Properties();
    String password = user == null ? null : password();
    if (user != null) {
      properties.setProperty("user", user);
      if (url().startsWith(AVATICA_PREFIX)) {
        properties.setProperty("avatica_user", user);
        if (!url().contains("authentication=")) {
          properties.setProperty("authentication", "BASIC");
        }
      }
    }
    if (password != null) {
      properties.setProperty("password", password);
      if (url().startsWith(AVATICA_PREFIX)) {
        properties.setProperty("avatica_password", password);
      }
    }
    return properties;
  }
}
