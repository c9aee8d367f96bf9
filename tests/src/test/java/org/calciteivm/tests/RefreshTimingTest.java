package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Immediate and scheduled views under concurrency and over time, with real threads and a real
 * database file: what a single-threaded scenario script cannot show ({@code refresh_immediate.test}
 * covers the SQL).
 */
class RefreshTimingTest {
  private static final String GROUPS =
      "SELECT grp, count(*) AS n, sum(val) AS total, min(val) AS lo FROM t GROUP BY grp";
  private static final String JOINED =
      "SELECT u.label, count(*) AS n, sum(t.val) AS total FROM t JOIN u ON t.grp = u.grp"
          + " GROUP BY u.label";

  @TempDir Path dir;

  /**
   * Writers of the base tables of two immediate views, in auto-commit and in transactions of
   * several statements, while a reader checks at every snapshot it takes that both views equal
   * their queries: an immediate view is never stale, not even for an instant between a write's
   * commit and the view's. Auto-commit writes never fail (writers of one view take turns); a
   * transaction's writes may conflict (SQLState 40001) and are then run again.
   */
  @Test
  void immediateViewsAreExactAtEverySnapshotWhileWritersRunConcurrently() throws Exception {
    long seed = Long.getLong("ivm.seed", System.nanoTime());
    String where = "seed " + seed + " (replay with -Divm.seed=" + seed + ")";
    String url = "jdbc:ivm:duckdb:" + dir.resolve("immediate.duckdb");
    try (Connection setup = DriverManager.getConnection(url);
        Statement s = setup.createStatement()) {
      s.execute("CREATE TABLE t (id BIGINT, grp INTEGER, val INTEGER)");
      s.execute("CREATE TABLE u (grp INTEGER, label VARCHAR)");
      s.execute("INSERT INTO t SELECT i, i % 7, i % 50 FROM range(500) r(i)");
      s.execute("INSERT INTO u SELECT i, 'l' || (i % 3) FROM range(7) r(i)");
      s.execute("CREATE MATERIALIZED VIEW groups WITH (refresh = 'immediate') AS " + GROUPS);
      s.execute("CREATE MATERIALIZED VIEW joined WITH (refresh = 'immediate') AS " + JOINED);

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(4);
      AtomicLong writes = new AtomicLong();
      AtomicLong retried = new AtomicLong();
      AtomicLong checks = new AtomicLong();
      ExecutorService pool = Executors.newFixedThreadPool(5);
      List<Future<?>> tasks = new ArrayList<>();
      for (int w = 0; w < 3; w++) {
        long writerSeed = seed + w;
        long base = 1_000_000L * (w + 1);
        tasks.add(
            pool.submit(
                () -> {
                  autoCommitWriter(url, new Random(writerSeed), base, deadline, writes);
                  return null;
                }));
      }
      tasks.add(
          pool.submit(
              () -> {
                transactionWriter(url, new Random(seed + 10), deadline, writes, retried);
                return null;
              }));
      tasks.add(
          pool.submit(
              () -> {
                snapshotReader(url, deadline, checks, where);
                return null;
              }));
      for (Future<?> task : tasks) {
        task.get(120, TimeUnit.SECONDS);
      }
      pool.shutdown();
      ViewCheck.assertMatches(setup, "groups", GROUPS, where);
      ViewCheck.assertMatches(setup, "joined", JOINED, where);
      try (ResultSet rs =
          s.executeQuery(
              "SELECT sum(pending_rows_total) FROM ivm_views WHERE refresh = 'immediate'")) {
        rs.next();
        assertThat(rs.getLong(1)).as("pending rows of immediate views, " + where).isZero();
      }
      System.out.printf(
          "RefreshTimingTest: %d writes, %d transactions run again, %d snapshots checked, %s%n",
          writes.get(), retried.get(), checks.get(), where);
      assertThat(writes.get()).isPositive();
      assertThat(checks.get()).isPositive();
    }
  }

  private static void autoCommitWriter(
      String url, Random random, long base, long deadline, AtomicLong writes) throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      long next = base;
      while (System.nanoTime() < deadline) {
        switch (random.nextInt(3)) {
          case 0 ->
              s.execute(
                  "INSERT INTO t VALUES ("
                      + next++
                      + ", "
                      + random.nextInt(9)
                      + ", "
                      + random.nextInt(60)
                      + ")");
          case 1 -> s.execute("DELETE FROM t WHERE id = " + (base + random.nextInt(20)));
          default ->
              s.execute(
                  "UPDATE t SET val = val + 1, grp = "
                      + random.nextInt(9)
                      + " WHERE id = "
                      + (base + random.nextInt(20)));
        }
        writes.incrementAndGet();
      }
    }
  }

  /** Transactions of several writes to both tables, run again when they conflict. */
  private static void transactionWriter(
      String url, Random random, long deadline, AtomicLong writes, AtomicLong retried)
      throws SQLException {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      c.setAutoCommit(false);
      while (System.nanoTime() < deadline) {
        int grp = random.nextInt(9);
        try {
          s.execute("INSERT INTO u VALUES (" + grp + ", 'l" + random.nextInt(4) + "')");
          s.execute("DELETE FROM t WHERE id = " + random.nextInt(500));
          s.execute("UPDATE u SET label = 'm' || grp WHERE grp = " + random.nextInt(9));
          c.commit();
          writes.addAndGet(3);
        } catch (SQLException e) {
          assertThat(e.getSQLState()).as("failure of a transaction: " + e).isEqualTo("40001");
          c.rollback();
          retried.incrementAndGet();
        }
      }
    }
  }

  /** Checks both views against their queries in one snapshot (a transaction), again and again. */
  private static void snapshotReader(String url, long deadline, AtomicLong checks, String where)
      throws SQLException {
    try (Connection c = DriverManager.getConnection(url)) {
      c.setAutoCommit(false);
      while (System.nanoTime() < deadline) {
        ViewCheck.assertMatches(c, "groups", GROUPS, where + ", snapshot " + checks.get());
        ViewCheck.assertMatches(c, "joined", JOINED, where + ", snapshot " + checks.get());
        c.commit();
        checks.incrementAndGet();
      }
    }
  }

  /**
   * A write to the table of an immediate view that another open transaction maintains waits for
   * that transaction, then goes on from its result; a write to the table of an unrelated immediate
   * view does not wait at all.
   */
  @Test
  void writersWaitOnlyForTransactionsMaintainingTheSameView() throws Exception {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("turns.duckdb");
    try (Connection first = DriverManager.getConnection(url);
        Connection second = DriverManager.getConnection(url);
        Statement s = first.createStatement();
        Statement s2 = second.createStatement()) {
      s.execute("CREATE TABLE t (id BIGINT, grp INTEGER, val INTEGER)");
      s.execute("CREATE TABLE other (x INTEGER)");
      s.execute("CREATE MATERIALIZED VIEW groups WITH (refresh = 'immediate') AS " + GROUPS);
      s.execute(
          "CREATE MATERIALIZED VIEW counted WITH (refresh = 'immediate') AS"
              + " SELECT count(*) AS n FROM other");
      first.setAutoCommit(false);
      s.execute("INSERT INTO t VALUES (1, 1, 10)");

      // an unrelated view: no wait (the wait would last 10 seconds before giving up)
      long started = System.nanoTime();
      s2.execute("INSERT INTO other VALUES (1)");
      assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started)).isLessThan(5_000);

      // the same view: waits until the first transaction commits, then applies on top of it
      ExecutorService pool = Executors.newSingleThreadExecutor();
      Future<?> waiting = pool.submit(() -> s2.execute("INSERT INTO t VALUES (2, 1, 5)"));
      Thread.sleep(300);
      assertThat(waiting.isDone()).as("the second write waits for the first transaction").isFalse();
      first.commit();
      waiting.get(10, TimeUnit.SECONDS);
      pool.shutdown();
      first.setAutoCommit(true);
      ViewCheck.assertMatches(first, "groups", GROUPS, "after both writes");
      assertThat(ViewCheck.rows(first, "SELECT n, total FROM groups")).containsExactly("2\t15");
      assertThat(ViewCheck.rows(first, "EXPLAIN REFRESH MATERIALIZED VIEW groups"))
          .contains(
              "refreshed: immediate (by every write to its tables, in the writer's transaction;"
                  + " the refresh below is what each write runs)");
    }
  }

  /**
   * Scheduled views are refreshed in the background; a failing one records its error in {@code
   * ivm_views} without stopping the others, and a later successful refresh clears it; the schedule
   * survives a restart; closing the database stops the scheduler's thread.
   */
  @Test
  void scheduledViewsRefreshInTheBackgroundAndRecordTheirErrors() throws Exception {
    Path file = dir.resolve("scheduled.duckdb");
    String url = "jdbc:ivm:duckdb:" + file;
    String counted = "SELECT grp, count(*) AS n FROM t GROUP BY grp";
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE t (id BIGINT, grp INTEGER, val INTEGER, code VARCHAR)");
      s.execute("INSERT INTO t VALUES (1, 1, 1, '1'), (2, 2, 2, '2')");
      s.execute(
          "CREATE MATERIALIZED VIEW counted WITH (refresh = 'every 200 milliseconds') AS "
              + counted);
      s.execute(
          "CREATE MATERIALIZED VIEW coded WITH (refresh = 'every 200 milliseconds') AS"
              + " SELECT id, CAST(code AS INTEGER) AS code FROM t");
      assertThat(ViewCheck.rows(c, "SELECT name, refresh FROM ivm_views ORDER BY name"))
          .containsExactly("coded\tevery 200 milliseconds", "counted\tevery 200 milliseconds");

      s.execute("INSERT INTO t VALUES (3, 1, 3, 'three'), (4, 3, 4, '4')");
      awaitTrue(c, "SELECT pending_rows_total = 0 FROM ivm_views WHERE name = 'counted'");
      awaitTrue(c, "SELECT last_error IS NOT NULL FROM ivm_views WHERE name = 'coded'");
      ViewCheck.assertMatches(c, "counted", counted, "after a scheduled refresh");
      assertThat(
              ViewCheck.rows(
                  c,
                  "SELECT last_error LIKE '%Could not convert%', last_error_at IS NOT NULL,"
                      + " next_refresh_at IS NOT NULL FROM ivm_views WHERE name = 'coded'"))
          .containsExactly("true\ttrue\ttrue");
      // the failing view does not stop the other one
      s.execute("DELETE FROM t WHERE grp = 2");
      awaitTrue(c, "SELECT pending_rows_total = 0 FROM ivm_views WHERE name = 'counted'");
      ViewCheck.assertMatches(c, "counted", counted, "beside a failing view");
      assertThat(ViewCheck.rows(c, "SELECT last_error FROM ivm_views WHERE name = 'counted'"))
          .containsExactly("NULL");

      // the bad row's change stays in the change log: a recompute consumes it, then the
      // scheduler's next refresh succeeds and clears the error
      s.execute("DELETE FROM t WHERE code = 'three'");
      s.execute("SET ivm_refresh_mode = full");
      s.execute("REFRESH MATERIALIZED VIEW coded");
      awaitTrue(c, "SELECT last_error IS NULL FROM ivm_views WHERE name = 'coded'");
      assertThat(threadsNamed(file)).hasSize(1);
    }
    assertThat(threadsNamed(file)).as("the scheduler stops with the database").isEmpty();

    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute("INSERT INTO t VALUES (5, 7, 5, '5')");
      awaitTrue(c, "SELECT pending_rows_total = 0 FROM ivm_views WHERE name = 'counted'");
      ViewCheck.assertMatches(c, "counted", counted, "after a restart");
      s.execute("ALTER MATERIALIZED VIEW counted SET (refresh = 'deferred')");
      s.execute("ALTER MATERIALIZED VIEW coded SET (refresh = 'deferred')");
      s.execute("INSERT INTO t VALUES (6, 7, 6, '6')");
      Thread.sleep(600);
      assertThat(ViewCheck.rows(c, "SELECT pending_rows_total FROM ivm_views ORDER BY name"))
          .as("deferred again: nothing refreshes them")
          .containsExactly("1", "1");
      assertThat(ViewCheck.rows(c, "SELECT count(*) FROM ivm_views WHERE next_refresh_at IS NULL"))
          .containsExactly("2");
    }
    assertThatThrownBy(
            () -> {
              try (Connection c = DriverManager.getConnection(url);
                  Statement s = c.createStatement()) {
                s.execute(
                    "ALTER MATERIALIZED VIEW counted SET (refresh = 'every 50 milliseconds')");
              }
            })
        .hasMessageContaining("at least 100 milliseconds");
  }

  /**
   * Prepared writes and JDBC batches maintain immediate views too, in auto-commit and in a
   * transaction; a batch whose maintenance fails applies nothing.
   */
  @Test
  void preparedWritesAndBatchesMaintainImmediateViews() throws Exception {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("prepared.duckdb");
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE t (id BIGINT, grp INTEGER, val INTEGER)");
      s.execute("CREATE MATERIALIZED VIEW groups WITH (refresh = 'immediate') AS " + GROUPS);
      s.execute(
          "CREATE MATERIALIZED VIEW small WITH (refresh = 'immediate') AS"
              + " SELECT id, CAST(val AS TINYINT) AS val FROM t");
      try (var insert = c.prepareStatement("INSERT INTO t VALUES (?, ?, ?)")) {
        for (int i = 0; i < 10; i++) {
          insert.setLong(1, i);
          insert.setInt(2, i % 3);
          insert.setInt(3, i);
          insert.addBatch();
        }
        insert.executeBatch();
        ViewCheck.assertMatches(c, "groups", GROUPS, "after a batch");
        insert.setLong(1, 100);
        insert.setInt(2, 1);
        insert.setInt(3, 1000); // too large for the view's TINYINT
        assertThatThrownBy(insert::executeUpdate)
            .hasMessageContaining("immediate materialized view \"small\"");
      }
      assertThat(ViewCheck.rows(c, "SELECT count(*) FROM t")).containsExactly("10");
      c.setAutoCommit(false);
      try (var update = c.prepareStatement("UPDATE t SET val = val + ? WHERE grp = ?")) {
        update.setInt(1, 5);
        update.setInt(2, 1);
        update.executeUpdate();
        ViewCheck.assertMatches(c, "groups", GROUPS, "in a transaction");
        ViewCheck.assertMatches(c, "small", "SELECT id, CAST(val AS TINYINT) AS val FROM t", "");
      }
      c.rollback();
      c.setAutoCommit(true);
      ViewCheck.assertMatches(c, "groups", GROUPS, "after the rollback");
    }
  }

  /** A server refreshes scheduled views in its own process, as the embedded driver does. */
  @Test
  void theServerRefreshesScheduledViews() throws Exception {
    Path file = dir.resolve("served.duckdb");
    try (var server = RemoteServer.start(file);
        Connection c = RemoteServer.connect(server);
        Statement s = c.createStatement()) {
      s.execute("CREATE TABLE t (id BIGINT, grp INTEGER, val INTEGER)");
      s.execute(
          "CREATE MATERIALIZED VIEW groups WITH (refresh = 'every 100 milliseconds') AS " + GROUPS);
      s.execute("INSERT INTO t SELECT i, i % 4, i FROM range(50) r(i)");
      awaitTrue(c, "SELECT pending_rows_total = 0 FROM ivm_views WHERE name = 'groups'");
      ViewCheck.assertMatches(c, "groups", GROUPS, "refreshed by the server's scheduler");
    }
  }

  /** Waits up to 20 seconds for {@code sql}, a one-row boolean query, to return true. */
  private static void awaitTrue(Connection c, String sql) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (!ViewCheck.rows(c, sql).equals(List.of("true"))) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(
            "still not true after 20 s: "
                + sql
                + "\n"
                + ViewCheck.rows(
                    c,
                    "SELECT name, pending_rows_total, next_refresh_at, last_error FROM ivm_views"));
      }
      Thread.sleep(50);
    }
  }

  /** The live scheduler threads of the database {@code file}. */
  private static List<Thread> threadsNamed(Path file) {
    String name = "calcite-ivm scheduler " + file.toAbsolutePath().normalize();
    return Thread.getAllStackTraces().keySet().stream()
        .filter(thread -> thread.getName().equals(name) && thread.isAlive())
        .toList();
  }
}
