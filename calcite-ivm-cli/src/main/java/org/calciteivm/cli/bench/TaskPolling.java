package org.calciteivm.cli.bench;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.sql.SQLException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waiting for the background tasks of a TPC-H generation: the calling thread polls while it waits,
 * so that progress is reported on the thread that asked for the database ({@link
 * TpchData.ProgressListener}).
 */
final class TaskPolling {
  private static final long POLL_MILLIS = 200;

  /** Something to do while waiting. */
  interface Poll {
    void run() throws SQLException;
  }

  private TaskPolling() {}

  /**
   * Waits for a task, polling every {@value #POLL_MILLIS} ms, and rethrows what it threw.
   *
   * @throws InterruptedIOException if the calling thread is interrupted
   */
  static void await(Future<?> future, Poll poll) throws SQLException, IOException {
    while (true) {
      try {
        future.get(POLL_MILLIS, TimeUnit.MILLISECONDS);
        return;
      } catch (TimeoutException e) {
        poll.run();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("TPC-H generation interrupted");
      } catch (ExecutionException e) {
        Throwable cause = e.getCause();
        if (cause instanceof SQLException sql) {
          throw sql;
        }
        if (cause instanceof RuntimeException runtime) {
          throw runtime;
        }
        if (cause instanceof Error error) {
          throw error;
        }
        throw new IOException(cause);
      }
    }
  }

  /**
   * Waits for a task to end, whatever its outcome, keeping but not obeying interrupts: used after a
   * failure, when the task must stop before the resources it uses are closed.
   */
  static void awaitQuietly(Future<?> future) {
    boolean interrupted = false;
    while (true) {
      try {
        future.get();
        break;
      } catch (InterruptedException e) {
        interrupted = true;
      } catch (ExecutionException e) {
        break;
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }
}
