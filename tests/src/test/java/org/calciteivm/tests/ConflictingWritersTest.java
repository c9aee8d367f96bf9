package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.calciteivm.jdbc.IvmConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Writers on several connections change the same rows of two base tables at once while another
 * connection refreshes a filter, an aggregate and a join view, for a bounded time.
 *
 * <p>Their writes conflict: two UPDATEs of one row, an UPDATE and a DELETE of it, UPDATEs of
 * different columns of it. DuckDB fails only some of these (the same column updated twice, a row
 * deleted twice); the driver claims the rows of every captured UPDATE and DELETE, so the second
 * writer of a row fails whichever columns the two change. An auto-commit write that conflicts is
 * retried by the driver; one in a client's transaction fails with SQLState 40001, and the writer
 * rolls back and runs its transaction again, as a client should.
 *
 * <p>Each row counts the committed updates of each kind in a column of its own ({@code vb}, {@code
 * vg}, {@code vq}, {@code va}), and each committed operation is recorded in the table {@code ops}
 * by the transaction that makes it (an auto-commit write right after it), with its id, row and
 * update count. Afterwards every committed operation id is in {@code ops} exactly once and no
 * failed one is; every row equals what its committed operations made of it (so no update was lost
 * or applied twice); and every view equals its query.
 */
class ConflictingWritersTest {
  /** Runs {@code action}, which must fail with SQLState 40001, and returns the failure. */
  private static SQLException serializationFailure(ThrowingCallable action) {
    SQLException failure = catchThrowableOfType(SQLException.class, action);
    assertThat((Throwable) failure).as("a serialization failure").isNotNull();
    assertThat(failure.getSQLState()).isEqualTo("40001");
    return failure;
  }

  private static final String FILTER = "SELECT id, grp, bal FROM acct WHERE bal > 100";
  private static final String AGGREGATE =
      "SELECT grp, count(*) AS n, sum(bal) AS total, sum(vb) AS vb, sum(vg) AS vg"
          + " FROM acct GROUP BY grp";
  private static final String JOIN =
      "SELECT i.id, i.qty, i.vq, i.va, a.grp FROM item i JOIN acct a ON i.acct = a.id"
          + " WHERE i.qty > 0";

  private static final int ACCOUNTS = 16;
  private static final int ITEMS = 32;
  private static final int WRITERS = 4;

  @TempDir Path dir;

  @Test
  void overlappingWritesAreNeitherLostNorDoubled() throws Exception {
    long seed = Long.getLong("ivm.seed", System.nanoTime());
    String where = "seed " + seed + " (replay with -Divm.seed=" + seed + ")";
    String url = "jdbc:ivm:duckdb:" + dir.resolve("conflicts.duckdb");
    try (Connection setup = DriverManager.getConnection(url);
        Statement s = setup.createStatement()) {
      createTables(s);
      s.execute("CREATE MATERIALIZED VIEW filtered AS " + FILTER);
      s.execute("CREATE MATERIALIZED VIEW per_group AS " + AGGREGATE);
      s.execute("CREATE MATERIALIZED VIEW joined AS " + JOIN);

      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
      Counts counts = new Counts();
      Set<Long> committed = ConcurrentHashMap.newKeySet();
      Set<Long> failed = ConcurrentHashMap.newKeySet();
      AtomicInteger nextAccount = new AtomicInteger(ACCOUNTS);
      AtomicInteger nextItem = new AtomicInteger(ITEMS);
      ExecutorService pool = Executors.newFixedThreadPool(WRITERS + 1);
      List<Future<?>> tasks = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        Writer writer =
            new Writer(w, new Random(seed + w), nextAccount, nextItem, committed, failed, counts);
        tasks.add(
            pool.submit(
                () -> {
                  try (Connection c = DriverManager.getConnection(url)) {
                    writer.until(c, deadline);
                    counts.driverRetries.addAndGet(c.unwrap(IvmConnection.class).conflictRetries());
                  }
                  return null;
                }));
      }
      tasks.add(
          pool.submit(
              () -> {
                refresh(url, deadline, counts);
                return null;
              }));
      try {
        for (Future<?> task : tasks) {
          task.get(120, TimeUnit.SECONDS);
        }
      } catch (Exception e) {
        throw new AssertionError(where, e);
      } finally {
        pool.shutdownNow();
      }

      for (String view : List.of("filtered", "per_group", "joined")) {
        s.execute("REFRESH MATERIALIZED VIEW " + view);
      }
      ViewCheck.assertMatches(setup, "filtered", FILTER, where);
      ViewCheck.assertMatches(setup, "per_group", AGGREGATE, where);
      ViewCheck.assertMatches(setup, "joined", JOIN, where);

      assertThat(ViewCheck.rows(setup, "SELECT op FROM ops GROUP BY op HAVING count(*) > 1"))
          .as("operations recorded twice, " + where)
          .isEmpty();
      Set<Long> recorded = new HashSet<>();
      for (String op : ViewCheck.rows(setup, "SELECT op FROM ops")) {
        recorded.add(Long.parseLong(op));
      }
      assertThat(recorded).as("recorded operations, " + where).isEqualTo(committed);
      assertThat(failed).as("failed operations, " + where).doesNotContainAnyElementsOf(recorded);
      assertSame(setup, "acct", EXPECTED_ACCOUNTS, where);
      assertSame(setup, "item", EXPECTED_ITEMS, where);

      System.out.printf(
          "%d transactions committed (%d operations), %d conflicts retried by the driver,"
              + " %d surfaced as 40001 (%d in transactions), %d refreshes, seed %d%n",
          counts.transactions.get(),
          committed.size(),
          counts.driverRetries.get(),
          counts.surfaced.get(),
          counts.surfacedInTransactions.get(),
          counts.refreshes.get(),
          seed);
      assertThat(counts.transactions.get())
          .as("committed transactions, " + where)
          .isGreaterThan(20);
      assertThat(counts.driverRetries.get() + counts.surfaced.get())
          .as("conflicts, " + where)
          .isGreaterThan(0);
      assertThat(counts.refreshes.get()).as("refreshes, " + where).isGreaterThan(5);
    }
  }

  @Test
  void autoCommitWriteThatKeepsConflictingFailsWith40001AndLeavesNoTrace() throws Exception {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("retries.duckdb");
    try (Connection a = DriverManager.getConnection(url);
        Connection b = DriverManager.getConnection(url);
        Statement sa = a.createStatement();
        Statement sb = b.createStatement()) {
      createTables(sa);
      sa.execute("CREATE MATERIALIZED VIEW per_group AS " + AGGREGATE);
      a.setAutoCommit(false);
      sa.execute("UPDATE acct SET bal = bal + 5, vb = vb + 1 WHERE id = 1");

      // another column of the same row: DuckDB itself would let both commit
      SQLException conflict =
          serializationFailure(
              () -> sb.execute("UPDATE acct SET grp = 3, vg = vg + 1 WHERE id = 1"));
      assertThat(conflict.getMessage())
          .isEqualTo(
              "this write to acct conflicted with concurrent transactions that changed the same"
                  + " rows (8 attempts): its transaction was rolled back and nothing of it was"
                  + " applied; it can be retried");
      assertThat(conflict.getCause()).isNotNull();
      assertThat(b.unwrap(IvmConnection.class).conflictRetries()).isEqualTo(7);
      a.commit();
      a.setAutoCommit(true);

      assertThat(ViewCheck.rows(a, "SELECT grp, bal, vb, vg FROM acct WHERE id = 1"))
          .containsExactly("1\t105\t1\t0");
      assertThat(ViewCheck.rows(a, deltaOf(a, "acct", "grp, bal, vb, vg, _ivm_weight")))
          .containsExactlyInAnyOrder("1\t100\t0\t0\t-1", "1\t105\t1\t0\t1");
      sa.execute("REFRESH MATERIALIZED VIEW per_group");
      ViewCheck.assertMatches(a, "per_group", AGGREGATE, "after a conflict");

      // once the other transaction is over, the same write goes through
      sb.execute("UPDATE acct SET grp = 3, vg = vg + 1 WHERE id = 1");
      assertThat(ViewCheck.rows(a, "SELECT grp, bal, vb, vg FROM acct WHERE id = 1"))
          .containsExactly("3\t105\t1\t1");
    }
  }

  @Test
  void autoCommitWriteIsRetriedUntilTheOtherTransactionCommits() throws Exception {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("retried.duckdb");
    try (Connection a = DriverManager.getConnection(url);
        Connection b = DriverManager.getConnection(url);
        Statement sa = a.createStatement()) {
      createTables(sa);
      sa.execute("CREATE MATERIALIZED VIEW filtered AS " + FILTER);
      a.setAutoCommit(false);
      sa.execute("DELETE FROM acct WHERE id = 2");
      IvmConnection driverB = b.unwrap(IvmConnection.class);
      ExecutorService pool = Executors.newSingleThreadExecutor();
      try {
        Future<Integer> update =
            pool.submit(
                () -> {
                  try (Statement sb = b.createStatement()) {
                    return sb.executeUpdate("UPDATE acct SET bal = bal + 1, vb = vb + 1");
                  }
                });
        while (driverB.conflictRetries() == 0 && !update.isDone()) {
          Thread.onSpinWait();
        }
        a.commit();
        // the retry sees the row deleted: it updates all the others, once
        assertThat(update.get(30, TimeUnit.SECONDS)).isEqualTo(ACCOUNTS - 1);
      } finally {
        pool.shutdownNow();
      }
      assertThat(driverB.conflictRetries()).isPositive();
      a.setAutoCommit(true);
      assertThat(ViewCheck.rows(a, "SELECT count(*), sum(bal), sum(vb) FROM acct"))
          .containsExactly((ACCOUNTS - 1) + "\t" + 101 * (ACCOUNTS - 1) + "\t" + (ACCOUNTS - 1));
      assertThat(ViewCheck.rows(a, deltaOf(a, "acct", "sum(_ivm_weight), count(*)")))
          .containsExactly("-1\t" + (1 + 2 * (ACCOUNTS - 1)));
      sa.execute("REFRESH MATERIALIZED VIEW filtered");
      ViewCheck.assertMatches(a, "filtered", FILTER, "after a retried write");
    }
  }

  @Test
  void conflictInsideATransactionAbortsIt() throws Exception {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("aborted.duckdb");
    try (Connection a = DriverManager.getConnection(url);
        Connection b = DriverManager.getConnection(url);
        Statement sa = a.createStatement();
        Statement sb = b.createStatement()) {
      createTables(sa);
      sa.execute("CREATE MATERIALIZED VIEW joined AS " + JOIN);
      a.setAutoCommit(false);
      b.setAutoCommit(false);
      sb.execute("INSERT INTO acct VALUES (100, 0, 100, 0, 0)");
      sa.execute("DELETE FROM item WHERE id = 3");

      // an UPDATE of a row a concurrent transaction deleted: DuckDB itself would let both commit
      SQLException conflict =
          serializationFailure(
              () -> sb.execute("UPDATE item SET qty = qty + 1, vq = vq + 1 WHERE id = 3"));
      assertThat(conflict.getMessage())
          .isEqualTo(
              "this write to item conflicted with a concurrent transaction that changed the same"
                  + " rows: the transaction is aborted and nothing of it will be applied; roll it"
                  + " back and retry the whole transaction");
      assertThat(conflict.getCause()).isNotNull();
      assertThat(b.unwrap(IvmConnection.class).conflictRetries()).isZero();
      assertThatThrownBy(() -> sb.execute("SELECT count(*) FROM acct"))
          .hasMessageContaining("aborted");
      a.commit();
      SQLException commit = serializationFailure(b::commit);
      assertThat(commit.getMessage())
          .isEqualTo(
              "the transaction was rolled back, not committed: a write in it conflicted with a"
                  + " concurrent transaction that changed the same rows, so nothing of it was"
                  + " applied; it can be retried");

      // the connection is usable again, and neither B's INSERT nor its UPDATE was applied
      assertThat(ViewCheck.rows(b, "SELECT count(*) FROM acct WHERE id = 100"))
          .containsExactly("0");
      b.commit();
      a.setAutoCommit(true);
      assertThat(ViewCheck.rows(a, "SELECT count(*) FROM item WHERE id = 3")).containsExactly("0");
      assertThat(ViewCheck.rows(a, deltaOf(a, "item", "id, qty, vq, _ivm_weight")))
          .containsExactly("3\t1\t0\t-1");
      assertThat(ViewCheck.rows(a, deltaOf(a, "acct", "count(*)"))).containsExactly("0");
      sa.execute("REFRESH MATERIALIZED VIEW joined");
      ViewCheck.assertMatches(a, "joined", JOIN, "after an aborted transaction");
    }
  }

  @Test
  void sqlCommitOfAnAbortedTransactionFailsWith40001() throws Exception {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("sql-commit.duckdb");
    try (Connection a = DriverManager.getConnection(url);
        Connection b = DriverManager.getConnection(url);
        Statement sa = a.createStatement();
        Statement sb = b.createStatement()) {
      createTables(sa);
      sa.execute("CREATE MATERIALIZED VIEW joined AS " + JOIN);
      sa.execute("BEGIN");
      sb.execute("BEGIN TRANSACTION");
      sb.execute("INSERT INTO acct VALUES (100, 0, 100, 0, 0)");
      sa.execute("DELETE FROM item WHERE id = 3");
      serializationFailure(
          () -> sb.execute("UPDATE item SET qty = qty + 1, vq = vq + 1 WHERE id = 3"));
      sa.execute("COMMIT");
      // DuckDB alone would report success for this COMMIT and roll back silently
      SQLException commit = serializationFailure(() -> sb.execute("COMMIT"));
      assertThat(commit.getMessage()).startsWith("the transaction was rolled back, not committed");
      assertThat(ViewCheck.rows(b, "SELECT count(*) FROM acct WHERE id = 100"))
          .containsExactly("0");
      assertThat(ViewCheck.rows(a, deltaOf(a, "acct", "count(*)"))).containsExactly("0");
      sb.execute("INSERT INTO acct VALUES (101, 0, 100, 0, 0)");
      sa.execute("REFRESH MATERIALIZED VIEW joined");
      ViewCheck.assertMatches(a, "joined", JOIN, "after an aborted SQL transaction");
    }
  }

  /**
   * A COMMIT that DuckDB refuses (a key another transaction committed first) ends the transaction;
   * the connection's next transactions must still be transactions: DuckDB's JDBC driver alone would
   * run them without BEGIN, each statement committing on its own, and its rollback would fail and
   * undo nothing.
   */
  @Test
  void transactionsAfterAFailedCommitAreStillAtomic() throws Exception {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("failed-commit.duckdb");
    String view = "SELECT grp, count(*) AS n FROM keyed GROUP BY grp";
    try (Connection a = DriverManager.getConnection(url);
        Connection b = DriverManager.getConnection(url);
        Statement sa = a.createStatement();
        Statement sb = b.createStatement()) {
      sa.execute("CREATE TABLE keyed (id INTEGER PRIMARY KEY, grp INTEGER)");
      sa.execute("CREATE MATERIALIZED VIEW per_grp AS " + view);
      a.setAutoCommit(false);
      b.setAutoCommit(false);
      sa.execute("INSERT INTO keyed VALUES (1, 1)");
      sb.execute("INSERT INTO keyed VALUES (1, 2)");
      a.commit();
      SQLException failed = catchThrowableOfType(SQLException.class, b::commit);
      assertThat((Throwable) failed).as("the second commit of key 1").isNotNull();
      assertThat(failed.getMessage()).contains("duplicate key");

      sb.execute("INSERT INTO keyed VALUES (2, 2)");
      b.rollback();
      sb.execute("INSERT INTO keyed VALUES (3, 3)");
      sb.execute("UPDATE keyed SET grp = 4 WHERE id = 1");
      b.rollback();
      b.setAutoCommit(true);
      // an auto-commit write and a refresh run in transactions of the driver's own
      sb.execute("INSERT INTO keyed VALUES (5, 5)");
      sb.execute("REFRESH MATERIALIZED VIEW per_grp");
      a.setAutoCommit(true);
      assertThat(ViewCheck.rows(a, "SELECT id, grp FROM keyed ORDER BY id"))
          .containsExactly("1\t1", "5\t5");
      ViewCheck.assertMatches(a, "per_grp", view, "after a failed commit");
    }
  }

  @Test
  void conflictingBatchFailsWith40001() throws Exception {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("batch.duckdb");
    try (Connection a = DriverManager.getConnection(url);
        Connection b = DriverManager.getConnection(url);
        Statement sa = a.createStatement()) {
      createTables(sa);
      sa.execute("CREATE MATERIALIZED VIEW filtered AS " + FILTER);
      PreparedStatement update = b.prepareStatement("UPDATE acct SET bal = ? WHERE id = ?");
      a.setAutoCommit(false);
      sa.execute("UPDATE acct SET bal = 500 WHERE id = 4");
      for (int id : new int[] {3, 4}) {
        update.setLong(1, 700);
        update.setInt(2, id);
        update.addBatch();
      }
      SQLException conflict = serializationFailure(update::executeBatch);
      assertThat(conflict.getMessage())
          .contains("this batch of writes to acct conflicted")
          .contains("nothing of it was applied; add its rows again and retry it");
      a.commit();
      a.setAutoCommit(true);
      assertThat(ViewCheck.rows(a, "SELECT id, bal FROM acct WHERE id IN (3, 4) ORDER BY id"))
          .containsExactly("3\t100", "4\t500");
      assertThat(ViewCheck.rows(a, deltaOf(a, "acct", "count(*)"))).containsExactly("2");
    }
  }

  private static void createTables(Statement s) throws SQLException {
    s.execute("CREATE TABLE acct (id INTEGER, grp INTEGER, bal BIGINT, vb INTEGER, vg INTEGER)");
    s.execute("INSERT INTO acct SELECT i, i % 4, 100, 0, 0 FROM range(" + ACCOUNTS + ") r(i)");
    s.execute("CREATE TABLE item (id INTEGER, acct INTEGER, qty INTEGER, vq INTEGER, va INTEGER)");
    s.execute(
        "INSERT INTO item SELECT i, i % " + ACCOUNTS + ", 1, 0, 0 FROM range(" + ITEMS + ") r(i)");
    // the record of committed operations: not read by any view
    s.execute(
        "CREATE TABLE ops (op BIGINT, kind VARCHAR, row_id INTEGER, amount BIGINT, arg INTEGER,"
            + " changed BIGINT)");
  }

  /** A query of {@code columns} over the captured changes of {@code table} not yet consumed. */
  private static String deltaOf(Connection c, String table, String columns) throws SQLException {
    List<String> names =
        ViewCheck.rows(
            c,
            "SELECT table_name FROM duckdb_tables() WHERE schema_name = '_ivm'"
                + " AND table_name LIKE 'delta\\_%\\_"
                + table
                + "' ESCAPE '\\'");
    assertThat(names).hasSize(1);
    return "SELECT " + columns + " FROM _ivm.\"" + names.get(0) + "\"";
  }

  /** What the committed operations in {@code ops} make of the accounts. */
  private static final String EXPECTED_ACCOUNTS =
      "WITH born AS (SELECT i AS id, i % 4 AS grp, 100 AS bal FROM range("
          + ACCOUNTS
          + ") r(i) UNION ALL SELECT row_id, arg, amount FROM ops WHERE kind = 'insacct'),"
          + " gone AS (SELECT row_id FROM ops WHERE kind = 'delacct' AND changed = 1),"
          + " b AS (SELECT row_id, sum(changed) AS n, sum(amount * changed) AS s FROM ops"
          + " WHERE kind = 'bal' GROUP BY row_id),"
          + " g AS (SELECT row_id, sum(changed) AS n FROM ops WHERE kind = 'grp' GROUP BY row_id)"
          + " SELECT born.id::BIGINT, ((born.grp + coalesce(g.n, 0)) % 4)::BIGINT,"
          + " (born.bal + coalesce(b.s, 0))::BIGINT, coalesce(b.n, 0)::BIGINT,"
          + " coalesce(g.n, 0)::BIGINT"
          + " FROM born LEFT JOIN b ON b.row_id = born.id LEFT JOIN g ON g.row_id = born.id"
          + " WHERE born.id NOT IN (SELECT row_id FROM gone)";

  /** What the committed operations in {@code ops} make of the items (moves: only their count). */
  private static final String EXPECTED_ITEMS =
      "WITH born AS (SELECT i AS id, 1 AS qty FROM range("
          + ITEMS
          + ") r(i) UNION ALL SELECT row_id, amount FROM ops WHERE kind = 'insitem'),"
          + " gone AS (SELECT row_id FROM ops WHERE kind = 'delitem' AND changed = 1),"
          + " q AS (SELECT row_id, sum(changed) AS n, sum(amount * changed) AS s FROM ops"
          + " WHERE kind = 'qty' GROUP BY row_id),"
          + " m AS (SELECT row_id, sum(changed) AS n FROM ops WHERE kind = 'move' GROUP BY row_id)"
          + " SELECT born.id::BIGINT, (born.qty + coalesce(q.s, 0))::BIGINT,"
          + " coalesce(q.n, 0)::BIGINT, coalesce(m.n, 0)::BIGINT"
          + " FROM born LEFT JOIN q ON q.row_id = born.id LEFT JOIN m ON m.row_id = born.id"
          + " WHERE born.id NOT IN (SELECT row_id FROM gone)";

  /** Asserts that {@code table} holds the rows {@code expected} computes from the operations. */
  private static void assertSame(Connection c, String table, String expected, String where)
      throws SQLException {
    String actual =
        table.equals("acct")
            ? "SELECT id::BIGINT, grp::BIGINT, bal::BIGINT, vb::BIGINT, vg::BIGINT FROM acct"
            : "SELECT id::BIGINT, qty::BIGINT, vq::BIGINT, va::BIGINT FROM item";
    assertThat(ViewCheck.rows(c, "(" + expected + ") EXCEPT ALL (" + actual + ")"))
        .as("rows of %s its committed operations make but it lacks, %s", table, where)
        .isEmpty();
    assertThat(ViewCheck.rows(c, "(" + actual + ") EXCEPT ALL (" + expected + ")"))
        .as("rows of %s its committed operations do not make, %s", table, where)
        .isEmpty();
    assertThat(ViewCheck.rows(c, "SELECT op FROM ops WHERE changed NOT IN (0, 1)"))
        .as("operations of one row that changed several, %s", where)
        .isEmpty();
  }

  private static void refresh(String url, long deadline, Counts counts) throws Exception {
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      while (System.nanoTime() < deadline) {
        for (String view : List.of("filtered", "per_group", "joined")) {
          s.execute("REFRESH MATERIALIZED VIEW " + view);
          counts.refreshes.incrementAndGet();
        }
        Thread.sleep(2);
      }
    }
  }

  /** What the writers and the refresher did. */
  private static final class Counts {
    final AtomicLong transactions = new AtomicLong();
    final AtomicLong driverRetries = new AtomicLong();
    final AtomicLong surfaced = new AtomicLong();
    final AtomicLong surfacedInTransactions = new AtomicLong();
    final AtomicLong refreshes = new AtomicLong();
  }

  /** One operation: a write of one row and the record of it in {@code ops}. */
  private record Op(long id, String kind, int row, long amount, int arg, String sql) {}

  /**
   * A writer: transactions of one to four operations on rows every writer picks from, or single
   * operations in auto-commit mode; a transaction that fails with 40001 is rolled back and run
   * again with new operations.
   */
  private static final class Writer {
    private final int number;
    private final Random random;
    private final AtomicInteger nextAccount;
    private final AtomicInteger nextItem;
    private final Set<Long> committed;
    private final Set<Long> failed;
    private final Counts counts;
    private long nextOp;

    Writer(
        int number,
        Random random,
        AtomicInteger nextAccount,
        AtomicInteger nextItem,
        Set<Long> committed,
        Set<Long> failed,
        Counts counts) {
      this.number = number;
      this.random = random;
      this.nextAccount = nextAccount;
      this.nextItem = nextItem;
      this.committed = committed;
      this.failed = failed;
      this.counts = counts;
    }

    void until(Connection c, long deadline) throws SQLException {
      try (Statement s = c.createStatement()) {
        while (System.nanoTime() < deadline) {
          if (random.nextBoolean()) {
            transaction(c, s, deadline);
          } else {
            autoCommit(s);
          }
        }
      }
    }

    /** Runs a transaction until it commits (or the time is up), rolling back on 40001. */
    private void transaction(Connection c, Statement s, long deadline) throws SQLException {
      int size = 1 + random.nextInt(4);
      c.setAutoCommit(false);
      try {
        while (System.nanoTime() < deadline) {
          List<Op> ops = new ArrayList<>();
          for (int i = 0; i < size; i++) {
            ops.add(next());
          }
          try {
            for (Op op : ops) {
              record(s, op, s.executeLargeUpdate(op.sql()));
            }
            c.commit();
            ops.forEach(op -> committed.add(op.id()));
            counts.transactions.incrementAndGet();
            return;
          } catch (SQLException e) {
            ops.forEach(op -> failed.add(op.id()));
            if (!"40001".equals(e.getSQLState())) {
              throw e;
            }
            counts.surfaced.incrementAndGet();
            counts.surfacedInTransactions.incrementAndGet();
            c.rollback();
          }
        }
      } finally {
        c.setAutoCommit(true);
      }
    }

    /** Runs one operation in auto-commit mode, where the driver retries its conflicts. */
    private void autoCommit(Statement s) throws SQLException {
      Op op = next();
      long rows;
      try {
        rows = s.executeLargeUpdate(op.sql());
      } catch (SQLException e) {
        failed.add(op.id());
        if (!"40001".equals(e.getSQLState())) {
          throw e;
        }
        counts.surfaced.incrementAndGet();
        return;
      }
      record(s, op, rows);
      committed.add(op.id());
      counts.transactions.incrementAndGet();
    }

    private static void record(Statement s, Op op, long rows) throws SQLException {
      s.execute(
          String.format(
              "INSERT INTO ops VALUES (%d, '%s', %d, %d, %d, %d)",
              op.id(), op.kind(), op.row(), op.amount(), op.arg(), rows));
    }

    /** A random operation on a row most writers may pick at the same time. */
    private Op next() {
      long id = number * 1_000_000_000L + nextOp++;
      int account = random.nextInt(nextAccount.get());
      int item = random.nextInt(nextItem.get());
      int amount = 1 + random.nextInt(20);
      return switch (random.nextInt(16)) {
        case 0, 1, 2, 3 ->
            new Op(
                id,
                "bal",
                account,
                amount,
                0,
                "UPDATE acct SET bal = bal + " + amount + ", vb = vb + 1 WHERE id = " + account);
        case 4, 5, 6 ->
            new Op(
                id,
                "grp",
                account,
                0,
                0,
                "UPDATE acct SET grp = (grp + 1) % 4, vg = vg + 1 WHERE id = " + account);
        case 7, 8, 9 ->
            new Op(
                id,
                "qty",
                item,
                amount - 5,
                0,
                "UPDATE item SET qty = qty + " + (amount - 5) + ", vq = vq + 1 WHERE id = " + item);
        case 10, 11 ->
            new Op(
                id,
                "move",
                item,
                0,
                account,
                "UPDATE item SET acct = " + account + ", va = va + 1 WHERE id = " + item);
        case 12 -> new Op(id, "delacct", account, 0, 0, "DELETE FROM acct WHERE id = " + account);
        case 13 -> new Op(id, "delitem", item, 0, 0, "DELETE FROM item WHERE id = " + item);
        case 14 -> {
          int fresh = nextAccount.getAndIncrement();
          yield new Op(
              id,
              "insacct",
              fresh,
              50 + amount,
              fresh % 4,
              "INSERT INTO acct VALUES ("
                  + fresh
                  + ", "
                  + fresh % 4
                  + ", "
                  + (50 + amount)
                  + ", 0, 0)");
        }
        default -> {
          int fresh = nextItem.getAndIncrement();
          yield new Op(
              id,
              "insitem",
              fresh,
              amount,
              account,
              "INSERT INTO item VALUES (" + fresh + ", " + account + ", " + amount + ", 0, 0)");
        }
      };
    }
  }
}
