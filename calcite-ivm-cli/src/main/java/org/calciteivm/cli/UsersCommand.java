package org.calciteivm.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.Console;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
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
    subcommands = {UsersCommand.Add.class, UsersCommand.ListUsers.class, UsersCommand.Remove.class})
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
            + " The file keeps its permissions when it exists."
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
        description =
            "PBKDF2 iterations, at least "
                + PasswordHash.MIN_ITERATIONS
                + " (default: "
                + PasswordHash.DEFAULT_ITERATIONS
                + ")")
    int iterations = PasswordHash.DEFAULT_ITERATIONS;

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      if (!UsersFile.isValidName(name)) {
        err.println("error: a user name consists of letters, digits and . _ @ - : " + name);
        return ExitCode.USAGE;
      }
      // Checked before asking for the password; UsersFile.put would refuse it only afterwards.
      if (iterations < PasswordHash.MIN_ITERATIONS) {
        err.println(
            "error: --iterations must be at least "
                + PasswordHash.MIN_ITERATIONS
                + ": fewer make guessing passwords from a copy of the file cheap");
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

  /** {@code calcite-ivm users list FILE}: prints the names of the users in FILE. */
  @Command(
      name = "list",
      description = {
        "Prints the names of the users in FILE, one per line.",
        "",
        "A user whose hash has fewer PBKDF2 iterations than a server accepts is named on "
            + "standard error too; set the password again with 'users add'."
      })
  static final class ListUsers implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "the users file")
    Path file;

    @Override
    public Integer call() {
      PrintWriter out = spec.commandLine().getOut();
      PrintWriter err = spec.commandLine().getErr();
      Map<String, PasswordHash> users;
      try {
        users = UsersFile.entries(file);
      } catch (IOException e) {
        err.println("error: " + ErrorMessages.oneLine(e));
        return ExitCode.SOFTWARE;
      }
      for (Map.Entry<String, PasswordHash> user : users.entrySet()) {
        out.println(user.getKey());
        int iterations = user.getValue().iterations();
        if (iterations < PasswordHash.MIN_ITERATIONS) {
          err.println(
              "warning: user "
                  + user.getKey()
                  + " has a hash of "
                  + iterations
                  + " iterations, a server refuses fewer than "
                  + PasswordHash.MIN_ITERATIONS
                  + ": set the password again with 'users add'");
        }
      }
      out.flush();
      return ExitCode.OK;
    }
  }

  /** {@code calcite-ivm users remove FILE NAME}: removes a user. */
  @Command(
      name = "remove",
      description =
          "Removes user NAME from FILE; the file is replaced atomically and keeps its "
              + "permissions. A running server keeps the users it read when it started.")
  static final class Remove implements Callable<Integer> {
    @Spec CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE", description = "the users file")
    Path file;

    @Parameters(index = "1", paramLabel = "NAME", description = "the user name")
    String name;

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      try {
        if (!UsersFile.remove(file, name)) {
          err.println("error: users file " + file + " has no user " + name);
          return ExitCode.SOFTWARE;
        }
        err.println("removed user " + name + " from " + file);
        return ExitCode.OK;
      } catch (IOException e) {
        err.println("error: " + ErrorMessages.oneLine(e));
        return ExitCode.SOFTWARE;
      }
    }
  }
}
