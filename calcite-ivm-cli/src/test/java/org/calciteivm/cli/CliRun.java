package org.calciteivm.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/** The outcome of running the tool: exit code and everything it printed. */
record CliRun(int exitCode, String out, String err) {
  /** Runs {@code calcite-ivm args...} in-process with stdout and stderr captured. */
  static CliRun of(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine commandLine = Main.commandLine();
    commandLine.setOut(new PrintWriter(out, true));
    commandLine.setErr(new PrintWriter(err, true));
    int exitCode = commandLine.execute(args);
    return new CliRun(exitCode, out.toString(), err.toString());
  }

  /** Runs {@code calcite-ivm args...} in-process with {@code stdin} as standard input. */
  static CliRun withStdin(String stdin, String... args) {
    InputStream saved = System.in;
    System.setIn(new ByteArrayInputStream(stdin.getBytes(UTF_8)));
    try {
      return of(args);
    } finally {
      System.setIn(saved);
    }
  }

  /**
   * Runs {@code calcite-ivm args...} in a JVM of its own, as {@code bin/calcite-ivm} does, with
   * {@code stdin} as standard input (a pipe, no terminal) and {@code environment} added to the
   * environment. For what a process sees and the test JVM does not: the file descriptors of
   * standard input and output, the environment, the exit code of {@code System.exit}.
   */
  static CliRun inJvm(Path dir, String stdin, Map<String, String> environment, String... args)
      throws IOException, InterruptedException {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> command = new ArrayList<>(List.of(java, "-cp", classPath(), Main.class.getName()));
    command.addAll(List.of(args));
    return run(dir, stdin, environment, command);
  }

  /** Runs {@code command} with {@code stdin} and {@code environment}, and waits for it. */
  static CliRun run(Path dir, String stdin, Map<String, String> environment, List<String> command)
      throws IOException, InterruptedException {
    Path out = Files.createTempFile(dir, "stdout", ".txt");
    Path err = Files.createTempFile(dir, "stderr", ".txt");
    ProcessBuilder builder =
        new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
    builder.environment().putAll(environment);
    Process process = builder.start();
    try {
      // A pipe, as in 'echo ... | calcite-ivm': not seekable, unlike a file.
      try (OutputStream in = process.getOutputStream()) {
        in.write(stdin.getBytes(UTF_8));
      }
      if (!process.waitFor(10, TimeUnit.MINUTES)) {
        throw new AssertionError("still running after 10 minutes: " + command);
      }
    } finally {
      process.destroyForcibly();
    }
    return new CliRun(
        process.exitValue(), Files.readString(out, UTF_8), Files.readString(err, UTF_8));
  }

  /** The class path of this JVM, which holds the tool and its dependencies. */
  static String classPath() {
    return System.getProperty("java.class.path");
  }
}
