package org.calciteivm.tests;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The writer of the concurrency tests: random inserts (as batches), updates and deletes of {@code
 * t(id, grp, val)} in its own key range, some in explicit transactions, some of those rolled back.
 */
final class RandomWrites {
  private RandomWrites() {}

  /**
   * Writes through {@code c} until {@code deadline} ({@link System#nanoTime()}), with keys from
   * {@code base} on; counts each ended transaction in {@code transactions}.
   */
  static void until(Connection c, Random random, long base, long deadline, AtomicLong transactions)
      throws SQLException {
    try (Statement s = c.createStatement();
        PreparedStatement insert = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?)")) {
      long next = base;
      while (System.nanoTime() < deadline) {
        boolean explicit = random.nextInt(3) == 0;
        c.setAutoCommit(!explicit);
        // Avatica's client sends the change with the next statement it creates or prepares, not
        // with a prepared statement's execute or batch, nor with commit: getAutoCommit sends it.
        c.getAutoCommit();
        for (int i = 0; i < 1 + random.nextInt(3); i++) {
          switch (random.nextInt(3)) {
            case 0 -> {
              for (int r = 0; r < 1 + random.nextInt(4); r++) {
                insert.setLong(1, next++);
                insert.setInt(2, random.nextInt(5));
                insert.setInt(3, random.nextInt(50));
                insert.addBatch();
              }
              insert.executeBatch();
            }
            case 1 ->
                s.execute(
                    "UPDATE t SET val = val + 7, grp = (grp + 1) % 5 WHERE id BETWEEN "
                        + (base + random.nextInt(Math.max(1, (int) (next - base))))
                        + " AND "
                        + (next + 2));
            default ->
                s.execute(
                    "DELETE FROM t WHERE id = "
                        + (base + random.nextInt(Math.max(1, (int) (next - base)))));
          }
        }
        if (explicit) {
          if (random.nextInt(4) == 0) {
            c.rollback();
          } else {
            c.commit();
          }
        }
        transactions.incrementAndGet();
      }
    }
  }
}
