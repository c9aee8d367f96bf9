package org.calciteivm.cli;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** The outcome of running the tool in-process: exit code and everything it printed. */
record CliRun(int exitCode, String out, String err) {
  /** Runs {@code calcite-ivm args...} with stdout and stderr captured. */
  static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new CliRun(exitCode, out.toString(), err.toString());
  }
}
