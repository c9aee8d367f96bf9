package org.calciteivm.tests;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Differential test of {@code ASOF JOIN}: random trades (duplicates, NULL symbols and times) and
 * quotes keyed by (symbol, time), random writes to both that insert, delete and move rows across
 * each other's times, in and out of transactions, and views that pair each trade with its nearest
 * quote in all four directions, kept without one (ASOF LEFT JOIN), chained with a second ASOF join,
 * filtered and aggregated; after every refresh each view must equal DuckDB's own ASOF join run from
 * scratch ({@link ViewCheck}).
 *
 * <p>System properties: {@code ivm.seed} (replays a run), {@code ivm.rounds}, {@code ivm.steps},
 * {@code ivm.round}. A failing round's statements are written to {@code target/randomized/}.
 */
class RandomizedAsofTest {
  private static final int MAX_ROWS = 50;

  /** The views a round chooses from. */
  private static final List<String> QUERIES =
      List.of(
          "SELECT t.id, t.ts, q.ts AS quoted, q.price FROM trades t"
              + " ASOF JOIN quotes q ON t.sym = q.sym AND t.ts >= q.ts",
          "SELECT * FROM trades ASOF JOIN quotes ON quotes.sym = trades.sym AND quotes.ts < trades.ts",
          "SELECT t.id, q.price FROM trades t ASOF JOIN quotes q ON t.sym = q.sym AND t.ts <= q.ts"
              + " WHERE q.price % 2 = 0",
          "SELECT q.sym, COUNT(*) AS n, SUM(t.qty) AS qty, MAX(q.price) AS top FROM trades t"
              + " ASOF JOIN quotes q ON q.ts > t.ts AND q.sym = t.sym GROUP BY q.sym",
          "SELECT t.id, t.sym, q.ts AS quoted FROM trades t"
              + " ASOF LEFT JOIN quotes q ON t.sym = q.sym AND t.ts >= q.ts",
          "SELECT t.id, q.price * r.rate AS converted FROM trades t"
              + " ASOF JOIN quotes q ON t.sym = q.sym AND t.ts >= q.ts"
              + " ASOF JOIN rates r ON t.ts >= r.ts");

  @Test
  void viewsMatchTheirQueriesAfterEveryRefresh() throws Exception {
    long seed = Long.getLong("ivm.seed", new Random().nextLong());
    int rounds = Integer.getInteger("ivm.rounds", 5);
    int steps = Integer.getInteger("ivm.steps", 30);
    int only = Integer.getInteger("ivm.round", -1);
    System.out.println("RandomizedAsofTest: -Divm.seed=" + seed);
    int refreshes = 0;
    for (int round = 0; round < rounds; round++) {
      if (only < 0 || only == round) {
        refreshes += new Round(seed, round, steps).run();
      }
    }
    System.out.println("RandomizedAsofTest: " + refreshes + " refreshes checked");
  }

  /** One database, its three tables, ASOF views, write batches and refreshes. */
  private static final class Round extends RandomRound<String> {
    private final long seed;
    private final int round;
    private final int steps;
    private int viewCount;
    private int refreshes;
    private int nextId;

    Round(long seed, int round, int steps) {
      super(new Random(seed * 31 + round));
      this.seed = seed;
      this.round = round;
      this.steps = steps;
    }

    int run() throws IOException {
      try (Connection c = DriverManager.getConnection("jdbc:ivm:duckdb:")) {
        connection = c;
        execute("CREATE TABLE trades (id INTEGER, sym VARCHAR, ts INTEGER, qty INTEGER)");
        execute(
            "CREATE TABLE quotes (sym VARCHAR, ts INTEGER, price INTEGER, PRIMARY KEY (sym, ts))");
        execute("CREATE TABLE rates (ts INTEGER PRIMARY KEY, rate INTEGER)");
        execute(insertTrades(4 + random.nextInt(8)));
        for (int i = 0; i < 6; i++) {
          execute(insertQuote());
        }
        execute("INSERT INTO rates VALUES (0, 1), (5, 2), (12, 3)");
        runSteps(steps, 6);
        return refreshes;
      } catch (SQLException | AssertionError e) {
        throw failure("asof", seed, round, e);
      }
    }

    @Override
    void createView() throws SQLException {
      String name = "v" + viewCount++;
      String query = QUERIES.get(random.nextInt(QUERIES.size()));
      execute("CREATE MATERIALIZED VIEW " + name + " AS " + query);
      views.put(name, query);
      check(name);
    }

    @Override
    void writeBatch() throws SQLException {
      int rows = Integer.parseInt(ViewCheck.rows(connection, "SELECT count(*) FROM trades").get(0));
      int transaction = random.nextInt(10);
      if (transaction < 2) {
        execute("BEGIN TRANSACTION");
      }
      for (int n = 1 + random.nextInt(3); n > 0; n--) {
        int kind = rows >= MAX_ROWS ? 2 + random.nextInt(5) : random.nextInt(7);
        execute(
            switch (kind) {
              case 0 -> insertTrades(1 + random.nextInt(3));
              case 1 -> insertQuote();
              case 2 -> "DELETE FROM trades WHERE id % 5 = " + random.nextInt(5);
              case 3 -> "DELETE FROM quotes WHERE price % 4 = " + random.nextInt(4);
              case 4 -> "UPDATE trades SET ts = " + time() + " WHERE id % 4 = " + random.nextInt(4);
              case 5 -> "UPDATE quotes SET price = price + 1 WHERE ts = " + random.nextInt(12);
              default ->
                  random.nextBoolean()
                      ? "UPDATE rates SET rate = rate + 1 WHERE ts = 5"
                      : "INSERT INTO rates SELECT "
                          + random.nextInt(15)
                          + " AS ts, 7 WHERE ts NOT IN (SELECT ts FROM rates)";
            });
      }
      if (transaction < 2) {
        execute(transaction == 0 ? "COMMIT" : "ROLLBACK");
      }
    }

    @Override
    void refresh(String name) throws SQLException {
      execute("REFRESH MATERIALIZED VIEW " + name);
      refreshes++;
      check(name);
    }

    private void check(String name) throws SQLException {
      log.add("-- check " + name);
      ViewCheck.assertMatches(connection, name, views.get(name), "step " + step);
    }

    private String insertTrades(int count) {
      List<String> rows = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        // a copy of the row before, now and then: duplicate rows
        int id = random.nextInt(6) == 0 && nextId > 0 ? nextId : ++nextId;
        rows.add("(" + id + ", " + symbol() + ", " + time() + ", " + random.nextInt(9) + ")");
      }
      return "INSERT INTO trades VALUES " + String.join(", ", rows);
    }

    /** A quote at a free (symbol, time), or nothing if that one is taken. */
    private String insertQuote() {
      String symbol = random.nextBoolean() ? "'a'" : random.nextBoolean() ? "'b'" : "'c'";
      int time = random.nextInt(12);
      return "INSERT INTO quotes SELECT "
          + symbol
          + ", "
          + time
          + ", "
          + random.nextInt(20)
          + " WHERE NOT EXISTS (SELECT 1 FROM quotes WHERE sym = "
          + symbol
          + " AND ts = "
          + time
          + ")";
    }

    /** One of three symbols, or NULL. */
    private String symbol() {
      return random.nextInt(8) == 0 ? "NULL" : "'" + (char) ('a' + random.nextInt(3)) + "'";
    }

    /** A small time, or NULL. */
    private String time() {
      return random.nextInt(10) == 0 ? "NULL" : String.valueOf(random.nextInt(14));
    }
  }
}
