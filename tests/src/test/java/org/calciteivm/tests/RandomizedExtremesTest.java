package org.calciteivm.tests;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Differential test of MIN and MAX views whose groups hold many rows at and near their extremes:
 * random writes that delete the smallest and largest values again and again, so that extremes lose
 * some and all of their rows and groups are read again from the base tables, inserts at, below and
 * beyond the extremes, and updates that move values. After every refresh each view must equal its
 * query, and the single-table view's stored count of the rows at each of its extremes must be a
 * lower bound of the true count, at least one while the group has a value (the invariant a refresh
 * relies on to keep an extreme without recomputing its group).
 *
 * <p>Views: MIN and MAX of three types with a FILTER, NULL keys and all-NULL values; the same
 * without GROUP BY; MIN and MAX over a join whose both sides change; and an aggregate view over the
 * first one, which makes the first keep its view delta for its change log.
 *
 * <p>System properties: {@code ivm.seed} (replays a run), {@code ivm.rounds}, {@code ivm.steps},
 * {@code ivm.round}. A failing round's statements are written to {@code target/randomized/}.
 */
class RandomizedExtremesTest {
  private static final String GROUPED =
      "SELECT g, MIN(x) AS lo, MAX(x) AS hi, MIN(s) FILTER (WHERE f) AS first_name,"
          + " MAX(d) AS last_day, COUNT(*) AS n, SUM(x) AS total FROM t GROUP BY g";
  private static final String UNGROUPED = "SELECT MIN(x) AS lo, MAX(s) AS hi, COUNT(x) AS n FROM t";
  private static final String JOINED =
      "SELECT u.w, MIN(t.x) AS lo, MAX(t.d) AS last_day, COUNT(*) AS n"
          + " FROM t JOIN u ON t.g = u.g GROUP BY u.w";
  private static final String ABOVE =
      "SELECT COUNT(*) AS groups, MIN(lo) AS lo, MAX(hi) AS hi FROM grouped";

  @Test
  void extremesMatchTheirQueriesWhileTheyAreDeletedAgainAndAgain() throws Exception {
    long seed = Long.getLong("ivm.seed", new Random().nextLong());
    int rounds = Integer.getInteger("ivm.rounds", 3);
    int steps = Integer.getInteger("ivm.steps", 30);
    int only = Integer.getInteger("ivm.round", -1);
    System.out.println("RandomizedExtremesTest: -Divm.seed=" + seed);
    for (int round = 0; round < rounds; round++) {
      if (only < 0 || only == round) {
        new Round(seed, round, steps).run();
      }
    }
  }

  /** One in-memory database with the four views and a sequence of write batches and refreshes. */
  private static final class Round extends RandomRound<String> {
    private final long seed;
    private final int round;
    private final int steps;
    private int nextId;

    Round(long seed, int round, int steps) {
      super(new Random(seed * 31 + round));
      this.seed = seed;
      this.round = round;
      this.steps = steps;
    }

    void run() throws Exception {
      try (Connection c = DriverManager.getConnection("jdbc:ivm:duckdb:")) {
        connection = c;
        execute("CREATE TABLE t (id INTEGER, g INTEGER, x INTEGER, s VARCHAR, d DATE, f BOOLEAN)");
        execute("CREATE TABLE u (g INTEGER, w VARCHAR)");
        execute("INSERT INTO u VALUES (0, 'a'), (1, 'a'), (2, 'b'), (NULL, 'c'), (3, NULL)");
        insertRows(200);
        for (String view : List.of("grouped", "ungrouped", "joined", "above")) {
          execute("CREATE MATERIALIZED VIEW " + view + " AS " + query(view));
          views.put(view, query(view));
          check(view);
        }
        for (step = 1; step <= steps; step++) {
          writeBatch();
          if (random.nextInt(6) == 0) {
            execute(
                "SET ivm_refresh_mode = "
                    + List.of("auto", "incremental", "full").get(random.nextInt(3)));
          }
          for (String view : List.copyOf(views.keySet())) {
            if (random.nextInt(10) < 5) {
              refresh(view);
            }
          }
        }
        for (String view : List.copyOf(views.keySet())) {
          refresh(view);
        }
      } catch (SQLException | AssertionError e) {
        throw failure("extremes", seed, round, e);
      }
    }

    private static String query(String view) {
      return switch (view) {
        case "grouped" -> GROUPED;
        case "ungrouped" -> UNGROUPED;
        case "joined" -> JOINED;
        default -> ABOVE;
      };
    }

    @Override
    void createView() {
      throw new UnsupportedOperationException("the views are fixed");
    }

    /**
     * One of: rows inserted (values anywhere, or only small or large ones); the smallest or largest
     * values of the table deleted; values moved by an update; a whole group deleted; rows of {@code
     * u} changed (the join's other side). Several may run before one refresh.
     */
    @Override
    void writeBatch() throws SQLException {
      int writes = 1 + random.nextInt(3);
      for (int i = 0; i < writes; i++) {
        switch (random.nextInt(8)) {
          case 0, 1 -> insertRows(1 + random.nextInt(40));
          case 2 -> execute("DELETE FROM t WHERE x <= (SELECT quantile_disc(x, 0.1) FROM t)");
          case 3 -> execute("DELETE FROM t WHERE x >= (SELECT quantile_disc(x, 0.9) FROM t)");
          case 4 ->
              execute(
                  "UPDATE t SET x = x + "
                      + (random.nextInt(41) - 20)
                      + ", d = d + "
                      + random.nextInt(5)
                      + " WHERE id % "
                      + (2 + random.nextInt(5))
                      + " = 0");
          case 5 -> execute("DELETE FROM t WHERE g IS NOT DISTINCT FROM " + key());
          case 6 -> execute("DELETE FROM t WHERE s = (SELECT min(s) FROM t WHERE f)");
          default ->
              execute(
                  random.nextBoolean()
                      ? "INSERT INTO u VALUES (" + key() + ", 'b')"
                      : "DELETE FROM u WHERE g IS NOT DISTINCT FROM " + key());
        }
      }
    }

    /** {@code count} rows with random groups (NULL sometimes) and values (NULL sometimes). */
    private void insertRows(int count) throws SQLException {
      StringBuilder values = new StringBuilder();
      for (int i = 0; i < count; i++) {
        values.append(i == 0 ? "" : ", ");
        values.append("(").append(nextId++).append(", ").append(key()).append(", ");
        values.append(random.nextInt(12) == 0 ? "NULL" : String.valueOf(random.nextInt(300)));
        values.append(", ");
        values.append(random.nextInt(10) == 0 ? "NULL" : "'n" + random.nextInt(200) + "'");
        values.append(", ");
        values.append(
            random.nextInt(10) == 0 ? "NULL" : "DATE '2024-01-01' + " + random.nextInt(400));
        values.append(", ").append(random.nextBoolean()).append(")");
      }
      execute("INSERT INTO t VALUES " + values);
    }

    /** A group key: 0 to 3, or NULL. */
    private String key() {
      int k = random.nextInt(5);
      return k == 4 ? "NULL" : String.valueOf(k);
    }

    @Override
    void refresh(String view) throws SQLException {
      execute("REFRESH MATERIALIZED VIEW " + view);
      check(view);
    }

    private void check(String view) throws SQLException {
      String where = "step " + step + ", view " + view;
      ViewCheck.assertMatches(connection, view, query(view), where);
      if (view.equals("grouped")) {
        for (String extreme : List.of("a1_min", "a2_max")) {
          String function = extreme.endsWith("min") ? "MIN" : "MAX";
          String table =
              "_ivm.view_"
                  + ViewCheck.rows(
                          connection, "SELECT view_id FROM _ivm.views WHERE view_name = 'grouped'")
                      .get(0)
                  + "_grouped";
          List<String> wrong =
              ViewCheck.rows(
                  connection,
                  "WITH m AS (SELECT g, "
                      + function
                      + "(x) AS e FROM t GROUP BY g), c AS (SELECT m.g, count(t.x) AS n FROM m"
                      + " LEFT JOIN t ON t.g IS NOT DISTINCT FROM m.g AND t.x = m.e GROUP BY m.g)"
                      + " SELECT c.g, d."
                      + extreme
                      + "_count, c.n FROM "
                      + table
                      + " d JOIN c ON d.k1 IS NOT DISTINCT FROM c.g WHERE d."
                      + extreme
                      + "_count > c.n OR (c.n > 0 AND d."
                      + extreme
                      + "_count < 1)");
          if (!wrong.isEmpty()) {
            throw new AssertionError(
                where + ": counts of " + extreme + " that are no lower bound: " + wrong);
          }
        }
      }
    }
  }
}
