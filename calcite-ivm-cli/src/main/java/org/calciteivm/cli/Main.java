package org.calciteivm.cli;

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

  /** The version of calcite-ivm from the jar manifest, if the tool runs from a jar. */
  static final class Version implements IVersionProvider {
    @Override
    public String[] getVersion() {
      String version = Main.class.getPackage().getImplementationVersion();
      return new String[] {
        "calcite-ivm " + (version == null ? "(development build)" : version),
        "Java " + Runtime.version()
      };
    }
  }
}
