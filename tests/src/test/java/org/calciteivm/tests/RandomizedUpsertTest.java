package org.calciteivm.tests;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Differential test of captured upserts and MERGEs: random {@code INSERT OR REPLACE} and {@code
 * INSERT ... ON CONFLICT ... DO UPDATE | DO NOTHING} statements (rows that update, insert or are
 * left alone by a WHERE; keys proposed twice in one statement; a column list; a two-column UNIQUE
 * key with NULLs) and {@code MERGE INTO} statements (matched rows updated, deleted or left alone,
 * unmatched source rows inserted, unmatched target rows updated or deleted, a target row matched by
 * and a source row matching several target rows), mixed with UPDATEs and DELETEs, sometimes several
 * in one transaction that commits or rolls back. After every refresh each view must equal its
 * query; the immediate view is checked after every write.
 *
 * <p>Views: an aggregate with MIN and MAX, a join whose both sides are upserted, a DISTINCT
 * projection, an aggregate of the two-column-key table, and an immediate aggregate.
 *
 * <p>System properties: {@code ivm.seed} (replays a run), {@code ivm.rounds}, {@code ivm.steps},
 * {@code ivm.round}. A failing round's statements are written to {@code target/randomized/}.
 */
class RandomizedUpsertTest {
  private static final Map<String, String> VIEWS =
      Map.of(
          "grouped",
          "SELECT g, COUNT(*) AS n, SUM(x) AS total, MIN(x) AS lo, MAX(s) AS hi FROM kv GROUP BY g",
          "joined",
          "SELECT kv.k, kv.x, pairs.n FROM kv JOIN pairs ON kv.g = pairs.a",
          "distinct_tags",
          "SELECT DISTINCT s, g FROM kv",
          "pair_sums",
          "SELECT a, b, SUM(n) AS total, COUNT(*) AS c FROM pairs GROUP BY a, b",
          "live",
          "SELECT COUNT(*) AS n, SUM(x) AS total, MAX(k) AS top FROM kv");

  @Test
  void upsertsKeepViewsEqualToTheirQueries() throws Exception {
    long seed = Long.getLong("ivm.seed", new Random().nextLong());
    int rounds = Integer.getInteger("ivm.rounds", 3);
    int steps = Integer.getInteger("ivm.steps", 30);
    int only = Integer.getInteger("ivm.round", -1);
    System.out.println("RandomizedUpsertTest: -Divm.seed=" + seed);
    for (int round = 0; round < rounds; round++) {
      if (only < 0 || only == round) {
        new Round(seed, round, steps).run();
      }
    }
  }

  /** One in-memory database with the five views and a sequence of write batches and refreshes. */
  private static final class Round extends RandomRound<String> {
    private final long seed;
    private final int round;
    private final int steps;

    Round(long seed, int round, int steps) {
      super(new Random(seed * 31 + round));
      this.seed = seed;
      this.round = round;
      this.steps = steps;
    }

    void run() throws Exception {
      try (Connection c = DriverManager.getConnection("jdbc:ivm:duckdb:")) {
        connection = c;
        execute(
            "CREATE TABLE kv (k INTEGER PRIMARY KEY, g INTEGER, x INTEGER, s VARCHAR DEFAULT 'd')");
        execute("CREATE TABLE pairs (a INTEGER, b INTEGER, n INTEGER, UNIQUE (a, b))");
        execute(upsertKv("INSERT OR IGNORE INTO kv", "", 20));
        execute(upsertPairs(" ON CONFLICT DO NOTHING", 8));
        for (Map.Entry<String, String> view : VIEWS.entrySet()) {
          String timing = view.getKey().equals("live") ? " WITH (refresh = 'immediate')" : "";
          execute("CREATE MATERIALIZED VIEW " + view.getKey() + timing + " AS " + view.getValue());
          views.put(view.getKey(), view.getValue());
          check(view.getKey());
        }
        for (step = 1; step <= steps; step++) {
          writeBatch();
          for (String view : List.copyOf(views.keySet())) {
            if (random.nextInt(10) < 4) {
              refresh(view);
            }
          }
        }
        for (String view : List.copyOf(views.keySet())) {
          refresh(view);
        }
      } catch (SQLException | AssertionError e) {
        throw failure("upsert", seed, round, e);
      }
    }

    @Override
    void createView() {
      throw new UnsupportedOperationException("the views are fixed");
    }

    /**
     * One to three writes, in a transaction of their own one time in four (rolled back in half).
     */
    @Override
    void writeBatch() throws SQLException {
      boolean transaction = random.nextInt(4) == 0;
      if (transaction) {
        execute("BEGIN");
      }
      int writes = 1 + random.nextInt(3);
      for (int i = 0; i < writes; i++) {
        write();
        if (!transaction) {
          check("live");
        }
      }
      if (transaction) {
        execute(random.nextBoolean() ? "COMMIT" : "ROLLBACK");
        check("live");
      }
    }

    private void write() throws SQLException {
      switch (random.nextInt(11)) {
        case 9 -> execute(mergeKv());
        case 10 ->
            execute(
                "MERGE INTO pairs USING (VALUES ("
                    + random.nextInt(5)
                    + ", "
                    + random.nextInt(10)
                    + ")) AS s(a, n) ON pairs.a = s.a WHEN MATCHED AND pairs.b IS NULL THEN DELETE"
                    + " WHEN MATCHED THEN UPDATE SET n = pairs.n + s.n"
                    + " WHEN NOT MATCHED THEN INSERT VALUES (s.a, NULL, s.n)");
        case 0, 1 -> execute(upsertKv("INSERT OR REPLACE INTO kv", "", 1 + random.nextInt(6)));
        case 2, 3 ->
            execute(
                upsertKv(
                    "INSERT INTO kv",
                    " ON CONFLICT"
                        + (random.nextBoolean() ? " (k)" : "")
                        + " DO UPDATE SET "
                        + assignments()
                        + where(),
                    1 + random.nextInt(6)));
        case 4 ->
            execute(
                "INSERT INTO kv AS t (k, x) VALUES ("
                    + random.nextInt(25)
                    + ", "
                    + random.nextInt(50)
                    + ") ON CONFLICT DO UPDATE SET x = t.x + excluded.x, s = excluded.s");
        case 5 ->
            execute(
                upsertPairs(
                    random.nextBoolean()
                        ? " ON CONFLICT (a, b) DO UPDATE SET n = pairs.n + excluded.n"
                        : " ON CONFLICT DO NOTHING",
                    1 + random.nextInt(4)));
        case 6 -> execute("DELETE FROM kv WHERE k % " + (3 + random.nextInt(5)) + " = 0");
        case 7 ->
            execute("UPDATE kv SET x = x + 1, g = (g + 1) % 4 WHERE k < " + random.nextInt(25));
        default -> execute("DELETE FROM pairs WHERE a = " + random.nextInt(4));
      }
    }

    /** A MERGE into kv from up to five rows of distinct keys, with one to four WHEN clauses. */
    private String mergeKv() {
      List<String> rows = new ArrayList<>();
      for (int k : random.ints(0, 25).distinct().limit(1 + random.nextInt(5)).toArray()) {
        rows.add(
            "("
                + k
                + ", "
                + (random.nextInt(5) == 0 ? "NULL" : random.nextInt(4))
                + ", "
                + (random.nextInt(50) - 10)
                + ")");
      }
      List<String> clauses = new ArrayList<>();
      if (random.nextBoolean()) {
        clauses.add("WHEN MATCHED AND s.g IS NULL THEN DELETE");
      }
      if (random.nextBoolean()) {
        clauses.add(
            random.nextBoolean()
                ? "WHEN MATCHED AND s.x > " + random.nextInt(30) + " THEN UPDATE SET x = kv.x + s.x"
                : "WHEN MATCHED THEN UPDATE SET g = s.g, s = 'm'");
      }
      if (random.nextBoolean()) {
        clauses.add("WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.g, s.x, 'mi')");
      }
      if (clauses.isEmpty() || random.nextInt(3) == 0) {
        clauses.add(
            random.nextBoolean()
                ? "WHEN NOT MATCHED BY SOURCE AND kv.k % 7 = 0 THEN DELETE"
                : "WHEN NOT MATCHED BY SOURCE AND kv.x > 60 THEN UPDATE SET x = kv.x - 50");
      }
      // a RETURNING makes DuckDB delete and insert the rows a MERGE updates
      return "MERGE INTO kv USING (VALUES "
          + String.join(", ", rows)
          + ") AS s(k, g, x) ON kv.k = s.k "
          + String.join(" ", clauses)
          + (random.nextInt(3) == 0 ? " RETURNING merge_action, k" : "");
    }

    /**
     * {@code head} (an INSERT into kv) of {@code rows} random rows, keys 0 to 24 (a key may come
     * twice: DuckDB keeps the first), then {@code tail}.
     */
    private String upsertKv(String head, String tail, int rows) {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        values.add(
            "("
                + random.nextInt(25)
                + ", "
                + (random.nextInt(6) == 0 ? "NULL" : random.nextInt(4))
                + ", "
                + (random.nextInt(8) == 0 ? "NULL" : random.nextInt(100) - 20)
                + ", "
                + (random.nextInt(6) == 0 ? "NULL" : "'s" + random.nextInt(5) + "'")
                + ")");
      }
      return head
          + " VALUES "
          + String.join(", ", values)
          + tail
          + (random.nextInt(4) == 0 ? " RETURNING k, x" : "");
    }

    /**
     * An INSERT of {@code rows} rows into pairs, b NULL sometimes (never a conflict), then tail.
     */
    private String upsertPairs(String tail, int rows) {
      List<String> values = new ArrayList<>();
      for (int i = 0; i < rows; i++) {
        values.add(
            "("
                + random.nextInt(4)
                + ", "
                + (random.nextInt(5) == 0 ? "NULL" : random.nextInt(3))
                + ", "
                + random.nextInt(10)
                + ")");
      }
      return "INSERT INTO pairs VALUES " + String.join(", ", values) + tail;
    }

    /** A DO UPDATE SET list: one to three of the non-key columns, from the old or the new row. */
    private String assignments() {
      List<String> set = new ArrayList<>();
      if (random.nextBoolean()) {
        set.add(random.nextBoolean() ? "x = excluded.x" : "x = coalesce(kv.x, 0) + excluded.x");
      }
      if (random.nextBoolean()) {
        set.add("g = excluded.g");
      }
      if (set.isEmpty() || random.nextBoolean()) {
        set.add(random.nextBoolean() ? "s = excluded.s" : "s = kv.s || 'u'");
      }
      return String.join(", ", set);
    }

    /** No WHERE, or one that leaves some conflicting rows alone. */
    private String where() {
      return switch (random.nextInt(4)) {
        case 0 -> " WHERE kv.x < " + random.nextInt(60);
        case 1 -> " WHERE excluded.g IS DISTINCT FROM kv.g";
        default -> "";
      };
    }

    @Override
    void refresh(String view) throws SQLException {
      execute("REFRESH MATERIALIZED VIEW " + view);
      check(view);
    }

    private void check(String view) throws SQLException {
      ViewCheck.assertMatches(connection, view, VIEWS.get(view), "step " + step + ", view " + view);
    }
  }
}
