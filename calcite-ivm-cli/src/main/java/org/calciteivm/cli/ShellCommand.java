package org.calciteivm.cli;

import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.sql.Connection;
import java.sql.Driver;
import java.sql.DriverManager;
import java.sql.DriverPropertyInfo;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLWarning;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.logging.Level;
import java.util.logging.Logger;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import sqlline.BuiltInProperty;
import sqlline.SqlLine;

/**
 * {@code calcite-ivm shell}: an interactive SQL shell (sqlline) connected through the calcite-ivm
 * driver, so materialized view statements work as in any JDBC application.
 *
 * <p>Without a terminal (standard input or output redirected) the shell runs what standard input
 * holds as a script: no prompts on stdout, and like {@code run} it stops at the first failing
 * statement (unless sqlline's {@code --force=true}) and exits with 1 if a statement failed.
 */
@Command(
    name = "shell",
    description = {
      "Opens an interactive SQL shell (sqlline).",
      "",
      "The shell connects through the calcite-ivm driver, so materialized view statements work "
          + "in it, or with --url to any JDBC URL, such as a calcite-ivm server's. End statements "
          + "with ';'. !help lists the shell's commands, !quit leaves it. Without a terminal, it "
          + "runs standard input as a script: it stops at the first failing statement (unless "
          + "-- --force=true) and exits with 1 if a statement failed."
    })
final class ShellCommand implements Callable<Integer> {
  private static final int UNKNOWN_TERMINAL_WIDTH = 1000;

  // Held here because java.util.logging keeps only weak references to its loggers.
  private static final Logger JLINE_LOGGER = Logger.getLogger("org.jline");

  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connectionOptions;

  @Parameters(
      paramLabel = "SQLLINE_OPTION",
      description =
          "further sqlline options, after '--' (for example: -- --outputformat=csv -f script.sql)")
  List<String> sqllineOptions = new ArrayList<>();

  @Override
  public Integer call() throws IOException, SQLException {
    // First: with --password and no terminal, the first line of standard input is the password.
    ConnectionOptions.Resolved target = connectionOptions.resolve(spec);
    boolean interactive = System.console() != null;

    List<String> args = new ArrayList<>();
    args.add("-u");
    args.add(TargetDriver.URL);
    String shownUrl = target.shownUrl();
    if (interactive && shownUrl.chars().noneMatch(Character::isWhitespace)) {
      // The prompt shows the nickname instead of the URL sqlline connects to.
      args.add("-nn");
      args.add(shownUrl);
    }
    // Without this sqlline would prompt for a name and a password (DuckDB has no users).
    args.add("--connectInteractionMode=notAskCredentials");
    args.add("--nullValue=NULL");
    if (!interactive) {
      // Without a terminal sqlline sees a width of 0 and prints empty columns; jline warns.
      args.add("--maxWidth=" + UNKNOWN_TERMINAL_WIDTH);
      JLINE_LOGGER.setLevel(Level.SEVERE);
    }
    args.addAll(sqllineOptions);

    Shell shell = new Shell(target.secrets(), !interactive);
    if (!interactive) {
      // Prompts would be mixed into the results on stdout.
      shell.getOpts().set(BuiltInProperty.PROMPT, "");
    }
    TargetDriver driver = new TargetDriver(target);
    DriverManager.registerDriver(driver);
    try {
      // sqlline's terminal reads the file descriptor of standard input, not System.in: Main made
      // System.in unbuffered, so a password read from it left the rest for the shell.
      SqlLine.Status status = shell.begin(args.toArray(new String[0]), null, interactive);
      if (status == SqlLine.Status.ARGS) {
        return ExitCode.USAGE;
      }
      if (interactive) {
        return status == SqlLine.Status.OK ? ExitCode.OK : ExitCode.SOFTWARE;
      }
      return shell.failed || status != SqlLine.Status.OK ? ExitCode.SOFTWARE : ExitCode.OK;
    } finally {
      DriverManager.deregisterDriver(driver);
    }
  }

  /**
   * sqlline with the tool's error messages: one line, without credentials, and recorded, so that
   * the shell can stop at the first failure and say so in its exit code when it runs a script.
   */
  private static final class Shell extends SqlLine {
    private final List<String> secrets;
    private final boolean script;
    boolean failed;

    Shell(List<String> secrets, boolean script) {
      this.secrets = secrets;
      this.script = script;
    }

    @Override
    public void handleException(Throwable e) {
      Throwable thrown = e;
      while (thrown instanceof InvocationTargetException invocation) {
        thrown = invocation.getTargetException();
      }
      if (thrown instanceof SQLWarning) {
        super.handleException(thrown);
        return;
      }
      failed = true;
      super.error("Error: " + ErrorMessages.oneLine(thrown, secrets));
      if (script && !getOpts().getForce()) {
        setExit(true);
      }
    }

    @Override
    public boolean error(String message) {
      return super.error(ErrorMessages.mask(message, secrets));
    }
  }

  /**
   * The JDBC driver sqlline connects through. sqlline hands a driver credentials only as {@code
   * user} and {@code password}, which Avatica's remote driver does not read, and shows the URL in
   * its prompt and messages; so sqlline connects to this driver's opaque URL, and the driver opens
   * the real URL with the real properties.
   */
  private static final class TargetDriver implements Driver {
    static final String URL = "jdbc:calcite-ivm-shell:";

    private final ConnectionOptions.Resolved target;

    TargetDriver(ConnectionOptions.Resolved target) {
      this.target = target;
    }

    @Override
    public Connection connect(String url, Properties info) throws SQLException {
      if (!acceptsURL(url)) {
        return null;
      }
      if (acceptsURL(target.url())) {
        throw new SQLException("cannot connect to " + URL + ", the shell's own URL");
      }
      try {
        return DriverManager.getConnection(target.url(), target.properties());
      } catch (RuntimeException e) {
        // Avatica's driver reports a refused or unreachable server as a RuntimeException.
        throw new SQLException(ErrorMessages.oneLine(e, target.secrets()), e);
      }
    }

    @Override
    public boolean acceptsURL(String url) {
      return URL.equals(url);
    }

    @Override
    public DriverPropertyInfo[] getPropertyInfo(String url, Properties info) {
      return new DriverPropertyInfo[0];
    }

    @Override
    public int getMajorVersion() {
      return 1;
    }

    @Override
    public int getMinorVersion() {
      return 0;
    }

    @Override
    public boolean jdbcCompliant() {
      return false;
    }

    @Override
    public Logger getParentLogger() throws SQLFeatureNotSupportedException {
      throw new SQLFeatureNotSupportedException();
    }
  }
}
