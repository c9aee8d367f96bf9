package org.calciteivm.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The one conflict policy: what counts as a conflict, and how often work is run again. */
class ConflictsTest {
  private static final SQLException CONFLICT =
      new SQLException("TransactionContext Error: Conflict on update!");

  @Test
  void recognizesDuckDbsConflictsOnly() {
    assertThat(Conflicts.isConflict(CONFLICT)).isTrue();
    assertThat(
            Conflicts.isConflict(
                new SQLException("TransactionContext Error: Catalog write-write conflict on x")))
        .isTrue();
    assertThat(
            Conflicts.isConflict(new SQLException("Binder Error: column \"Conflict\" not found")))
        .isFalse();
  }

  @Test
  void runsAgainUntilAnAttemptDoesNotConflict() throws SQLException {
    AtomicInteger retries = new AtomicInteger();
    int result =
        Conflicts.retrying(
            attempt -> {
              if (attempt < 3) {
                throw CONFLICT;
              }
              return attempt;
            },
            retries::incrementAndGet,
            (attempts, e) -> new SQLException("exhausted"));
    assertThat(result).isEqualTo(3);
    assertThat(retries).hasValue(2);
  }

  @Test
  void givesUpAfterTheLastAttempt() {
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(
            () ->
                Conflicts.retrying(
                    attempt -> {
                      attempts.incrementAndGet();
                      throw CONFLICT;
                    },
                    () -> {},
                    (n, e) -> new SQLException("gave up after " + n, e)))
        .hasMessage("gave up after " + Conflicts.MAX_ATTEMPTS)
        .hasCause(CONFLICT);
    assertThat(attempts).hasValue(Conflicts.MAX_ATTEMPTS);
  }

  @Test
  void otherFailuresEndAtOnce() {
    AtomicInteger attempts = new AtomicInteger();
    SQLException other = new SQLException("Constraint Error: duplicate key");
    assertThatThrownBy(
            () ->
                Conflicts.retrying(
                    attempt -> {
                      attempts.incrementAndGet();
                      throw other;
                    },
                    () -> {},
                    (n, e) -> new SQLException("exhausted")))
        .isSameAs(other);
    assertThat(attempts).hasValue(1);
  }
}
