import java.io.File;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.duckdb.DuckDBConnection;

/**
 * Crashes the JVM (SIGSEGV in DuckDB's native library) with plain DuckDB JDBC 2.0.0.1: five
 * connections to one database file run, each in a loop, the statements calcite-ivm runs for a
 * captured INSERT, UPDATE or DELETE (data-modifying common table expressions that change a table
 * and append the change to a second table, temporary stage tables), in transactions of one to
 * three statements, a quarter of the explicit ones rolled back. No calcite-ivm code is involved.
 *
 * <p>Run: {@code java -cp duckdb_jdbc-2.0.0.1.jar ConcurrentCaptureCrash.java SECONDS}. Each round
 * starts a new database and writes for 3 s; it prints the rounds it survived, and "no crash" if it
 * lasted SECONDS. See README.md beside it for what was measured.
 */
public class ConcurrentCaptureCrash {
  private static final String STAGE_INSERT = "temp.stage_insert";
  private static final String STAGE_ROWIDS = "temp.stage_rowids";

  public static void main(String[] args) throws Exception {
    long end = System.nanoTime() + Long.parseLong(args[0]) * 1_000_000_000L;
    String path = "concurrent-capture-crash-" + ProcessHandle.current().pid() + ".duckdb";
    for (int round = 1; System.nanoTime() < end; round++) {
      new File(path).delete();
      new File(path + ".wal").delete();
      try (Connection db = DriverManager.getConnection("jdbc:duckdb:" + path);
          Statement s = db.createStatement()) {
        s.execute("CREATE TABLE t (id BIGINT, grp INTEGER, val INTEGER)");
        s.execute("INSERT INTO t SELECT i, i % 5, i % 50 FROM range(1000) r(i)");
        s.execute("CREATE TABLE delta (id BIGINT, grp INTEGER, val INTEGER, w BIGINT NOT NULL)");
        long deadline = System.nanoTime() + 3_000_000_000L;
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < 5; w++) {
          Connection c = ((DuckDBConnection) db).duplicate();
          long firstKey = 1_000_000L * (w + 1);
          writers.add(
              new Thread(
                  () -> {
                    try (c) {
                      write(c, new Random(), firstKey, deadline);
                    } catch (SQLException e) {
                      e.printStackTrace();
                    }
                  }));
        }
        writers.forEach(Thread::start);
        for (Thread writer : writers) {
          writer.join();
        }
      }
      System.out.println("round " + round);
    }
    System.out.println("no crash");
  }

  private static void write(Connection c, Random random, long firstKey, long deadline)
      throws SQLException {
    PreparedStatement stage = null;
    long next = firstKey;
    while (System.nanoTime() < deadline) {
      boolean explicit = random.nextInt(3) == 0;
      try {
        c.setAutoCommit(false);
        for (int i = 0; i < 1 + random.nextInt(3); i++) {
          long row = firstKey + random.nextInt(Math.max(1, (int) (next - firstKey)));
          switch (random.nextInt(3)) {
            case 0 -> {
              run(c, "CREATE TEMP TABLE IF NOT EXISTS " + STAGE_INSERT
                  + " (id BIGINT, grp INTEGER, val INTEGER)");
              if (stage == null || stage.isClosed()) {
                stage = c.prepareStatement("INSERT INTO " + STAGE_INSERT + " VALUES (?, ?, ?)");
              }
              for (int r = 0; r < 1 + random.nextInt(4); r++) {
                stage.setLong(1, next++);
                stage.setInt(2, random.nextInt(5));
                stage.setInt(3, random.nextInt(50));
                stage.execute();
              }
              run(c, "WITH added AS (INSERT INTO t SELECT * FROM " + STAGE_INSERT
                  + " RETURNING id, grp, val) INSERT INTO delta SELECT id, grp, val, 1 FROM added");
              run(c, "DELETE FROM " + STAGE_INSERT);
            }
            case 1 -> {
              run(c, "CREATE TEMP TABLE IF NOT EXISTS " + STAGE_ROWIDS + " (rid BIGINT)");
              run(c, "WITH target AS MATERIALIZED (SELECT t.rowid AS rid, id, grp, val,"
                  + " CAST(val + 7 AS INTEGER) AS new_val, CAST((grp + 1) % 5 AS INTEGER) AS new_grp"
                  + " FROM t WHERE id BETWEEN " + row + " AND " + (next + 2) + "),"
                  + " logged AS (INSERT INTO delta SELECT id, grp, val, -1 FROM target"
                  + " UNION ALL SELECT id, new_grp, new_val, 1 FROM target),"
                  + " updated AS (UPDATE t AS u SET val = s.new_val, grp = s.new_grp"
                  + " FROM target AS s WHERE u.rowid = s.rid)"
                  + " INSERT INTO " + STAGE_ROWIDS + " SELECT rid FROM target");
              readStagedRowids(c);
            }
            default -> {
              run(c, "CREATE TEMP TABLE IF NOT EXISTS " + STAGE_ROWIDS + " (rid BIGINT)");
              run(c, "WITH removed AS (DELETE FROM t WHERE id = " + row
                  + " RETURNING t.rowid AS rid, id, grp, val),"
                  + " logged AS (INSERT INTO delta SELECT id, grp, val, -1 FROM removed)"
                  + " INSERT INTO " + STAGE_ROWIDS + " SELECT rid FROM removed");
              readStagedRowids(c);
            }
          }
          if (!explicit) {
            c.commit();
          }
        }
        if (explicit && random.nextInt(4) == 0) {
          c.rollback();
        } else if (explicit) {
          c.commit();
        }
      } catch (SQLException e) {
        // a conflict; end the transaction on both sides (a failed COMMIT leaves the driver's
        // "transaction running" flag set)
        try {
          c.rollback();
        } catch (SQLException ended) {
          try {
            run(c, "BEGIN TRANSACTION");
            c.rollback();
          } catch (SQLException ignored) {
            // nothing to end
          }
        }
      }
    }
  }

  private static void readStagedRowids(Connection c) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT rid FROM " + STAGE_ROWIDS + " LIMIT 4097")) {
      while (rs.next()) {
        rs.getLong(1);
      }
    }
    run(c, "DELETE FROM " + STAGE_ROWIDS);
  }

  private static void run(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(sql);
    }
  }
}
