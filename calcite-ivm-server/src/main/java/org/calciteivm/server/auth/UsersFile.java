package org.calciteivm.server.auth;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The users a server accepts: a text file with one {@code name:hash} line per user, the hash in
 * {@link PasswordHash}'s text form. Blank lines and lines starting with {@code #} are ignored.
 * Passwords are never stored, only their salted hashes.
 *
 * <p>A server {@link #read reads} only files whose hashes have at least {@link
 * PasswordHash#MIN_ITERATIONS} iterations, and only files that no one but their owner can read or
 * change ({@link #checkPrivate}). Adding and removing users ({@link #put}, {@link #remove}) also
 * work on files with weaker entries, so that those can be replaced.
 */
public final class UsersFile {
  /** User names: letters, digits and {@code . _ @ -}, so that they fit HTTP BASIC and the file. */
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._@-]+");

  private static final String HEADER =
      "# calcite-ivm users: name:"
          + PasswordHash.SCHEME
          + ":iterations:salt:hash (bin/calcite-ivm users add FILE NAME)";

  /** Permissions that let someone other than the owner read the hashes or add a user. */
  private static final Set<PosixFilePermission> SHARED =
      EnumSet.of(
          PosixFilePermission.GROUP_READ,
          PosixFilePermission.GROUP_WRITE,
          PosixFilePermission.OTHERS_READ,
          PosixFilePermission.OTHERS_WRITE);

  private UsersFile() {}

  /** Whether {@code name} can be a user name. */
  public static boolean isValidName(String name) {
    return NAME.matcher(name).matches();
  }

  /**
   * Reads the users in {@code file}, in file order, for a server: throws {@link IOException} naming
   * the file, and the line of a malformed entry or of a hash with fewer than {@link
   * PasswordHash#MIN_ITERATIONS} iterations.
   */
  public static Map<String, PasswordHash> read(Path file) throws IOException {
    List<String> lines = lines(file);
    Map<String, PasswordHash> users = parse(file, lines);
    for (Map.Entry<String, PasswordHash> user : users.entrySet()) {
      int iterations = user.getValue().iterations();
      if (iterations < PasswordHash.MIN_ITERATIONS) {
        throw new IOException(
            file
                + ":"
                + lineOf(lines, user.getKey())
                + ": the hash of user "
                + user.getKey()
                + " has "
                + iterations
                + " PBKDF2 iterations, fewer than the minimum "
                + PasswordHash.MIN_ITERATIONS
                + ": set the password again (calcite-ivm users add "
                + file
                + " "
                + user.getKey()
                + ")");
      }
    }
    return users;
  }

  /**
   * Reads the users in {@code file}, in file order, whatever their hashes' iteration counts: throws
   * {@link IOException} naming the file, and the line of a malformed entry.
   */
  public static Map<String, PasswordHash> entries(Path file) throws IOException {
    return parse(file, lines(file));
  }

  private static Map<String, PasswordHash> parse(Path file, List<String> lines) throws IOException {
    Map<String, PasswordHash> users = new LinkedHashMap<>();
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
   * Throws {@link IOException}, saying how to fix it, if users other than the owner of {@code file}
   * may read it (and copy the hashes to guess passwords offline) or change it (and add themselves).
   * Does nothing on file systems without POSIX permissions.
   */
  public static void checkPrivate(Path file) throws IOException {
    PosixFileAttributeView view = Files.getFileAttributeView(file, PosixFileAttributeView.class);
    if (view == null) {
      return;
    }
    Set<PosixFilePermission> permissions;
    try {
      permissions = view.readAttributes().permissions();
    } catch (IOException e) {
      throw problem(file, e);
    }
    Set<PosixFilePermission> shared = EnumSet.copyOf(SHARED);
    shared.retainAll(permissions);
    if (shared.isEmpty()) {
      return;
    }
    boolean readable =
        shared.contains(PosixFilePermission.GROUP_READ)
            || shared.contains(PosixFilePermission.OTHERS_READ);
    throw new IOException(
        "users file "
            + file
            + (readable
                ? " is readable by other users ("
                    + PosixFilePermissions.toString(permissions)
                    + "): they could copy the password hashes and guess the passwords offline"
                : " is writable by other users ("
                    + PosixFilePermissions.toString(permissions)
                    + "): they could add themselves")
            + ". Make it private: chmod 600 "
            + file);
  }

  /**
   * Adds user {@code name} to {@code file} with {@code hash}, or replaces the user's hash; creates
   * the file (readable by its owner only) if it is missing. The file is replaced atomically and
   * keeps its permissions.
   *
   * @return whether the user existed before
   * @throws IllegalArgumentException if the name is not valid or the hash has fewer than {@link
   *     PasswordHash#MIN_ITERATIONS} iterations (a server would refuse the file)
   */
  public static boolean put(Path file, String name, PasswordHash hash) throws IOException {
    if (!isValidName(name)) {
      throw new IllegalArgumentException(
          "a user name consists of letters, digits and . _ @ - : " + name);
    }
    if (hash.iterations() < PasswordHash.MIN_ITERATIONS) {
      throw new IllegalArgumentException(
          "at least "
              + PasswordHash.MIN_ITERATIONS
              + " PBKDF2 iterations are needed, not "
              + hash.iterations());
    }
    List<String> lines = List.of(HEADER);
    if (Files.exists(file)) {
      lines = lines(file);
      parse(file, lines); // refuse to rewrite a file this class cannot read
    }
    List<String> updated = new ArrayList<>();
    boolean replaced = false;
    for (String line : lines) {
      if (isLineOf(line, name)) {
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

  /**
   * Removes user {@code name} from {@code file}. The file is replaced atomically and keeps its
   * permissions.
   *
   * @return whether the user existed (if not, the file is left as it was)
   */
  public static boolean remove(Path file, String name) throws IOException {
    List<String> lines = lines(file);
    if (!parse(file, lines).containsKey(name)) {
      return false;
    }
    List<String> kept = new ArrayList<>();
    for (String line : lines) {
      if (!isLineOf(line, name)) {
        kept.add(line);
      }
    }
    write(file, kept);
    return true;
  }

  private static boolean isLineOf(String line, String name) {
    return line.strip().startsWith(name + ":");
  }

  private static int lineOf(List<String> lines, String name) {
    for (int i = 0; i < lines.size(); i++) {
      if (isLineOf(lines.get(i), name)) {
        return i + 1;
      }
    }
    throw new IllegalStateException("no line of user " + name);
  }

  /** The lines of {@code file}, or an {@link IOException} that says what is wrong in words. */
  private static List<String> lines(Path file) throws IOException {
    try {
      return Files.readAllLines(file, UTF_8);
    } catch (IOException e) {
      throw problem(file, e);
    }
  }

  private static IOException problem(Path file, IOException e) {
    String what;
    if (e instanceof NoSuchFileException) {
      what = "no such file";
    } else if (e instanceof AccessDeniedException) {
      what = "permission denied";
    } else if (e instanceof CharacterCodingException) {
      what = "not UTF-8 text";
    } else if (Files.isDirectory(file)) {
      what = "is a directory";
    } else {
      what = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
    return new IOException("users file " + file + ": " + what, e);
  }

  private static void write(Path file, List<String> lines) throws IOException {
    Path absolute = file.toAbsolutePath();
    PosixFileAttributeView view =
        Files.getFileAttributeView(absolute.getParent(), PosixFileAttributeView.class);
    Path temp;
    if (view != null) {
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
      if (view != null && Files.exists(absolute)) {
        // The new file replaces the old one: it gets the permissions the owner gave the old one.
        Files.setPosixFilePermissions(temp, Files.getPosixFilePermissions(absolute));
      }
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
