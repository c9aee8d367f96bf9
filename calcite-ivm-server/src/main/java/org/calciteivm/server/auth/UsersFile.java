package org.calciteivm.server.auth;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The users a server accepts: a text file with one {@code name:hash} line per user, the hash in
 * {@link PasswordHash}'s text form. Blank lines and lines starting with {@code #} are ignored.
 * Passwords are never stored, only their salted hashes.
 */
public final class UsersFile {
  /** User names: letters, digits and {@code . _ @ -}, so that they fit HTTP BASIC and the file. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@-]+");

  private static final String HEADER =
      "# calcite-ivm users: name:"
          + PasswordHash.SCHEME
          + ":iterations:salt:hash (bin/calcite-ivm users add FILE NAME)";

  private UsersFile() {}

  /** Whether {@code name} can be a user name. */
  public static boolean isValidName(String name) {
    return NAME.matcher(name).matches();
  }

  /**
   * Reads the users in {@code file}, in file order; throws {@link IOException} naming the file and
   * line of a malformed entry.
   */
  public static Map<String, PasswordHash> read(Path file) throws IOException {
    Map<String, PasswordHash> users = new LinkedHashMap<>();
    List<String> lines = Files.readAllLines(file, UTF_8);
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        continue;
      }
      String where = file + ":" + (i + 1);
      int colon = line.indexOf(':');
      String name = colon < 0 ? line : line.substring(0, colon);
      if (colon < 0 || !isValidName(name)) {
        throw new IOException(where + ": expected name:" + PasswordHash.SCHEME + ":...");
      }
      try {
        if (users.put(name, PasswordHash.parse(line.substring(colon + 1))) != null) {
          throw new IOException(where + ": user " + name + " is listed twice");
        }
      } catch (IllegalArgumentException e) {
        throw new IOException(where + ": " + e.getMessage(), e);
      }
    }
    return users;
  }

  /**
   * Adds user {@code name} to {@code file} with {@code hash}, or replaces the user's hash; creates
   * the file (readable by its owner only) if it is missing. The file is replaced atomically.
   *
   * @return whether the user existed before
   */
  public static boolean put(Path file, String name, PasswordHash hash) throws IOException {
    if (!isValidName(name)) {
      throw new IllegalArgumentException(
          "a user name consists of letters, digits and . _ @ - : " + name);
    }
    List<String> lines = List.of(HEADER);
    if (Files.exists(file)) {
      read(file); // refuse to rewrite a file this class cannot read
      lines = Files.readAllLines(file, UTF_8);
    }
    List<String> updated = new ArrayList<>();
    boolean replaced = false;
    for (String line : lines) {
      if (line.strip().startsWith(name + ":")) {
        updated.add(name + ":" + hash.encode());
        replaced = true;
      } else {
        updated.add(line);
      }
    }
    if (!replaced) {
      updated.add(name + ":" + hash.encode());
    }
    write(file, updated);
    return replaced;
  }

  private static void write(Path file, List<String> lines) throws IOException {
    Path absolute = file.toAbsolutePath();
    Path temp;
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      temp =
          Files.createTempFile(
              absolute.getParent(),
              ".users",
              ".tmp",
              PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } else {
      temp = Files.createTempFile(absolute.getParent(), ".users", ".tmp");
    }
    try {
      Files.write(temp, lines, UTF_8);
      try {
        Files.move(
            temp, absolute, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(temp, absolute, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(temp);
    }
  }
}
