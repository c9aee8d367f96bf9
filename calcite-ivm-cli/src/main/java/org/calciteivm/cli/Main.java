package org.calciteivm.cli;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.apache.calcite.avatica.AvaticaConnection;
import org.apache.calcite.rel.RelNode;
import org.calciteivm.jdbc.IvmBuild;
import org.duckdb.DuckDBDriver;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

/**
 * The {@code calcite-ivm} command-line tool, started by {@code bin/calcite-ivm}.
 *
 * <p>Each task is a subcommand in this package; {@link #commandLine()} lists them.
 */
@Command(
    name = "calcite-ivm",
    // Subcommands inherit -h/--help and -V/--version.
    scope = ScopeType.INHERIT,
    mixinStandardHelpOptions = true,
    versionProvider = Main.Version.class,
    description = "Incremental view maintenance on DuckDB.",
    subcommands = {
      RunCommand.class,
      ShellCommand.class,
      CompileCommand.class,
      ServeCommand.class,
      UsersCommand.class,
      DemoCommand.class,
      BenchCommand.class,
      CommandLine.HelpCommand.class
    })
public final class Main implements Runnable {
  @Spec CommandSpec spec;

  /** Runs the tool and exits the JVM with its exit code. */
  public static void main(String[] args) {
    // Unbuffered: a password read from standard input must leave the rest unread, for the script
    // of 'run -' and for the shell, whose terminal reads the file descriptor itself.
    System.setIn(new FileInputStream(FileDescriptor.in));
    System.exit(commandLine().execute(args));
  }

  /** Returns the tool's command line, ready to {@link CommandLine#execute execute}. */
  public static CommandLine commandLine() {
    return new CommandLine(new Main());
  }

  @Override
  public void run() {
    throw new ParameterException(spec.commandLine(), "Missing subcommand");
  }

  /**
   * The versions of calcite-ivm and of what it runs on: DuckDB (the engine and its JDBC driver),
   * Apache Calcite, Avatica and Java.
   */
  static final class Version implements IVersionProvider {
    private static final String UNKNOWN = "(unknown)";

    @Override
    public String[] getVersion() {
      return new String[] {
        "calcite-ivm " + IvmBuild.VERSION + " (built " + IvmBuild.BUILT + ")",
        "DuckDB " + duckDb(),
        "Apache Calcite " + fromManifest(RelNode.class),
        "Avatica " + fromManifest(AvaticaConnection.class),
        "Java " + Runtime.version() + " (" + System.getProperty("java.vm.name") + ")"
      };
    }

    /** The engine's version as DuckDB reports it, and its JDBC driver's. */
    private static String duckDb() {
      try (Connection connection = DriverManager.getConnection("jdbc:duckdb:");
          Statement statement = connection.createStatement();
          ResultSet rs = statement.executeQuery("SELECT version()")) {
        rs.next();
        // The driver's metadata says 1.0; its jar's manifest has the release.
        return rs.getString(1)
            + " (duckdb_jdbc "
            + fromManifest(DuckDBDriver.class, "Bundle-Version")
            + ")";
      } catch (SQLException e) {
        return UNKNOWN;
      }
    }

    /** The implementation version in the manifest of the jar that holds {@code type}. */
    private static String fromManifest(Class<?> type) {
      String version = type.getPackage().getImplementationVersion();
      return version == null ? UNKNOWN : version;
    }

    /** The main attribute {@code name} of the manifest of the jar that holds {@code type}. */
    private static String fromManifest(Class<?> type, String name) {
      try {
        Path jar = Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (JarFile file = new JarFile(jar.toFile())) {
          Manifest manifest = file.getManifest();
          String value = manifest == null ? null : manifest.getMainAttributes().getValue(name);
          return value == null ? UNKNOWN : value;
        }
      } catch (IOException | URISyntaxException | RuntimeException e) {
        return UNKNOWN;
      }
    }
  }
}
