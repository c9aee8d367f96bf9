package org.calciteivm.server.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Tests {@link LoginThrottle} with a clock the test moves. */
class LoginThrottleTest {
  private static final LoginThrottle.Limit PER_ADDRESS =
      new LoginThrottle.Limit(3, Duration.ofSeconds(10));
  private static final LoginThrottle.Limit PER_NAME =
      new LoginThrottle.Limit(5, Duration.ofSeconds(10));

  private long now = 1_000_000_000L;
  private final LoginThrottle throttle = new LoginThrottle(PER_ADDRESS, PER_NAME, () -> now);

  private void pass(Duration time) {
    now += time.toNanos();
  }

  /** Fails {@code times} logins of {@code name} from {@code address}, none refused. */
  private void fail(String address, String name, int times) {
    for (int i = 0; i < times; i++) {
      LoginThrottle.Attempt attempt = throttle.begin(address, name);
      assertThat(attempt.refused()).as("attempt %d of %s from %s", i + 1, name, address).isFalse();
      attempt.failed();
    }
  }

  @Test
  void anAddressGetsItsBurstThenOneAttemptPerRefill() {
    fail("10.0.0.1", "alice", 2);
    LoginThrottle.Attempt third = throttle.begin("10.0.0.1", "bob");
    assertThat(third.failed()).isEqualTo("the address 10.0.0.1");

    LoginThrottle.Attempt refused = throttle.begin("10.0.0.1", "carol");
    assertThat(refused.refused()).isTrue();
    assertThat(refused.retryAfterSeconds()).isEqualTo(10);
    pass(Duration.ofSeconds(4));
    assertThat(throttle.begin("10.0.0.1", "carol").retryAfterSeconds()).isEqualTo(6);
    assertThat(throttle.begin("10.0.0.2", "carol").refused()).as("another address").isFalse();

    pass(Duration.ofSeconds(6));
    fail("10.0.0.1", "carol", 1);
    assertThat(throttle.begin("10.0.0.1", "carol").refused()).isTrue();
  }

  @Test
  void rightPasswordsAndUncheckedAttemptsCostNothing() {
    for (int i = 0; i < 10; i++) {
      throttle.begin("10.0.0.1", "alice").succeeded();
      throttle.begin("10.0.0.1", "bob").cancel();
    }
    fail("10.0.0.1", "alice", 3);
    assertThat(throttle.begin("10.0.0.1", "alice").refused()).isTrue();
  }

  @Test
  void refusedAttemptsDoNotProlongTheLimit() {
    fail("10.0.0.1", "alice", 3);
    for (int i = 0; i < 100; i++) {
      assertThat(throttle.begin("10.0.0.1", "alice").refused()).isTrue();
    }
    pass(Duration.ofSeconds(10));
    assertThat(throttle.begin("10.0.0.1", "alice").refused()).isFalse();
  }

  @Test
  void aNameIsLimitedAcrossAddressesExceptWhereItHasLoggedIn() {
    throttle.begin("10.0.0.9", "alice").succeeded();
    for (int i = 1; i <= 5; i++) {
      fail("10.0.1." + i, "alice", 1);
    }

    LoginThrottle.Attempt elsewhere = throttle.begin("10.0.2.1", "alice");
    assertThat(elsewhere.refused()).as("a new address, even with the right password").isTrue();
    assertThat(throttle.begin("10.0.2.1", "bob").refused()).as("another name").isFalse();
    LoginThrottle.Attempt home = throttle.begin("10.0.0.9", "alice");
    assertThat(home.refused()).as("where alice has logged in").isFalse();
    home.succeeded();

    // Guessing alice from the address where she logs in meets that address's limit.
    fail("10.0.0.9", "alice", 3);
    assertThat(throttle.begin("10.0.0.9", "alice").refused()).isTrue();
  }

  @Test
  void theLastFailureOfANameSaysSo() {
    fail("10.0.1.1", "alice", 2);
    fail("10.0.1.2", "alice", 2);
    assertThat(throttle.begin("10.0.1.3", "alice").failed()).isEqualTo("the name 'alice'");
  }

  @Test
  void aNameThatCannotExistCountsOnlyAgainstItsAddress() {
    fail("10.0.0.1", null, 3);
    assertThat(throttle.begin("10.0.0.1", null).refused()).isTrue();
    assertThat(throttle.begin("10.0.0.2", null).refused()).isFalse();
  }

  @Test
  void ipv6AddressesCountByTheirSlash64() {
    assertThat(LoginThrottle.addressKey("2001:db8:0:0:1:2:3:4"))
        .isEqualTo("2001:db8:0:0:0:0:0:0/64");
    assertThat(LoginThrottle.addressKey("0:0:0:0:0:0:0:1")).isEqualTo("0:0:0:0:0:0:0:1");
    assertThat(LoginThrottle.addressKey("192.0.2.7")).isEqualTo("192.0.2.7");

    fail("2001:db8::1", "alice", 1);
    fail("2001:db8::2", "bob", 1);
    fail("2001:db8::3", "carol", 1);
    assertThat(throttle.begin("2001:db8::ffff", "dave").refused()).isTrue();
    assertThat(throttle.begin("2001:db8:0:1::1", "dave").refused()).isFalse();
  }

  @Test
  void budgetsThatRefilledAreForgotten() {
    fail("10.0.0.1", "alice", 3);
    fail("10.0.0.2", "bob", 1);
    assertThat(throttle.trackedKeys()).isEqualTo(4);
    pass(Duration.ofSeconds(30));
    assertThat(throttle.trackedKeys()).isZero();
  }
}
