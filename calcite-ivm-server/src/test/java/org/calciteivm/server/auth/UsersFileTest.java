package org.calciteivm.server.auth;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tests {@link PasswordHash} and {@link UsersFile}. */
class UsersFileTest {
  /** The cheapest hashes a users file accepts. */
  private static final int ITERATIONS = PasswordHash.MIN_ITERATIONS;

  @TempDir Path dir;

  @Test
  void aHashMatchesItsPasswordOnlyAndSurvivesItsTextForm() {
    PasswordHash hash = PasswordHash.create("pässword".toCharArray(), 1_000);
    PasswordHash parsed = PasswordHash.parse(hash.encode());

    assertThat(parsed).isEqualTo(hash);
    assertThat(parsed.matches("pässword".toCharArray())).isTrue();
    assertThat(parsed.matches("password".toCharArray())).isFalse();
    assertThat(parsed.matches(new char[0])).isFalse();
    assertThat(hash.encode()).startsWith("pbkdf2-sha256:1000:");
  }

  @Test
  void theSamePasswordHashesDifferentlyEachTime() {
    PasswordHash a = PasswordHash.create("same".toCharArray(), 1_000);
    PasswordHash b = PasswordHash.create("same".toCharArray(), 1_000);

    assertThat(a.salt()).isNotEqualTo(b.salt());
    assertThat(a.hash()).isNotEqualTo(b.hash());
  }

  @Test
  void shortSaltsAndHashesAreRefused() {
    String hash = Base64.getEncoder().encodeToString(new byte[32]);
    String salt = Base64.getEncoder().encodeToString(new byte[16]);

    assertThatThrownBy(() -> PasswordHash.parse("pbkdf2-sha256:100000:AAAA:" + hash))
        .hasMessageContaining("the salt has 3 bytes, at least 16 are needed");
    assertThatThrownBy(() -> PasswordHash.parse("pbkdf2-sha256:100000:" + salt + ":AAAA"))
        .hasMessageContaining("the hash has 3 bytes");
    assertThat(PasswordHash.parse("pbkdf2-sha256:100000:" + salt + ":" + hash).iterations())
        .isEqualTo(100_000);
  }

  @Test
  void malformedEntriesAreReportedWithFileAndLine() throws IOException {
    Path file = dir.resolve("users");
    Files.writeString(file, "# users\n\nalice:pbkdf2-sha256:10:AA==\n", UTF_8);

    assertThatThrownBy(() -> UsersFile.read(file))
        .isInstanceOf(IOException.class)
        .hasMessageStartingWith(file + ":3: ");
    Files.writeString(file, "alice:plaintext\n", UTF_8);
    assertThatThrownBy(() -> UsersFile.read(file)).hasMessageContaining("pbkdf2-sha256");
  }

  @Test
  void missingUnreadableAndNonTextFilesSayWhatIsWrong() throws IOException {
    Path missing = dir.resolve("missing");
    assertThatThrownBy(() -> UsersFile.read(missing))
        .isInstanceOf(IOException.class)
        .hasMessage("users file " + missing + ": no such file");
    assertThatThrownBy(() -> UsersFile.remove(missing, "alice"))
        .hasMessage("users file " + missing + ": no such file");
    assertThatThrownBy(() -> UsersFile.read(dir))
        .hasMessage("users file " + dir + ": is a directory");

    Path binary = dir.resolve("binary");
    Files.write(binary, new byte[] {(byte) 0xff, (byte) 0xfe, 0, 1});
    assertThatThrownBy(() -> UsersFile.read(binary))
        .hasMessage("users file " + binary + ": not UTF-8 text");
  }

  @Test
  void aServerRefusesHashesWithTooFewIterationsButTheyCanBeReplaced() throws IOException {
    Path file = dir.resolve("users");
    PasswordHash weak = PasswordHash.create("weak".toCharArray(), 1_000);
    Files.writeString(file, "# old\nalice:" + weak.encode() + "\n", UTF_8);

    assertThatThrownBy(() -> UsersFile.read(file))
        .hasMessage(
            file
                + ":2: the hash of user alice has 1000 PBKDF2 iterations, fewer than the minimum"
                + " 100000: set the password again (calcite-ivm users add "
                + file
                + " alice)");
    assertThat(UsersFile.entries(file)).containsExactly(Map.entry("alice", weak));
    assertThatThrownBy(() -> UsersFile.put(file, "bob", weak))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least 100000 PBKDF2 iterations are needed, not 1000");

    PasswordHash strong = PasswordHash.create("strong".toCharArray(), ITERATIONS);
    assertThat(UsersFile.put(file, "alice", strong)).isTrue();
    assertThat(UsersFile.read(file)).containsExactly(Map.entry("alice", strong));
  }

  @Test
  void putAddsReplacesAndKeepsTheFilePrivate() throws IOException {
    Path file = dir.resolve("users");
    PasswordHash first = PasswordHash.create("one".toCharArray(), ITERATIONS);
    PasswordHash second = PasswordHash.create("two".toCharArray(), ITERATIONS);

    assertThat(UsersFile.put(file, "alice", first)).isFalse();
    assertThat(UsersFile.put(file, "bob", first)).isFalse();
    assertThat(UsersFile.put(file, "alice", second)).isTrue();

    assertThat(UsersFile.read(file))
        .containsExactly(Map.entry("alice", second), Map.entry("bob", first));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    UsersFile.checkPrivate(file);
    assertThatThrownBy(() -> UsersFile.put(file, "no:colons", first))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void removeRewritesTheFileKeepingItsPermissionsAndSaysWhetherTheUserWasThere()
      throws IOException {
    Path file = dir.resolve("users");
    PasswordHash hash = PasswordHash.create("one".toCharArray(), ITERATIONS);
    UsersFile.put(file, "alice", hash);
    UsersFile.put(file, "bob", hash);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));

    assertThat(UsersFile.remove(file, "alice")).isTrue();
    assertThat(UsersFile.read(file)).containsOnlyKeys("bob");
    assertThat(Files.readString(file)).startsWith("# calcite-ivm users");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("r--------");
    String before = Files.readString(file);
    assertThat(UsersFile.remove(file, "alice")).isFalse();
    assertThat(Files.readString(file)).isEqualTo(before);
    assertThat(UsersFile.remove(file, "bob")).isTrue();
    assertThat(UsersFile.read(file)).isEmpty();
  }

  @Test
  void filesOthersCanReadOrChangeAreNotPrivate() throws IOException {
    Path file = dir.resolve("users");
    UsersFile.put(file, "alice", PasswordHash.create("one".toCharArray(), ITERATIONS));

    for (String shared : new String[] {"rw-r--r--", "rw-rw-rw-", "rw-r-----", "rw----r--"}) {
      Files.setPosixFilePermissions(file, PosixFilePermissions.fromString(shared));
      assertThatThrownBy(() -> UsersFile.checkPrivate(file))
          .as(shared)
          .hasMessage(
              "users file "
                  + file
                  + " is readable by other users ("
                  + shared
                  + "): they could copy the password hashes and guess the passwords offline."
                  + " Make it private: chmod 600 "
                  + file);
    }
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw--w----"));
    assertThatThrownBy(() -> UsersFile.checkPrivate(file))
        .hasMessageContaining("is writable by other users (rw--w----): they could add themselves")
        .hasMessageEndingWith("chmod 600 " + file);
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("r--------"));
    UsersFile.checkPrivate(file);
  }
}
