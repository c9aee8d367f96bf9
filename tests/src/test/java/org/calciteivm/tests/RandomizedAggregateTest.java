package org.calciteivm.tests;

import java.io.IOException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Random;
import org.calciteivm.tests.RandomSql.Column;
import org.calciteivm.tests.RandomSql.Type;
import org.junit.jupiter.api.Test;

/**
 * Differential test of aggregate views: random small-domain, NULL-heavy tables, random aggregate,
 * HAVING, FILTER and DISTINCT views ({@link AggSql}) and random write batches; after every refresh
 * the view must equal a recompute of its query ({@link AggCheck}: exact, except SUM and AVG over
 * DOUBLE values, compared within a documented tolerance).
 *
 * <p>Each round uses a fresh in-memory database with one table and up to four views, created,
 * dropped and refreshed at random times. Every refresh first sets a random one of the eight
 * combinations of {@code ivm_skip_aggregate_delete}, {@code ivm_minmax_incremental} and {@code
 * ivm_skip_projection_delete} (with SET or RESET); some rounds start from JDBC connection
 * properties instead of the defaults. Batches are sometimes insert-only (the fast paths), sometimes
 * delete every row, and sometimes run in a transaction that commits or rolls back.
 *
 * <p>System properties: {@code ivm.seed} (replays a run), {@code ivm.rounds}, {@code ivm.steps}
 * (write batches per round), {@code ivm.round} (run only that round of the seed). A failing round's
 * statements are written to {@code target/randomized/} as a script.
 */
class RandomizedAggregateTest {
  private static final int MAX_ROWS = 150;
  private static final List<String> SETTINGS =
      List.of("ivm_skip_aggregate_delete", "ivm_minmax_incremental", "ivm_skip_projection_delete");

  @Test
  void aggregateViewsMatchTheirQueriesAfterEveryRefresh() throws Exception {
    long seed = Long.getLong("ivm.seed", new Random().nextLong());
    int rounds = Integer.getInteger("ivm.rounds", 6);
    int steps = Integer.getInteger("ivm.steps", 40);
    int only = Integer.getInteger("ivm.round", -1);
    System.out.println("RandomizedAggregateTest: -Divm.seed=" + seed);
    int[] combinations = new int[1 << SETTINGS.size()];
    int refreshes = 0;
    for (int round = 0; round < rounds; round++) {
      if (only < 0 || only == round) {
        refreshes += new Round(seed, round, steps, combinations).run();
      }
    }
    System.out.println(
        "RandomizedAggregateTest: "
            + refreshes
            + " refreshes checked; refreshes per setting combination: "
            + Arrays.toString(combinations));
  }

  /** One database, one table, its views and a sequence of write batches and refreshes. */
  private static final class Round extends RandomRound<AggSql.ViewQuery> {
    private final long seed;
    private final int round;
    private final int steps;
    private final int[] combinations;
    private final RandomSql sql;
    private final boolean[] settings = new boolean[SETTINGS.size()];
    private AggSql agg;
    private int viewCount;
    private int refreshes;

    Round(long seed, int round, int steps, int[] combinations) {
      // Rounds are independent so that one can be replayed alone with ivm.round.
      super(new Random(seed * 31 + round));
      this.seed = seed;
      this.round = round;
      this.steps = steps;
      this.combinations = combinations;
      this.sql = new RandomSql(random, "t");
    }

    int run() throws IOException {
      try (Connection c = DriverManager.getConnection("jdbc:ivm:duckdb:", properties())) {
        connection = c;
        execute(sql.createTable());
        agg = new AggSql(random, sql, "t", columns());
        execute(sql.insert(5 + random.nextInt(15)));
        execute(agg.nullHeavyInsert(3 + random.nextInt(8)));
        runSteps(steps, 10);
        return refreshes;
      } catch (SQLException | AssertionError e) {
        throw failure("agg", seed, round, e);
      }
    }

    /** The settings as JDBC properties in one round of three, otherwise none (the defaults). */
    private Properties properties() {
      Properties properties = new Properties();
      Arrays.fill(settings, true);
      if (random.nextInt(3) == 0) {
        for (int i = 0; i < SETTINGS.size(); i++) {
          settings[i] = random.nextBoolean();
          properties.setProperty(SETTINGS.get(i), String.valueOf(settings[i]));
        }
      }
      log.add("-- connection properties: " + properties);
      return properties;
    }

    /** The generated table's columns, read back from DuckDB. */
    private List<Column> columns() throws SQLException {
      List<Column> columns = new ArrayList<>();
      for (String row :
          ViewCheck.rows(connection, "SELECT column_name, column_type FROM (DESCRIBE t)")) {
        String[] parts = row.split("\t");
        columns.add(new Column(parts[0], typeOf(parts[1])));
      }
      return columns;
    }

    private static Type typeOf(String duckDbType) {
      return Arrays.stream(Type.values())
          .filter(t -> t.sql.equalsIgnoreCase(duckDbType))
          .findFirst()
          .orElseThrow(() -> new IllegalStateException("unexpected column type " + duckDbType));
    }

    @Override
    void createView() throws SQLException {
      String name = "v" + viewCount++;
      AggSql.ViewQuery query = agg.viewQuery();
      try {
        execute("CREATE MATERIALIZED VIEW " + name + " AS " + query.sql());
      } catch (SQLException e) {
        throw new SQLException(e.getMessage() + "\n  " + queryItself(query.sql()), e);
      }
      views.put(name, query);
      check(name);
    }

    @Override
    void writeBatch() throws SQLException {
      int rows = Integer.parseInt(ViewCheck.rows(connection, "SELECT count(*) FROM t").get(0));
      if (random.nextInt(25) == 0) {
        // Every row goes, sometimes with new rows in the same cycle.
        execute(agg.deleteAll());
        if (random.nextBoolean()) {
          execute(agg.nullHeavyInsert(1 + random.nextInt(4)));
        }
        return;
      }
      boolean insertOnly = rows < MAX_ROWS && random.nextInt(10) < 3;
      int transaction = random.nextInt(12);
      if (transaction < 2) {
        execute("BEGIN TRANSACTION");
      }
      for (int n = 1 + random.nextInt(4); n > 0; n--) {
        int kind =
            insertOnly
                ? random.nextInt(4)
                : rows >= MAX_ROWS ? 5 + random.nextInt(3) : random.nextInt(12);
        execute(
            switch (kind) {
              case 0, 1 -> sql.insert(1 + random.nextInt(5));
              case 2 -> agg.nullHeavyInsert(1 + random.nextInt(5));
              case 3 -> rows < MAX_ROWS / 2 ? sql.insertSelect() : sql.insert(1);
              case 4, 5 -> sql.delete();
              case 6 -> agg.hitExtremum();
              case 7, 8 -> agg.moveRows();
              default -> sql.update();
            });
      }
      if (transaction < 2) {
        execute(transaction == 0 ? "COMMIT" : "ROLLBACK");
      }
    }

    /** Refreshes with a random combination of the settings, then checks the view. */
    @Override
    void refresh(String name) throws SQLException {
      int combination = random.nextInt(1 << SETTINGS.size());
      for (int i = 0; i < SETTINGS.size(); i++) {
        boolean value = (combination & (1 << i)) != 0;
        if (value != settings[i] || random.nextInt(10) == 0) {
          execute(
              value && random.nextBoolean()
                  ? "RESET " + SETTINGS.get(i)
                  : "SET "
                      + SETTINGS.get(i)
                      + " = "
                      + String.valueOf(value).toUpperCase(Locale.ROOT));
          settings[i] = value;
        }
      }
      execute("REFRESH MATERIALIZED VIEW " + name);
      refreshes++;
      combinations[combination]++;
      check(name);
    }

    private void check(String name) throws SQLException {
      log.add("-- check " + name);
      AggSql.ViewQuery query = views.get(name);
      AggCheck.assertMatches(connection, name, query.sql(), query.approximate(), "step " + step);
      AggCheck.assertHiddenViewsMatch(connection, name, "step " + step);
    }
  }
}
