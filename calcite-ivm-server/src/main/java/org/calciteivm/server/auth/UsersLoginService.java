package org.calciteivm.server.auth;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.eclipse.jetty.security.AbstractLoginService;
import org.eclipse.jetty.util.security.Credential;

/**
 * Jetty's view of a {@link UsersFile}: checks the name and password of an HTTP BASIC request
 * against the stored {@link PasswordHash}es.
 *
 * <p>Every remote JDBC call is one HTTP request carrying the password, and a PBKDF2 check costs
 * hundreds of milliseconds by design. So once a password has been verified, the service remembers
 * an HMAC of it under a key made at random when the server starts (never written anywhere) and
 * accepts the same password again by comparing HMACs. A wrong password always costs a full PBKDF2
 * check, and so does an unknown user name, so that timing does not tell which names exist.
 *
 * <p>PBKDF2 checks run at most {@link #CONCURRENT_CHECKS} at a time, so that guessers, however
 * many, leave the other cores to the clients whose passwords are remembered; a check that waits
 * longer than {@link #CHECK_WAIT} fails with {@link BusyException}. Limiting how often one address
 * or name may fail is {@link LoginThrottle}'s part.
 */
public final class UsersLoginService extends AbstractLoginService {
  /** The one role every user has; the server's constraint requires it. */
  public static final String ROLE = "calcite-ivm-user";

  /** PBKDF2 checks at a time: half the cores, at least one. */
  public static final int CONCURRENT_CHECKS =
      Math.max(1, Runtime.getRuntime().availableProcessors() / 2);

  /** How long a PBKDF2 check waits for its turn before the login is refused as busy. */
  public static final Duration CHECK_WAIT = Duration.ofSeconds(10);

  private static final String MAC = "HmacSHA256";

  /** Thrown when a password cannot be checked now, because too many checks are waiting. */
  public static final class BusyException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    BusyException(String message) {
      super(message);
    }
  }

  private final Semaphore checks = new Semaphore(CONCURRENT_CHECKS, true);

  private final Map<String, PasswordHash> users;
  private final PasswordHash decoy;
  private final SecretKeySpec verifiedKey;
  private final Map<String, byte[]> verified = new ConcurrentHashMap<>();

  /** A service for {@code users}, named after the HTTP realm {@code realm}. */
  public UsersLoginService(String realm, Map<String, PasswordHash> users) {
    this.users = Map.copyOf(users);
    setName(realm);
    int iterations =
        users.values().stream()
            .mapToInt(PasswordHash::iterations)
            .max()
            .orElse(PasswordHash.DEFAULT_ITERATIONS);
    this.decoy = PasswordHash.create(new char[] {'-'}, iterations);
    byte[] key = new byte[32];
    new SecureRandom().nextBytes(key);
    this.verifiedKey = new SecretKeySpec(key, MAC);
  }

  @Override
  protected String[] loadRoleInfo(UserPrincipal user) {
    return new String[] {ROLE};
  }

  @Override
  protected UserPrincipal loadUserInfo(String username) {
    PasswordHash hash = users.get(username);
    if (hash == null) {
      // Jetty skips the password check for a null principal; check against a decoy instead.
      return new UserPrincipal(username, new HashCredential(username, decoy, false));
    }
    return new UserPrincipal(username, new HashCredential(username, hash, true));
  }

  private byte[] mac(String user, String password) {
    try {
      Mac mac = Mac.getInstance(MAC);
      mac.init(verifiedKey);
      mac.update(user.getBytes(UTF_8));
      mac.update((byte) 0);
      return mac.doFinal(password.getBytes(UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(MAC + " is not available", e);
    }
  }

  /** Runs the PBKDF2 check of {@code password} against {@code hash} when it is its turn. */
  private boolean checked(PasswordHash hash, String password) {
    boolean acquired;
    try {
      acquired = checks.tryAcquire(CHECK_WAIT.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new BusyException("interrupted while waiting to check the password");
    }
    if (!acquired) {
      throw new BusyException("too many password checks are waiting");
    }
    try {
      return hash.matches(password.toCharArray());
    } finally {
      checks.release();
    }
  }

  /** The credential of one user: checks a password against the user's hash. */
  private final class HashCredential extends Credential {
    private static final long serialVersionUID = 1L;

    private final String user;
    private final transient PasswordHash hash;
    private final boolean known;

    HashCredential(String user, PasswordHash hash, boolean known) {
      this.user = user;
      this.hash = hash;
      this.known = known;
    }

    @Override
    public boolean check(Object credentials) {
      if (!(credentials instanceof String password)) {
        return false;
      }
      byte[] mac = mac(user, password);
      byte[] remembered = known ? verified.get(user) : null;
      if (remembered != null && MessageDigest.isEqual(remembered, mac)) {
        return true;
      }
      boolean matches = checked(hash, password);
      if (matches && known) {
        verified.put(user, mac);
      }
      return matches && known;
    }
  }
}
