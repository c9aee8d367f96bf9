package org.calciteivm.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.calciteivm.jdbc.sql.SqlScript;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code calcite-ivm run}: runs SQL scripts through the calcite-ivm driver and prints each result
 * set as tab-separated lines, and the update count of each statement that changes rows (see {@link
 * ResultPrinter}).
 *
 * <p>All scripts are read and split before the first statement runs, so a missing file or an
 * unterminated string changes nothing. Execution stops at the first failing statement, which is
 * reported on stderr as {@code error: <file>:<statement number>: <message>}.
 */
@Command(
    name = "run",
    description = {
      "Runs SQL scripts and prints their results as tab-separated lines.",
      "",
      "Statements end with ';'. All files run in one session. Every result set is printed as "
          + "its column labels, then one line per row, NULL as NULL. A statement that changes "
          + "rows prints its kind and count, tab-separated (INSERT, UPDATE, DELETE, TRUNCATE, "
          + "COPY, MERGE; REFRESH: the change rows it consumed); other statements print nothing. "
          + "The first failing statement stops the run: its error goes to stderr and the exit "
          + "code is 1. With --url the scripts run on any JDBC URL, such as a calcite-ivm "
          + "server's."
    })
final class RunCommand implements Callable<Integer> {
  private static final String STDIN = "-";

  @Spec CommandSpec spec;

  @Mixin ConnectionOptions connectionOptions;

  @Parameters(
      arity = "1..*",
      paramLabel = "FILE",
      description = "SQL scripts, run in the order given; '-' reads standard input")
  List<String> files;

  /** A script file's name as shown in error messages, and its statements. */
  private record Script(String name, List<String> statements) {}

  @Override
  public Integer call() throws IOException {
    PrintWriter err = spec.commandLine().getErr();
    // Missing files first, so that nobody is asked for a password in vain.
    for (String file : files) {
      Path path = Path.of(file);
      if (!file.equals(STDIN) && !Files.isRegularFile(path)) {
        err.println("error: " + file + ": " + (Files.exists(path) ? "not a file" : "no such file"));
        return ExitCode.USAGE;
      }
    }
    // Before the scripts: with --password and '-', the first line of standard input is the
    // password.
    ConnectionOptions.Resolved target = connectionOptions.resolve(spec);
    List<Script> scripts = new ArrayList<>();
    for (String file : files) {
      String name = file.equals(STDIN) ? "stdin" : file;
      String text;
      if (file.equals(STDIN)) {
        text = readAll(System.in);
      } else {
        try {
          text = Files.readString(Path.of(file), UTF_8);
        } catch (IOException e) {
          err.println("error: " + name + ": cannot read: " + ErrorMessages.oneLine(e));
          return ExitCode.USAGE;
        }
      }
      try {
        scripts.add(new Script(name, SqlScript.split(text)));
      } catch (SQLException e) {
        err.println("error: " + name + ": " + ErrorMessages.oneLine(e));
        return ExitCode.SOFTWARE;
      }
    }

    Connection connection;
    try {
      connection = DriverManager.getConnection(target.url(), target.properties());
    } catch (SQLException | RuntimeException e) {
      // Avatica's driver reports a refused or unreachable server as a RuntimeException.
      err.println(
          "error: cannot open "
              + target.shownUrl()
              + ": "
              + ErrorMessages.oneLine(e, target.secrets()));
      return ExitCode.SOFTWARE;
    }
    try (connection) {
      return execute(connection, scripts, target.secrets());
    } catch (SQLException e) {
      err.println(
          "error: closing "
              + target.shownUrl()
              + ": "
              + ErrorMessages.oneLine(e, target.secrets()));
      return ExitCode.SOFTWARE;
    }
  }

  /**
   * Reads {@code in} to its end. Not {@code readAllBytes}: Java 17's {@code FileInputStream} (what
   * Main makes System.in) fails on a pipe there with "Illegal seek".
   */
  private static String readAll(InputStream in) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    byte[] buffer = new byte[8192];
    for (int n = in.read(buffer); n != -1; n = in.read(buffer)) {
      bytes.write(buffer, 0, n);
    }
    return bytes.toString(UTF_8);
  }

  private int execute(Connection connection, List<Script> scripts, List<String> secrets) {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    ResultPrinter printer = new ResultPrinter(out);
    for (Script script : scripts) {
      List<String> statements = script.statements();
      for (int i = 0; i < statements.size(); i++) {
        String where = script.name() + ":" + (i + 1);
        String sql = statements.get(i);
        // A fresh Statement each time: DuckDB's JDBC driver closes a Statement when it fails.
        try (Statement statement = connection.createStatement()) {
          if (statement.execute(sql)) {
            try (ResultSet rs = statement.getResultSet()) {
              printer.print(rs);
            }
          } else {
            printer.printCount(sql, statement.getUpdateCount());
          }
        } catch (SQLException e) {
          out.flush();
          err.println("error: " + where + ": " + ErrorMessages.oneLine(e, sql, secrets));
          return ExitCode.SOFTWARE;
        } catch (RuntimeException e) {
          // Not a user error but a bug in the driver: keep the stack trace for its report.
          out.flush();
          err.println(
              "error: " + where + ": internal error: " + ErrorMessages.mask(e.toString(), secrets));
          StringWriter trace = new StringWriter();
          e.printStackTrace(new PrintWriter(trace));
          err.print(ErrorMessages.mask(trace.toString(), secrets));
          return ExitCode.SOFTWARE;
        }
      }
    }
    out.flush();
    return ExitCode.OK;
  }
}
