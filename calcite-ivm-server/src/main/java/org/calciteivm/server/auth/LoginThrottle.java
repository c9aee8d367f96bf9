package org.calciteivm.server.auth;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.HexFormat;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.calciteivm.server.log.ServerLog;

/**
 * Limits password guessing: failed logins per client address and per user name.
 *
 * <p>Each address and each name has a budget of failures ({@link Limit}): {@code burst} failures,
 * and one more each {@code refill}, up to {@code burst} again. A login attempt takes one failure
 * from its address's budget and its name's before its password is checked, and gives them back if
 * the password was right; an attempt whose address or name has no failure left is refused at once
 * (HTTP 429, {@link Attempt#retryAfterSeconds}) without checking its password, so that refused
 * guesses cost the server nothing and tell the guesser nothing. Taking before checking also bounds
 * the attempts of one address or name in flight at a time.
 *
 * <p>A guesser can thus lock out a good user only where they share the limited key: the address
 * (clients behind one NAT or proxy, or on one machine), or the name. So that guessing a name from
 * many addresses cannot lock its user out everywhere, the name's budget does not apply at an
 * address from which that name has logged in since the server started (up to {@value
 * #GOOD_ADDRESSES} addresses per name): there only the address's budget applies. Every budget
 * refills while no one fails against it, so no lock lasts longer than the guessing plus {@code
 * burst × refill}.
 *
 * <p>Addresses are IPv4 addresses, and IPv6 addresses by their /64 network, since one IPv6 host
 * commonly has a whole /64 to choose addresses from. Unknown names have budgets as known ones do,
 * so that refusals do not tell which names exist. Keys whose budget is full are forgotten; if
 * {@value #MAX_KEYS} keys are limited at once, attempts of further keys are refused until some
 * budgets are full again.
 */
public final class LoginThrottle {
  /** Per address: 10 failures, then one per 6 seconds (10 a minute). */
  public static final Limit PER_ADDRESS = new Limit(10, Duration.ofSeconds(6));

  /** Per user name, at addresses where it has not logged in: 20, then one per 6 seconds. */
  public static final Limit PER_NAME = new Limit(20, Duration.ofSeconds(6));

  static final int GOOD_ADDRESSES = 16;
  static final int MAX_KEYS = 100_000;
  private static final int SWEEP_AT = 10_000;
  private static final int MAX_NAME_KEY = 128;

  /**
   * A budget of failures: {@code burst} at first, one more each {@code refill}.
   *
   * @param burst the failures allowed in a row
   * @param refill how long until one more failure is allowed
   */
  public record Limit(int burst, Duration refill) {
    public Limit {
      if (burst < 1 || refill.isNegative() || refill.isZero()) {
        throw new IllegalArgumentException("not a limit: " + burst + " per " + refill);
      }
    }
  }

  private final Limit perAddress;
  private final Limit perName;
  private final LongSupplier nanoTime;
  private final Map<String, Bucket> addresses = new ConcurrentHashMap<>();
  private final Map<String, Bucket> names = new ConcurrentHashMap<>();
  private final Map<String, Deque<String>> goodAddresses = new ConcurrentHashMap<>();

  /** A throttle with the default limits {@link #PER_ADDRESS} and {@link #PER_NAME}. */
  public LoginThrottle() {
    this(PER_ADDRESS, PER_NAME, System::nanoTime);
  }

  /** A throttle with the given limits. */
  public LoginThrottle(Limit perAddress, Limit perName) {
    this(perAddress, perName, System::nanoTime);
  }

  /** A throttle with the given limits, reading the time from {@code nanoTime}. */
  LoginThrottle(Limit perAddress, Limit perName, LongSupplier nanoTime) {
    this.perAddress = Objects.requireNonNull(perAddress);
    this.perName = Objects.requireNonNull(perName);
    this.nanoTime = nanoTime;
  }

  /**
   * Begins a login attempt of {@code name} (null if it cannot be a user name, then only the
   * address's budget applies) from {@code address} (an IP address as Jetty gives it): takes a
   * failure from each budget that applies, or refuses the attempt if one is used up.
   */
  public Attempt begin(String address, String name) {
    long now = nanoTime.getAsLong();
    String addressKey = addressKey(address);
    boolean limitName = name != null && !isGoodAddress(name, addressKey);
    Bucket addressBucket = bucket(addresses, addressKey, perAddress, now);
    Bucket nameBucket = limitName ? bucket(names, nameKey(name), perName, now) : null;
    if (addressBucket == null || (limitName && nameBucket == null)) {
      return refused(null, now); // too many keys are limited to track another one
    }
    if (!addressBucket.take(now)) {
      return refused(addressBucket, now);
    }
    if (nameBucket != null && !nameBucket.take(now)) {
      addressBucket.give(now);
      return refused(nameBucket, now);
    }
    return new Attempt(addressKey, name, addressBucket, nameBucket, 0);
  }

  private Attempt refused(Bucket bucket, long now) {
    long nanos = bucket == null ? perAddress.refill().toNanos() : bucket.nanosUntilToken(now);
    return new Attempt(null, null, null, null, Math.max(1, (nanos + 999_999_999) / 1_000_000_000));
  }

  private boolean isGoodAddress(String name, String addressKey) {
    Deque<String> good = goodAddresses.get(name);
    if (good == null) {
      return false;
    }
    synchronized (good) {
      return good.contains(addressKey);
    }
  }

  private void addGoodAddress(String name, String addressKey) {
    Deque<String> good = goodAddresses.computeIfAbsent(name, n -> new ArrayDeque<>());
    synchronized (good) {
      good.remove(addressKey);
      good.addFirst(addressKey);
      while (good.size() > GOOD_ADDRESSES) {
        good.removeLast();
      }
    }
  }

  /** The bucket of {@code key}, or null if too many keys are limited to track another one. */
  private Bucket bucket(Map<String, Bucket> buckets, String key, Limit limit, long now) {
    Bucket bucket = buckets.get(key);
    if (bucket != null) {
      return bucket;
    }
    if (buckets.size() >= SWEEP_AT) {
      buckets.values().removeIf(b -> b.isFull(now));
      if (buckets.size() >= MAX_KEYS) {
        return null;
      }
    }
    return buckets.computeIfAbsent(key, k -> new Bucket(limit, now));
  }

  /** The number of addresses and names whose budget is not full, for tests. */
  int trackedKeys() {
    long now = nanoTime.getAsLong();
    addresses.values().removeIf(b -> b.isFull(now));
    names.values().removeIf(b -> b.isFull(now));
    return addresses.size() + names.size();
  }

  /** IPv4 addresses as they are; IPv6 ones by their /64 network. */
  static String addressKey(String address) {
    if (address == null || address.indexOf(':') < 0) {
      return String.valueOf(address);
    }
    try {
      // A literal: no name lookup happens.
      InetAddress ip = InetAddress.getByName(address);
      if (ip instanceof Inet6Address && !ip.isLoopbackAddress()) {
        byte[] network = Arrays.copyOf(ip.getAddress(), 16);
        Arrays.fill(network, 8, 16, (byte) 0);
        return InetAddress.getByAddress(network).getHostAddress() + "/64";
      }
      return ip.getHostAddress();
    } catch (UnknownHostException e) {
      return address;
    }
  }

  /** Names as they are, or a hash of a long one, so that a key's size is bounded. */
  private static String nameKey(String name) {
    if (name.length() <= MAX_NAME_KEY) {
      return name;
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(name.getBytes(UTF_8));
      return "sha-256:" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }

  /** One login attempt: refused, or to be ended by exactly one of its three ending methods. */
  public final class Attempt {
    private final String addressKey;
    private final String name;
    private final Bucket address;
    private final Bucket nameBucket;
    private final long retryAfterSeconds;

    private Attempt(
        String addressKey, String name, Bucket address, Bucket nameBucket, long retryAfter) {
      this.addressKey = addressKey;
      this.name = name;
      this.address = address;
      this.nameBucket = nameBucket;
      this.retryAfterSeconds = retryAfter;
    }

    /** Whether the attempt is refused: its password must not be checked. */
    public boolean refused() {
      return address == null;
    }

    /** For a refused attempt, the seconds until the budget that refused it allows one more. */
    public long retryAfterSeconds() {
      return retryAfterSeconds;
    }

    /** The password was right: the failures taken are given back. */
    public void succeeded() {
      long now = nanoTime.getAsLong();
      giveBack(now);
      if (name != null) {
        addGoodAddress(name, addressKey);
      }
    }

    /**
     * The password was wrong: the failures taken stay taken. Returns what this failure used up the
     * budget of, so that its further attempts are refused for a while (such as {@code the address
     * 10.0.0.7}), or null.
     */
    public String failed() {
      long now = nanoTime.getAsLong();
      boolean addressUsedUp = !address.hasToken(now);
      boolean nameUsedUp = nameBucket != null && !nameBucket.hasToken(now);
      String addressText = "the address " + addressKey;
      String nameText = "the name " + ServerLog.quote(name);
      if (addressUsedUp && nameUsedUp) {
        return addressText + " and " + nameText;
      }
      return addressUsedUp ? addressText : nameUsedUp ? nameText : null;
    }

    /** The password could not be checked: the failures taken are given back. */
    public void cancel() {
      giveBack(nanoTime.getAsLong());
    }

    private void giveBack(long now) {
      address.give(now);
      if (nameBucket != null) {
        nameBucket.give(now);
      }
    }
  }

  /** A budget of failures, refilled continuously (a token bucket). */
  private static final class Bucket {
    private final int burst;
    private final long refillNanos;
    private double tokens;
    private long updated;

    Bucket(Limit limit, long now) {
      this.burst = limit.burst();
      this.refillNanos = limit.refill().toNanos();
      this.tokens = burst;
      this.updated = now;
    }

    private void refill(long now) {
      if (now > updated) {
        tokens = Math.min(burst, tokens + (double) (now - updated) / refillNanos);
        updated = now;
      }
    }

    synchronized boolean take(long now) {
      refill(now);
      if (tokens >= 1) {
        tokens -= 1;
        return true;
      }
      return false;
    }

    synchronized void give(long now) {
      refill(now);
      tokens = Math.min(burst, tokens + 1);
    }

    synchronized boolean hasToken(long now) {
      refill(now);
      return tokens >= 1;
    }

    synchronized boolean isFull(long now) {
      refill(now);
      return tokens >= burst;
    }

    synchronized long nanosUntilToken(long now) {
      refill(now);
      return tokens >= 1 ? 0 : (long) Math.ceil((1 - tokens) * refillNanos);
    }
  }
}
