package org.calciteivm.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.Callable;
import org.calciteivm.server.auth.PasswordHash;
import org.calciteivm.server.auth.UsersFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code calcite-ivm users}: manages the users file of {@code serve --users}. */
@Command(
    name = "users",
    description = "Manages the users file of 'serve --users'.",
    subcommands = {UsersCommand.Add.class})
final class UsersCommand implements Runnable {
  @Spec CommandSpec spec;

  @Override
  public void run() {
    throw new picocli.CommandLine.ParameterException(spec.commandLine(), "Missing subcommand");
  }

  /** {@code calcite-ivm users add FILE NAME}: adds a user or changes a user's password. */
  @Command(
      name = "add",
      description = {
        "Adds a user to FILE (created if missing, readable by its owner only), or changes the "
            + "user's password.",
        "",
        "The password is asked for twice on a terminal, or else read from the first line of "
            + "standard input. FILE keeps a salted PBKDF2-HMAC-SHA256 hash, never the password."
      })
  static final class Add implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "the users file")
    Path file;

    @Parameters(index = "1", paramLabel = "NAME", description = "the user name")
    String name;

    @Option(
        names = "--iterations",
        paramLabel = "N",
        description = "PBKDF2 iterations (default: " + PasswordHash.DEFAULT_ITERATIONS + ")")
    int iterations = PasswordHash.DEFAULT_ITERATIONS;

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      if (!UsersFile.isValidName(name)) {
        err.println("error: a user name consists of letters, digits and . _ @ - : " + name);
        return ExitCode.USAGE;
      }
      char[] password;
      try {
        password = readPassword();
      } catch (IOException e) {
        err.println("error: " + ErrorMessages.oneLine(e));
        return ExitCode.USAGE;
      }
      try {
        boolean existed = UsersFile.put(file, name, PasswordHash.create(password, iterations));
        err.println((existed ? "changed the password of " : "added user ") + name + " in " + file);
        return ExitCode.OK;
      } catch (IOException | IllegalArgumentException e) {
        err.println("error: " + ErrorMessages.oneLine(e));
        return ExitCode.SOFTWARE;
      } finally {
        Arrays.fill(password, '\0');
      }
    }

    private char[] readPassword() throws IOException {
      Console console = System.console();
      if (console != null) {
        char[] first = console.readPassword("password for %s: ", name);
        char[] again = console.readPassword("again: ");
        if (first == null || again == null || !Arrays.equals(first, again)) {
          throw new IOException("the passwords differ");
        }
        Arrays.fill(again, '\0');
        return checked(first);
      }
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in, UTF_8));
      String line = in.readLine();
      if (line == null) {
        throw new IOException("no password on standard input");
      }
      return checked(line.toCharArray());
    }

    private static char[] checked(char[] password) throws IOException {
      if (password.length == 0) {
        throw new IOException("the password is empty");
      }
      return password;
    }
  }
}
