package org.calciteivm.server.auth;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * A salted, slow hash of a password: PBKDF2 with HMAC-SHA256 (from the JDK), its iteration count
 * stored with it so that entries made with different costs coexist.
 *
 * <p>Text form: {@code pbkdf2-sha256:<iterations>:<salt, base64>:<hash, base64>}. The salt has at
 * least {@value #MIN_SALT_BYTES} bytes and the hash exactly 32. A hash may have any positive
 * iteration count, so that tests and embedding applications can make cheap ones; users files
 * require {@link #MIN_ITERATIONS} ({@link UsersFile}).
 */
public record PasswordHash(int iterations, byte[] salt, byte[] hash) {
  /** The scheme name at the start of the text form. */
  public static final String SCHEME = "pbkdf2-sha256";

  /**
   * Iterations of new entries: OWASP's 2023 recommendation for PBKDF2-HMAC-SHA256. A server
   * verifies a password once per user and then remembers it (see {@link UsersLoginService}), so the
   * cost is paid at the first request, and by whoever guesses.
   */
  public static final int DEFAULT_ITERATIONS = 600_000;

  /**
   * The fewest iterations a users file may use: below it, guessing from a stolen file gets cheap
   * (one sixth of OWASP's recommendation still costs a guesser about 30 ms of a core per guess).
   */
  public static final int MIN_ITERATIONS = 100_000;

  /** The shortest salt accepted: NIST SP 800-132 asks for at least 128 bits. */
  public static final int MIN_SALT_BYTES = 16;

  private static final String ALGORITHM = "PBKDF2WithHmacSHA256";
  private static final int HASH_BITS = 256;
  private static final SecureRandom RANDOM = new SecureRandom();

  public PasswordHash {
    if (iterations < 1) {
      throw new IllegalArgumentException("iterations must be positive: " + iterations);
    }
    if (salt.length < MIN_SALT_BYTES) {
      throw new IllegalArgumentException(
          "the salt has " + salt.length + " bytes, at least " + MIN_SALT_BYTES + " are needed");
    }
    if (hash.length != HASH_BITS / 8) {
      throw new IllegalArgumentException(
          "the hash has " + hash.length + " bytes, PBKDF2-HMAC-SHA256 gives " + HASH_BITS / 8);
    }
    salt = salt.clone();
    hash = hash.clone();
  }

  /** Hashes {@code password} with a new random salt. */
  public static PasswordHash create(char[] password, int iterations) {
    byte[] salt = new byte[MIN_SALT_BYTES];
    RANDOM.nextBytes(salt);
    return new PasswordHash(iterations, salt, derive(password, salt, iterations));
  }

  /** Whether {@code password} is the one hashed here; the comparison takes constant time. */
  public boolean matches(char[] password) {
    return MessageDigest.isEqual(hash, derive(password, salt, iterations));
  }

  /** Parses the text form; throws {@link IllegalArgumentException} naming what is wrong. */
  public static PasswordHash parse(String text) {
    String[] parts = text.split(":", -1);
    if (parts.length != 4 || !parts[0].equals(SCHEME)) {
      throw new IllegalArgumentException(
          "not a password hash of the form " + SCHEME + ":<iterations>:<salt>:<hash>");
    }
    try {
      return new PasswordHash(
          Integer.parseInt(parts[1]),
          Base64.getDecoder().decode(parts[2]),
          Base64.getDecoder().decode(parts[3]));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("malformed password hash: " + e.getMessage(), e);
    }
  }

  /** The text form, as stored in a users file. */
  public String encode() {
    Base64.Encoder base64 = Base64.getEncoder();
    return SCHEME
        + ":"
        + iterations
        + ":"
        + base64.encodeToString(salt)
        + ":"
        + base64.encodeToString(hash);
  }

  @Override
  public byte[] salt() {
    return salt.clone();
  }

  @Override
  public byte[] hash() {
    return hash.clone();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PasswordHash other
        && iterations == other.iterations
        && Arrays.equals(salt, other.salt)
        && Arrays.equals(hash, other.hash);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * iterations + Arrays.hashCode(salt)) + Arrays.hashCode(hash);
  }

  @Override
  public String toString() {
    return SCHEME + ":" + iterations + ":...";
  }

  private static byte[] derive(char[] password, byte[] salt, int iterations) {
    PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, HASH_BITS);
    try {
      return SecretKeyFactory.getInstance(ALGORITHM).generateSecret(spec).getEncoded();
    } catch (GeneralSecurityException e) {
      // Every Java 17 runtime provides this algorithm.
      throw new IllegalStateException(ALGORITHM + " is not available", e);
    } finally {
      spec.clearPassword();
    }
  }
}
