package org.calciteivm.tests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One round of a randomized test: views come and go while the base tables change, and each view is
 * refreshed at random moments and once more at the end (every refresh checks the view against its
 * query). The tests differ in their views and writes; this is the schedule and the state they
 * share.
 */
abstract class RandomRound<V> {
  /** The most views a round keeps at once. */
  static final int MAX_VIEWS = 4;

  /** The round's source of randomness (seeded, so that a round can be replayed). */
  protected final Random random;

  /** The views that exist, by name. */
  protected final Map<String, V> views = new LinkedHashMap<>();

  /** Every statement run, for the script written when the round fails. */
  protected final List<String> log = new ArrayList<>();

  /** The connection the round runs on, once open. */
  protected Connection connection;

  /** The step being run, for failure messages. */
  protected int step;

  RandomRound(Random random) {
    this.random = random;
  }

  abstract void createView() throws SQLException;

  abstract void writeBatch() throws SQLException;

  abstract void refresh(String name) throws SQLException;

  /** Drops view {@code name} and forgets it. */
  void dropView(String name) throws SQLException {
    execute("DROP MATERIALIZED VIEW " + name);
    views.remove(name);
  }

  /**
   * The failure of round {@code round} of {@code seed} with {@code cause}, saying how to replay it;
   * the round's statements are written to {@code
   * target/randomized/<suite>-seed<seed>-round<round>.sql} ({@code suite} names the test; empty for
   * the oldest suite's plain {@code seed...} files).
   */
  AssertionError failure(String suite, long seed, int round, Throwable cause) throws IOException {
    Path script =
        Path.of(
            "target",
            "randomized",
            (suite.isEmpty() ? "" : suite + "-") + "seed" + seed + "-round" + round + ".sql");
    Files.createDirectories(script.getParent());
    Files.write(script, log);
    return new AssertionError(
        String.format(
            "seed=%d round=%d step=%d (replay: -Divm.seed=%d -Divm.round=%d; statements in %s)%n%s",
            seed, round, step, seed, round, script.toAbsolutePath(), cause.getMessage()),
        cause);
  }

  /** Tells a driver failure from a generator mistake: does DuckDB run the query by itself? */
  String queryItself(String query) {
    try {
      ViewCheck.rows(connection, query);
      return "(the query alone runs)";
    } catch (SQLException e) {
      return "(the query alone fails too: " + e.getMessage() + ")";
    }
  }

  /** Runs {@code statement} on the round's connection and logs it. */
  void execute(String statement) throws SQLException {
    log.add(statement + ";");
    try (Statement s = connection.createStatement()) {
      s.execute(statement);
    } catch (SQLException e) {
      throw new SQLException("statement failed: " + statement + "\n  " + e.getMessage(), e);
    }
  }

  /**
   * Creates two views, then for each of {@code steps} steps: maybe a new view (one chance in {@code
   * newViewOneIn}), maybe a dropped one, a batch of writes, maybe another refresh mode, and
   * refreshes of about 40% of the views; finally refreshes every view.
   */
  void runSteps(int steps, int newViewOneIn) throws SQLException {
    createView();
    createView();
    for (int step = 1; step <= steps; step++) {
      this.step = step;
      if (views.size() < MAX_VIEWS && random.nextInt(newViewOneIn) == 0) {
        createView();
      }
      if (views.size() > 1 && random.nextInt(20) == 0) {
        dropView(views.keySet().iterator().next());
      }
      writeBatch();
      if (random.nextInt(5) == 0) {
        // full and incremental refreshes alternate: each must leave state the other continues
        execute(
            "SET ivm_refresh_mode = "
                + List.of("auto", "incremental", "full").get(random.nextInt(3)));
      }
      for (String name : List.copyOf(views.keySet())) {
        if (random.nextInt(10) < 4) {
          refresh(name);
        }
      }
    }
    for (String name : List.copyOf(views.keySet())) {
      refresh(name);
    }
  }
}
