package org.calciteivm.spark;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How a failed commit's message is found under the errors Spark wraps around it. */
class RootCausesTest {
  @Test
  void everyFailureOfConcurrentStagesIsNamed() {
    // Spark's adaptive execution reports concurrent stage failures as one error caused by the
    // first and carrying the others as suppressed; each is a job error caused by a task's error
    RuntimeException cast = new NumberFormatException("The value 'x' cannot be cast to INT");
    RuntimeException cancelled = new IllegalStateException("Job 7 cancelled");
    RuntimeException first = new RuntimeException("Job aborted due to stage failure", cast);
    RuntimeException multiple = new RuntimeException("Multiple failures in stage materialization.");
    multiple.initCause(cancelled);
    multiple.addSuppressed(first);
    multiple.addSuppressed(new RuntimeException("Job aborted", cast));
    assertThat(SparkIvm.rootCauses(new RuntimeException(multiple)))
        .isEqualTo("Job 7 cancelled; The value 'x' cannot be cast to INT");
  }

  @Test
  void anErrorWithoutCauseIsItsOwnRoot() {
    assertThat(SparkIvm.rootCauses(new IllegalArgumentException("bad"))).isEqualTo("bad");
    assertThat(SparkIvm.rootCauses(new IllegalArgumentException()))
        .isEqualTo("java.lang.IllegalArgumentException");
  }
}
