package org.calciteivm.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.calciteivm.server.auth.PasswordHash;
import org.calciteivm.server.auth.UsersFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tests {@code users add}, {@code users list} and {@code users remove}, and their messages. A
 * {@code serve} that starts by mistake would serve until stopped: the timeout stops it.
 */
@Timeout(120)
class UsersCommandTest {
  @TempDir Path dir;

  @Test
  void tooFewIterationsAreRefusedBeforeThePasswordIsRead() {
    Path users = dir.resolve("users");

    CliRun run = withStdin("pw\n", "users", "add", users.toString(), "alice", "--iterations", "1");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err())
        .isEqualTo(
            "error: --iterations must be at least 100000: fewer make guessing passwords from a"
                + " copy of the file cheap\n");
    assertThat(users).doesNotExist();
  }

  @Test
  void listPrintsTheNamesAndRemoveRemovesOne() throws IOException {
    Path users = dir.resolve("users");
    for (String name : new String[] {"alice", "bob", "carol"}) {
      CliRun added =
          withStdin("pw\n", "users", "add", users.toString(), name, "--iterations", "100000");
      assertThat(added.exitCode()).as(added.err()).isZero();
    }
    Files.setPosixFilePermissions(users, PosixFilePermissions.fromString("r--------"));

    CliRun list = CliRun.of("users", "list", users.toString());
    assertThat(list.exitCode()).isZero();
    assertThat(list.out()).isEqualTo("alice\nbob\ncarol\n");
    assertThat(list.err()).isEmpty();

    CliRun remove = CliRun.of("users", "remove", users.toString(), "bob");
    assertThat(remove.exitCode()).as(remove.err()).isZero();
    assertThat(remove.err()).isEqualTo("removed user bob from " + users + "\n");
    assertThat(CliRun.of("users", "list", users.toString()).out()).isEqualTo("alice\ncarol\n");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(users)))
        .isEqualTo("r--------");

    CliRun again = CliRun.of("users", "remove", users.toString(), "bob");
    assertThat(again.exitCode()).isEqualTo(1);
    assertThat(again.err()).isEqualTo("error: users file " + users + " has no user bob\n");
  }

  @Test
  void listNamesUsersWhoseHashesAServerWouldRefuse() throws IOException {
    Path users = dir.resolve("users");
    PasswordHash weak = PasswordHash.create("pw".toCharArray(), 1_000);
    Files.writeString(users, "old:" + weak.encode() + "\n", UTF_8);

    CliRun list = CliRun.of("users", "list", users.toString());

    assertThat(list.exitCode()).isZero();
    assertThat(list.out()).isEqualTo("old\n");
    assertThat(list.err())
        .contains("user old has a hash of 1000 iterations, a server refuses fewer than 100000");
    CliRun fixed =
        withStdin("new\n", "users", "add", users.toString(), "old", "--iterations", "100000");
    assertThat(fixed.err()).contains("changed the password of old");
    assertThat(UsersFile.read(users).get("old").matches("new".toCharArray())).isTrue();
  }

  @Test
  void aMissingFileIsNamedAsSuch() {
    Path missing = dir.resolve("nope");
    String expected = "error: users file " + missing + ": no such file\n";

    CliRun list = CliRun.of("users", "list", missing.toString());
    assertThat(list.exitCode()).isEqualTo(1);
    assertThat(list.err()).isEqualTo(expected);
    assertThat(CliRun.of("users", "remove", missing.toString(), "alice").err()).isEqualTo(expected);
    CliRun serve = CliRun.of("serve", "--port", "0", "--users", missing.toString());
    assertThat(serve.exitCode()).isEqualTo(2);
    assertThat(serve.err()).isEqualTo(expected);
  }

  @Test
  void serveRefusesAUsersFileOthersCanRead() throws IOException {
    Path users = dir.resolve("users");
    withStdin("pw\n", "users", "add", users.toString(), "alice", "--iterations", "100000");
    Files.setPosixFilePermissions(users, PosixFilePermissions.fromString("rw-r--r--"));

    CliRun serve = CliRun.of("serve", "--port", "0", "--users", users.toString());

    assertThat(serve.exitCode()).isEqualTo(2);
    assertThat(serve.err())
        .isEqualTo(
            "error: users file "
                + users
                + " is readable by other users (rw-r--r--): they could copy the password hashes"
                + " and guess the passwords offline. Make it private: chmod 600 "
                + users
                + "\n");
  }

  @Test
  void serveRefusesAUsersFileWithWeakHashes() throws IOException {
    Path users = dir.resolve("users");
    PasswordHash weak = PasswordHash.create("pw".toCharArray(), 1);
    Files.writeString(users, "alice:" + weak.encode() + "\n", UTF_8);
    Files.setPosixFilePermissions(users, PosixFilePermissions.fromString("rw-------"));

    CliRun serve = CliRun.of("serve", "--port", "0", "--users", users.toString());

    assertThat(serve.exitCode()).isEqualTo(2);
    assertThat(serve.err())
        .startsWith("error: " + users + ":1: the hash of user alice has 1 PBKDF2 iterations")
        .contains("set the password again (calcite-ivm users add " + users + " alice)");
  }

  private static CliRun withStdin(String input, String... args) {
    InputStream saved = System.in;
    System.setIn(new ByteArrayInputStream(input.getBytes(UTF_8)));
    try {
      return CliRun.of(args);
    } finally {
      System.setIn(saved);
    }
  }
}
