package org.calciteivm.cli;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import sqlline.SqlLine;

/**
 * {@code calcite-ivm shell}: an interactive SQL shell (sqlline) connected through the calcite-ivm
 * driver, so materialized view statements work as in any JDBC application.
 */
@Command(
    name = "shell",
    description = {
      "Opens an interactive SQL shell (sqlline).",
      "",
      "The shell connects through the calcite-ivm driver, so materialized view statements work "
          + "in it, or with --url to any JDBC URL, such as a calcite-ivm server's. End statements "
          + "with ';'. !help lists the shell's commands, !quit leaves it."
    })
final class ShellCommand implements Callable<Integer> {
  private static final int UNKNOWN_TERMINAL_WIDTH = 1000;

  // Held here because java.util.logging keeps only weak references to its loggers.
  private static final Logger JLINE_LOGGER = Logger.getLogger("org.jline");

  @Mixin ConnectionOptions connectionOptions;

  @Parameters(
      paramLabel = "SQLLINE_OPTION",
      description =
          "further sqlline options, after '--' (for example: -- --outputformat=csv -f script.sql)")
  List<String> sqllineOptions = new ArrayList<>();

  /**
   * The URL sqlline connects to. sqlline passes credentials as {@code user} and {@code password},
   * which Avatica's driver does not read: for it they go into the URL under Avatica's names.
   */
  private String sqllineUrl() {
    String url = connectionOptions.url();
    if (!url.startsWith(ConnectionOptions.AVATICA_PREFIX) || connectionOptions.user == null) {
      return url;
    }
    StringBuilder withCredentials = new StringBuilder(url);
    connectionOptions
        .properties()
        .forEach(
            (name, value) -> {
              if (!name.equals("user") && !name.equals("password")) {
                withCredentials.append(';').append(name).append('=').append(value);
              }
            });
    return withCredentials.toString();
  }

  @Override
  public Integer call() throws IOException {
    List<String> args = new ArrayList<>();
    args.add("-u");
    args.add(sqllineUrl());
    if (connectionOptions.isIvm()) {
      args.add("-d");
      args.add(Databases.DRIVER_CLASS);
    }
    String password = connectionOptions.user == null ? null : connectionOptions.password();
    if (connectionOptions.user != null) {
      args.add("-n");
      args.add(connectionOptions.user);
    }
    if (password != null) {
      args.add("-p");
      args.add(password);
    }
    // Without this sqlline would prompt for a name and a password (DuckDB has no users).
    args.add("--connectInteractionMode=notAskCredentials");
    args.add("--nullValue=NULL");
    if (System.console() == null) {
      // Without a terminal sqlline sees a width of 0 and prints empty columns; jline warns.
      args.add("--maxWidth=" + UNKNOWN_TERMINAL_WIDTH);
      JLINE_LOGGER.setLevel(Level.SEVERE);
    }
    args.addAll(sqllineOptions);
    SqlLine.Status status = SqlLine.start(args.toArray(new String[0]), null, true);
    return status == SqlLine.Status.OK ? ExitCode.OK : ExitCode.SOFTWARE;
  }
}
