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
 * Differential test of row expansions ({@code unnest} in FROM and in the select list, the series
 * table functions in FROM) and of {@code STRUCT} fields, also over a plain view: random lists
 * (empty, NULL, with NULL elements and duplicates) and structs (NULL, with NULL fields, holding a
 * list) in a table joined with another, random writes to both tables (structs set by literals), and
 * views that expand, join, filter and aggregate the elements and fields; after every refresh each
 * view must equal a recompute of its query ({@link ViewCheck}).
 *
 * <p>System properties: {@code ivm.seed} (replays a run), {@code ivm.rounds}, {@code ivm.steps},
 * {@code ivm.round}. A failing round's statements are written to {@code target/randomized/}.
 */
class RandomizedUnnestTest {
  private static final int MAX_ROWS = 60;

  /** The views a round chooses from: every form of row expansion, over both tables. */
  private static final List<String> QUERIES =
      List.of(
          "SELECT p.id, u.x FROM post p, unnest(p.xs) AS u(x)",
          "SELECT p.g, u.x, COUNT(*) AS n, SUM(p.id) AS s FROM post p, unnest(p.xs) AS u(x)"
              + " GROUP BY p.g, u.x",
          "SELECT d.name, u.x FROM post p JOIN dim d ON p.g = d.g, unnest(p.xs) AS u(x)"
              + " WHERE u.x IS NULL OR u.x > 1",
          "SELECT p.id, u.x FROM post p LEFT JOIN LATERAL unnest(p.xs) AS u(x) ON TRUE",
          "SELECT p.id, s.total, s.n FROM post p,"
              + " LATERAL (SELECT SUM(x) AS total, COUNT(x) AS n FROM unnest(p.xs) AS u(x)) s",
          "SELECT p.id, r.i FROM post p, range(p.g) AS r(i)",
          "SELECT d.name, r.i, COUNT(*) AS n FROM dim d JOIN post p ON p.g = d.g,"
              + " generate_series(1, p.g) AS r(i) GROUP BY d.name, r.i",
          "SELECT DISTINCT u.x FROM post p, unnest(p.xs) AS u(x)",
          // select-list unnest, written in FROM at CREATE; checked against DuckDB's own reading
          "SELECT id, unnest(xs) AS x FROM post WHERE g IS NOT NULL",
          "SELECT DISTINCT g, unnest(xs) FROM post",
          // plain views, written in as their definitions at CREATE
          "SELECT k.id, u.x FROM keyed k, unnest(k.xs) AS u(x) WHERE k.name LIKE 't%'",
          "SELECT name, COUNT(*) AS n, if(SUM(id) > 10, 'big', 'small') AS size FROM keyed"
              + " GROUP BY name",
          "SELECT p.id, c.k FROM post p CROSS JOIN unnest([1, 2]) AS c(k) WHERE c.k <= p.g",
          // struct fields, read as s.a and t.s.a
          "SELECT p.id, p.st.a AS a, st.l AS l FROM post p WHERE p.st.a IS NULL OR st.a < 3",
          "SELECT st.a, COUNT(*) AS n, SUM(g) AS s, COUNT(st) AS structs FROM post GROUP BY st.a",
          "SELECT p.id, u.x FROM post p, unnest(p.st.l) AS u(x)",
          "SELECT d.name, p.st FROM post p LEFT JOIN dim d ON p.st.a = d.g",
          "SELECT DISTINCT st FROM post");

  @Test
  void viewsMatchTheirQueriesAfterEveryRefresh() throws Exception {
    long seed = Long.getLong("ivm.seed", new Random().nextLong());
    int rounds = Integer.getInteger("ivm.rounds", 6);
    int steps = Integer.getInteger("ivm.steps", 30);
    int only = Integer.getInteger("ivm.round", -1);
    System.out.println("RandomizedUnnestTest: -Divm.seed=" + seed);
    int refreshes = 0;
    for (int round = 0; round < rounds; round++) {
      if (only < 0 || only == round) {
        refreshes += new Round(seed, round, steps).run();
      }
    }
    System.out.println("RandomizedUnnestTest: " + refreshes + " refreshes checked");
  }

  /** One database, its two tables, views of row expansions, write batches and refreshes. */
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
        execute(
            "CREATE TABLE post (id INTEGER, g INTEGER, xs INTEGER[], st STRUCT(a INTEGER, l INTEGER[]))");
        execute("CREATE TABLE dim (g INTEGER, name VARCHAR)");
        execute(insertPosts(4 + random.nextInt(8)));
        execute("INSERT INTO dim VALUES (0, 'zero'), (1, 'one'), (2, 'two'), (NULL, 'none')");
        execute(
            "CREATE VIEW keyed AS SELECT p.id, p.xs, d.name FROM post p JOIN dim d ON p.g = d.g"
                + " WHERE d.name NOT LIKE 'n%'");
        runSteps(steps, 6);
        return refreshes;
      } catch (SQLException | AssertionError e) {
        throw failure("unnest", seed, round, e);
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
      int rows = Integer.parseInt(ViewCheck.rows(connection, "SELECT count(*) FROM post").get(0));
      int transaction = random.nextInt(10);
      if (transaction < 2) {
        execute("BEGIN TRANSACTION");
      }
      for (int n = 1 + random.nextInt(3); n > 0; n--) {
        int kind = rows >= MAX_ROWS ? 2 + random.nextInt(4) : random.nextInt(7);
        execute(
            switch (kind) {
              case 0, 1 -> insertPosts(1 + random.nextInt(4));
              case 2 -> "DELETE FROM post WHERE id % 5 = " + random.nextInt(5);
              case 3 ->
                  (random.nextBoolean()
                          ? "UPDATE post SET xs = " + list()
                          : "UPDATE post SET st = " + struct())
                      + " WHERE id % 4 = "
                      + random.nextInt(4);
              case 4 -> "UPDATE post SET g = " + group() + " WHERE id % 3 = " + random.nextInt(3);
              case 5 ->
                  random.nextBoolean()
                      ? "UPDATE dim SET g = " + group() + " WHERE name = 'two'"
                      : "INSERT INTO dim VALUES (" + group() + ", 'extra')";
              default -> "INSERT INTO post SELECT id + 1000, g, xs, st FROM post WHERE id % 7 = 0";
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

    private String insertPosts(int count) {
      List<String> rows = new ArrayList<>();
      for (int i = 0; i < count; i++) {
        // a copy of the row before, now and then: duplicate rows
        int id = random.nextInt(6) == 0 && nextId > 0 ? nextId : ++nextId;
        rows.add("(" + id + ", " + group() + ", " + list() + ", " + struct() + ")");
      }
      return "INSERT INTO post VALUES " + String.join(", ", rows);
    }

    /** A small group, or NULL. */
    private String group() {
      return random.nextInt(8) == 0 ? "NULL" : String.valueOf(random.nextInt(4));
    }

    /** A struct of a small value and a list, either possibly NULL; or NULL. */
    private String struct() {
      return random.nextInt(8) == 0 ? "NULL" : "{'a': " + group() + ", 'l': " + list() + "}";
    }

    /** A list of up to four small values with NULLs and duplicates; or empty, or NULL. */
    private String list() {
      int length = random.nextInt(6) - 1;
      if (length < 0) {
        return "NULL";
      }
      List<String> values = new ArrayList<>();
      for (int i = 0; i < length; i++) {
        values.add(random.nextInt(6) == 0 ? "NULL" : String.valueOf(random.nextInt(4)));
      }
      return "[" + String.join(", ", values) + "]::INTEGER[]";
    }
  }
}
