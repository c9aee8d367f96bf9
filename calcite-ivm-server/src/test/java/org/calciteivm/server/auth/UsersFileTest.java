package org.calciteivm.server.auth;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tests {@link PasswordHash} and {@link UsersFile}. */
class UsersFileTest {
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
  void putAddsReplacesAndKeepsTheFilePrivate() throws IOException {
    Path file = dir.resolve("users");
    PasswordHash first = PasswordHash.create("one".toCharArray(), 1_000);
    PasswordHash second = PasswordHash.create("two".toCharArray(), 1_000);

    assertThat(UsersFile.put(file, "alice", first)).isFalse();
    assertThat(UsersFile.put(file, "bob", first)).isFalse();
    assertThat(UsersFile.put(file, "alice", second)).isTrue();

    assertThat(UsersFile.read(file))
        .containsExactly(Map.entry("alice", second), Map.entry("bob", first));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    assertThatThrownBy(() -> UsersFile.put(file, "no:colons", first))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
