package org.calciteivm.jdbc;

import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;

/**
 * Which transaction maintains each immediate materialized view: the writers of one immediate view
 * take turns, from their first write to the view's tables until their transaction ends, while
 * writers of unrelated views never wait for each other.
 *
 * <p>Without turns, two transactions that both refresh a view conflict in DuckDB (both update the
 * view's catalog row, and often the same stored rows), so one of them would fail or start over. A
 * transaction of the driver's own (an auto-commit write) takes all the views it needs at once,
 * before it begins, so those never wait for each other in a cycle. A client's transaction takes
 * them write by write; two such transactions that wait for each other's views give up after {@link
 * #WAIT_MILLIS} with SQLState 40001, as for a conflict.
 */
final class ImmediateViewLocks {
  /** How long a writer waits for another transaction to finish maintaining a view. */
  static final long WAIT_MILLIS = 10_000;

  /** Per view id, the transaction (its {@link TransactionState}) that maintains it. */
  private final Map<Integer, Object> owners = new HashMap<>();

  /**
   * Takes the views {@code viewIds} for {@code owner}, all at once, waiting for the transactions
   * that hold any of them to end.
   *
   * @param names the views' names by id, for the message of a wait that gives up
   */
  synchronized void take(Object owner, Collection<Integer> viewIds, Map<Integer, String> names)
      throws SQLException {
    long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
    while (true) {
      Integer busy = null;
      for (int id : viewIds) {
        Object holder = owners.get(id);
        if (holder != null && holder != owner) {
          busy = id;
          break;
        }
      }
      if (busy == null) {
        for (int id : viewIds) {
          owners.put(id, owner);
        }
        return;
      }
      long left = (deadline - System.nanoTime()) / 1_000_000;
      if (left <= 0) {
        throw new SQLException(
            "this write changes immediate materialized view \""
                + names.get(busy)
                + "\", which another open transaction has been maintaining for "
                + WAIT_MILLIS / 1000
                + " seconds: nothing of this write was applied; end the other transaction, or retry",
            Conflicts.SERIALIZATION_FAILURE);
      }
      try {
        wait(left);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new SQLException(
            "interrupted while waiting to maintain immediate materialized view \""
                + names.get(busy)
                + "\": nothing of this write was applied",
            "57014",
            e);
      }
    }
  }

  /** Gives back every view {@code owner} holds: its transaction ended. */
  synchronized void release(Object owner) {
    if (owners.values().removeIf(holder -> holder == owner)) {
      notifyAll();
    }
  }
}
