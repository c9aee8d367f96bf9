package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.calciteivm.server.IvmServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Several remote connections write a base table (single statements, prepared batches, explicit
 * transactions that commit or roll back) while others refresh its views, for a bounded time; then
 * every view equals its query ({@code EXCEPT ALL} both ways). The server runs each client
 * connection on its own calcite-ivm connection, so this is {@link ConcurrentWritersTest} through
 * HTTP.
 */
class RemoteConcurrencyTest {
  private static final List<String> VIEWS =
      List.of(
          "SELECT id, grp, val * 2 AS doubled FROM t WHERE val > 10",
          "SELECT grp, count(*) AS n, sum(val) AS total, min(val) AS low FROM t GROUP BY grp",
          "SELECT t.id, g.name FROM t JOIN g ON t.grp = g.grp WHERE t.val < 30");

  @TempDir Path dir;

  @Test
  void everyChangeOfEveryRemoteWriterReachesEveryView() throws Exception {
    long seed = Long.getLong("ivm.seed", System.nanoTime());
    try (IvmServer server = RemoteServer.start(dir.resolve("remote-concurrent.duckdb"));
        Connection setup = RemoteServer.connect(server);
        Statement s = setup.createStatement()) {
      s.execute("CREATE TABLE t (id BIGINT, grp INTEGER, val INTEGER)");
      s.execute("INSERT INTO t SELECT i, i % 5, i % 50 FROM range(1000) r(i)");
      s.execute("CREATE TABLE g (grp INTEGER, name VARCHAR)");
      s.execute("INSERT INTO g SELECT i, 'group ' || i FROM range(5) r(i)");
      for (int v = 0; v < VIEWS.size(); v++) {
        s.execute("CREATE MATERIALIZED VIEW v" + v + " AS " + VIEWS.get(v));
      }

      int writers = 3;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
      AtomicLong committed = new AtomicLong();
      AtomicLong refreshes = new AtomicLong();
      ExecutorService pool = Executors.newFixedThreadPool(writers + 2);
      List<Future<?>> tasks = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        Random random = new Random(seed + w);
        long base = 1_000_000L * (w + 1);
        tasks.add(
            pool.submit(
                () -> {
                  write(server, random, base, deadline, committed);
                  return null;
                }));
      }
      for (int r = 0; r < 2; r++) {
        int first = r;
        tasks.add(
            pool.submit(
                () -> {
                  refresh(server, first, deadline, refreshes);
                  return null;
                }));
      }
      for (Future<?> task : tasks) {
        task.get(120, TimeUnit.SECONDS);
      }
      pool.shutdown();

      String where = "seed " + seed + " (replay with -Divm.seed=" + seed + ")";
      for (int v = 0; v < VIEWS.size(); v++) {
        s.execute("REFRESH MATERIALIZED VIEW v" + v);
        ViewCheck.assertMatches(setup, "v" + v, VIEWS.get(v), where);
      }
      System.out.printf(
          "%d remote write transactions, %d remote refreshes, seed %d%n",
          committed.get(), refreshes.get(), seed);
      assertThat(committed.get()).as("write transactions").isGreaterThan(10);
      assertThat(refreshes.get()).as("refreshes").isGreaterThan(3);
    }
  }

  /** Inserts, updates and deletes rows of its own key range; some transactions roll back. */
  private static void write(
      IvmServer server, Random random, long base, long deadline, AtomicLong committed)
      throws SQLException {
    try (Connection c = RemoteServer.connect(server)) {
      RandomWrites.until(c, random, base, deadline, committed);
    }
  }

  private static void refresh(IvmServer server, int first, long deadline, AtomicLong refreshes)
      throws Exception {
    try (Connection c = RemoteServer.connect(server);
        Statement s = c.createStatement()) {
      for (int i = first; System.nanoTime() < deadline; i++) {
        s.execute("REFRESH MATERIALIZED VIEW v" + (i % VIEWS.size()));
        refreshes.incrementAndGet();
        Thread.sleep(5);
      }
    }
  }
}
