package org.calciteivm.jdbc;

import java.sql.SQLException;
import java.util.Map;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.catalog.ViewSchedules;
import org.calciteivm.jdbc.ddl.ViewRefreshes;

/**
 * Refreshes scheduled materialized views ({@code WITH (refresh = 'every 5 seconds')}) in the
 * background: one daemon thread per open database, in the process that opened it (an embedded
 * driver or the server), with a connection of its own.
 *
 * <p>A view is due when the {@code next_refresh_at} of its catalog row has passed; after each of
 * its refreshes, successful or not, the next one is due one interval later (so refreshes of one
 * view never overlap, and a slow one delays the next), and the row records the error of a failed
 * one ({@code last_error} in {@code ivm_views}), which the next successful one clears. A failure
 * never stops the other views. The thread reads the schedule again at least every second, so views
 * created or altered meanwhile are picked up; it stops when the last connection to the database
 * closes, after the refresh it is running.
 */
final class RefreshScheduler {
  /** The longest the thread sleeps before it reads the schedule again. */
  private static final long LONGEST_SLEEP_MILLIS = 1_000;

  /** How long closing the database waits for a refresh in progress to end. */
  private static final long STOP_WAIT_MILLIS = 60_000;

  private final IvmDatabase database;
  private final Thread thread;
  private final Object wakeUp = new Object();
  private volatile boolean stopping;

  private RefreshScheduler(IvmDatabase database, String name) {
    this.database = database;
    this.thread = new Thread(this::run, "calcite-ivm scheduler " + name);
    this.thread.setDaemon(true);
  }

  /** Starts a scheduler for {@code database}, called {@code name} (its file) in thread dumps. */
  static RefreshScheduler start(IvmDatabase database, String name) {
    RefreshScheduler scheduler = new RefreshScheduler(database, name);
    scheduler.thread.start();
    return scheduler;
  }

  /** Stops the thread, waiting for the refresh it is running to end. */
  void stop() {
    stopping = true;
    synchronized (wakeUp) {
      wakeUp.notifyAll();
    }
    if (Thread.currentThread() == thread) {
      return;
    }
    try {
      thread.join(STOP_WAIT_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void run() {
    try (IvmConnection connection = database.internalConnection()) {
      while (!stopping) {
        long sleep;
        try {
          sleep = refreshDue(connection);
        } catch (SQLException | RuntimeException e) {
          // the schedule could not be read (a catalog change under way): read it again later,
          // the scheduler must not die of it
          sleep = LONGEST_SLEEP_MILLIS;
        }
        synchronized (wakeUp) {
          if (!stopping) {
            wakeUp.wait(sleep);
          }
        }
      }
    } catch (SQLException | InterruptedException e) {
      // no connection of its own, or interrupted: the database is closing
    }
  }

  /** Refreshes the views that are due; returns how long to sleep until the next is. */
  private long refreshDue(IvmConnection connection) throws SQLException {
    Map<Integer, Long> due = ViewSchedules.scheduledRefreshesDue(connection.duckDb());
    long sleep = LONGEST_SLEEP_MILLIS;
    for (ViewEntry view : database.catalog().views()) {
      Long inMillis = due.get(view.id());
      if (stopping || !view.timing().isScheduled() || inMillis == null) {
        continue;
      }
      if (inMillis > 0) {
        sleep = Math.min(sleep, inMillis);
        continue;
      }
      String error = null;
      try {
        ViewRefreshes.refresh(connection, view, false);
      } catch (SQLException | RuntimeException | AssertionError | StackOverflowError e) {
        // an unexpected failure inside calcite-ivm or Calcite is recorded too (and reported)
        error = e instanceof SQLException ? e.getMessage() : "internal error in calcite-ivm: " + e;
      }
      try {
        ViewSchedules.recordScheduledRefresh(
            connection.duckDb(), view.id(), view.timing().intervalMillis(), error);
      } catch (SQLException e) {
        // altered or dropped meanwhile: the schedule read next time says what is due
      }
      sleep = Math.min(sleep, view.timing().intervalMillis());
    }
    return Math.max(1, sleep);
  }
}
