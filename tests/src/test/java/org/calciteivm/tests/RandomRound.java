package org.calciteivm.tests;

import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * One round of a randomized test: views come and go while the base tables change, and each view is
 * refreshed at random moments and once more at the end (every refresh checks the view against its
 * query). The tests differ in their views and writes; this is the schedule they share.
 */
interface RandomRound {
  /** The most views a round keeps at once. */
  int MAX_VIEWS = 4;

  /** The round's source of randomness (seeded, so that a round can be replayed). */
  Random random();

  /** The views that exist, by name. */
  Map<String, ?> views();

  /** Records the step being run, for failure messages. */
  void atStep(int step);

  void createView() throws SQLException;

  /** Drops view {@code name} and forgets it. */
  void dropView(String name) throws SQLException;

  void writeBatch() throws SQLException;

  void refresh(String name) throws SQLException;

  /**
   * Creates two views, then for each of {@code steps} steps: maybe a new view (one chance in {@code
   * newViewOneIn}), maybe a dropped one, a batch of writes and refreshes of about 40% of the views;
   * finally refreshes every view.
   */
  default void runSteps(int steps, int newViewOneIn) throws SQLException {
    Random random = random();
    createView();
    createView();
    for (int step = 1; step <= steps; step++) {
      atStep(step);
      if (views().size() < MAX_VIEWS && random.nextInt(newViewOneIn) == 0) {
        createView();
      }
      if (views().size() > 1 && random.nextInt(20) == 0) {
        dropView(views().keySet().iterator().next());
      }
      writeBatch();
      for (String name : List.copyOf(views().keySet())) {
        if (random.nextInt(10) < 4) {
          refresh(name);
        }
      }
    }
    for (String name : List.copyOf(views().keySet())) {
      refresh(name);
    }
  }
}
