package org.calciteivm.tests;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Differential test: random tables, filter/projection views and write batches; after every refresh
 * the view must equal a recompute of its query ({@link ViewCheck}).
 *
 * <p>Each round uses a fresh in-memory database with one table and up to four views, created,
 * dropped and refreshed at random times, each refresh with a random {@code
 * ivm_skip_projection_delete}. Batches are sometimes insert-only and sometimes run in a transaction
 * that commits or rolls back. System properties: {@code ivm.seed} (replays a run), {@code
 * ivm.rounds}, {@code ivm.steps} (write batches per round), {@code ivm.round} (run only that round
 * of the seed). A failing round's statements are written to {@code target/randomized/} as a script.
 */
class RandomizedProjectionTest {
  private static final int MAX_ROWS = 150;

  @Test
  void viewsMatchTheirQueriesAfterEveryRefresh() throws Exception {
    long seed = Long.getLong("ivm.seed", new Random().nextLong());
    int rounds = Integer.getInteger("ivm.rounds", 10);
    int steps = Integer.getInteger("ivm.steps", 50);
    int only = Integer.getInteger("ivm.round", -1);
    System.out.println("RandomizedProjectionTest: -Divm.seed=" + seed);
    int refreshes = 0;
    for (int round = 0; round < rounds; round++) {
      if (only < 0 || only == round) {
        refreshes += new Round(seed, round, steps).run();
      }
    }
    System.out.println("RandomizedProjectionTest: " + refreshes + " refreshes checked");
  }

  /** One database, one table, its views and a sequence of write batches and refreshes. */
  private static final class Round extends RandomRound<String> {
    private final long seed;
    private final int round;
    private final int steps;
    private final RandomSql sql;
    private int viewCount;
    private int refreshes;

    Round(long seed, int round, int steps) {
      // Rounds are independent so that one can be replayed alone with ivm.round.
      super(new Random(seed * 31 + round));
      this.seed = seed;
      this.round = round;
      this.steps = steps;
      this.sql = new RandomSql(random, "t");
    }

    int run() throws IOException {
      try (Connection c = DriverManager.getConnection("jdbc:ivm:duckdb:")) {
        connection = c;
        execute(sql.createTable());
        execute(sql.insert(5 + random.nextInt(15)));
        runSteps(steps, 8);
        return refreshes;
      } catch (SQLException | AssertionError e) {
        throw failure("", seed, round, e);
      }
    }

    @Override
    void createView() throws SQLException {
      String name = "v" + viewCount++;
      String query = sql.viewQuery();
      try {
        execute("CREATE MATERIALIZED VIEW " + name + " AS " + query);
      } catch (SQLException e) {
        throw new SQLException(e.getMessage() + "\n  " + queryItself(query), e);
      }
      views.put(name, query);
      check(name);
    }

    @Override
    void writeBatch() throws SQLException {
      int rows = Integer.parseInt(ViewCheck.rows(connection, "SELECT count(*) FROM t").get(0));
      boolean insertOnly = rows < MAX_ROWS && random.nextInt(10) < 3;
      int transaction = random.nextInt(12);
      if (transaction < 2) {
        execute("BEGIN TRANSACTION");
      }
      for (int n = 1 + random.nextInt(4); n > 0; n--) {
        int kind =
            insertOnly
                ? random.nextInt(3)
                : rows >= MAX_ROWS ? 4 + random.nextInt(3) : random.nextInt(10);
        execute(
            switch (kind) {
              case 0, 1, 2 -> sql.insert(1 + random.nextInt(5));
              case 3 -> rows < MAX_ROWS / 2 ? sql.insertSelect() : sql.insert(1);
              case 4, 5, 6 -> sql.delete();
              default -> sql.update();
            });
      }
      if (transaction < 2) {
        execute(transaction == 0 ? "COMMIT" : "ROLLBACK");
      }
    }

    @Override
    void refresh(String name) throws SQLException {
      if (random.nextInt(3) == 0) {
        execute("SET ivm_skip_projection_delete = " + random.nextBoolean());
      }
      execute("REFRESH MATERIALIZED VIEW " + name);
      refreshes++;
      check(name);
    }

    private void check(String name) throws SQLException {
      log.add("-- check " + name);
      ViewCheck.assertMatches(connection, name, views.get(name), "step " + step);
    }
  }
}
