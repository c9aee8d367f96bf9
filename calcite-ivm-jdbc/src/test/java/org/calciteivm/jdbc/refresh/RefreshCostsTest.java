package org.calciteivm.jdbc.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.jdbc.catalog.RefreshStatistics.Cost;
import org.junit.jupiter.api.Test;

/** How {@code ivm_refresh_mode = auto} chooses between a merge and a recompute. */
class RefreshCostsTest {
  private static final MergeStrategy MERGE = MergeStrategy.GROUP_RECOMPUTE;
  private static final MergeStrategy FULL = MergeStrategy.FULL_RECOMPUTE;

  @Test
  void storesACostOnlyWhenItMovedByMoreThanAQuarterFromTheStoredOne() {
    RefreshCosts costs = new RefreshCosts(Map.of(MERGE, new Cost(1000, 10.0)));
    assertThat(costs.mustStore(FULL, 0, 50.0)).as("nothing stored for it yet").isTrue();
    assertThat(costs.mustStore(FULL, 0, 55.0)).isFalse();
    assertThat(costs.mustStore(MERGE, 1100, 12.0)).isFalse();
    assertThat(costs.mustStore(MERGE, 1300, 10.0)).as("rows moved").isTrue();
    // compared with what was stored last, so small steps cannot drift away from it
    assertThat(costs.mustStore(MERGE, 1300, 12.0)).isFalse();
    assertThat(costs.mustStore(MERGE, 1300, 12.4)).isFalse();
    assertThat(costs.mustStore(MERGE, 1300, 12.6)).as("time moved").isTrue();
    assertThat(costs.mustStore(MERGE, 1300, 10.0)).isTrue();
  }

  @Test
  void mergesWhileEitherCostIsUnknown() {
    assertThat(new RefreshCosts(Map.of()).recomputeCheaper(MERGE, 1000)).isFalse();
    assertThat(new RefreshCosts(Map.of(FULL, new Cost(0, 1.0))).recomputeCheaper(MERGE, 1000))
        .isFalse();
    assertThat(new RefreshCosts(Map.of(MERGE, new Cost(10, 500.0))).recomputeCheaper(MERGE, 10))
        .isFalse();
  }

  @Test
  void scalesTheMergeWithTheChangeButNotTheRecompute() {
    RefreshCosts costs =
        new RefreshCosts(Map.of(MERGE, new Cost(1000, 100.0), FULL, new Cost(5, 50.0)));
    assertThat(costs.estimate(MERGE, 3000)).isEqualTo(300.0);
    assertThat(costs.estimate(FULL, 3000)).isEqualTo(50.0);
    // 100 ms for 1000 rows; a recompute of 50 ms pays from 625 rows on (a fifth saved)
    assertThat(costs.recomputeCheaper(MERGE, 1000)).isTrue();
    assertThat(costs.recomputeCheaper(MERGE, 700)).isTrue();
    assertThat(costs.recomputeCheaper(MERGE, 600)).isFalse();
    assertThat(costs.recomputeCheaper(MERGE, 10)).isFalse();
  }

  @Test
  void mergesAChangeMoreThanTwiceTheLastMergedOneToMeasureIt() {
    RefreshCosts costs =
        new RefreshCosts(Map.of(MERGE, new Cost(600, 20.0), FULL, new Cost(5, 50.0)));
    // scaled up, 6,000 rows would take 200 ms; but 20 ms for 600 rows is mostly fixed cost
    assertThat(costs.estimate(MERGE, 6000)).isEqualTo(200.0);
    assertThat(costs.recomputeCheaper(MERGE, 6000)).isFalse();
    assertThat(costs.recomputeCheaper(MERGE, 1200)).isFalse();
    // measured at 6,000 rows: now the estimate is trusted
    costs.record(MERGE, 6000, 120.0);
    assertThat(costs.recomputeCheaper(MERGE, 6000)).isTrue();
    assertThat(costs.recomputeCheaper(MERGE, 12000)).isTrue();
    assertThat(costs.recomputeCheaper(MERGE, 12001)).isFalse();
  }

  @Test
  void aFewMillisecondsAreNotWorthARecompute() {
    RefreshCosts costs =
        new RefreshCosts(Map.of(MERGE, new Cost(100, 2.4), FULL, new Cost(5, 0.5)));
    // 2.4 ms against 0.5 ms saves four fifths, but only 1.9 ms
    assertThat(costs.recomputeCheaper(MERGE, 100)).isFalse();
    assertThat(costs.recomputeCheaper(MERGE, 200)).isTrue();
  }

  @Test
  void recomputesOnceToMeasureWhenOnlyCreationsPopulationIsKnown() {
    RefreshCosts costs =
        new RefreshCosts(Map.of(MERGE, new Cost(6000, 200.0), FULL, new Cost(0, 390.0)));
    // at a fifth of CREATE's population or more: explore
    assertThat(costs.recomputeCheaper(MERGE, 6000)).isTrue();
    assertThat(costs.recomputeCheaper(MERGE, 4000)).isTrue();
    assertThat(costs.recomputeCheaper(MERGE, 1000)).isFalse();
    // once a recompute is measured, the ordinary rule decides
    costs.record(FULL, 6000, 110.0);
    assertThat(costs.recomputeCheaper(MERGE, 6000)).isTrue();
    costs.record(FULL, 6000, 190.0);
    assertThat(costs.recomputeCheaper(MERGE, 6000)).isFalse();
  }

  @Test
  void aViewWhoseChangeOthersReadIsNotPricedByItsPopulation() {
    Map<MergeStrategy, Cost> measured =
        Map.of(FULL, new Cost(0, 50.0), MERGE, new Cost(1500, 40.0));
    // populated in 50 ms, merged in 40: a plain view recomputes once to measure the recompute
    assertThat(new RefreshCosts(measured).recomputeCheaper(MERGE, 1500)).isTrue();
    // a view others read would also write every row before and after as its change
    assertThat(RefreshCosts.ofChangeWriter(measured).recomputeCheaper(MERGE, 1500)).isFalse();
    assertThat(RefreshCosts.ofChangeWriter(measured).estimate(FULL, 1500)).isNull();
    // a measured recompute, change written, is compared as for any view
    RefreshCosts recomputed =
        RefreshCosts.ofChangeWriter(
            Map.of(FULL, new Cost(1500, 20.0), MERGE, new Cost(1500, 40.0)));
    assertThat(recomputed.recomputeCheaper(MERGE, 1500)).isTrue();
  }

  @Test
  void oneSlowMergeDoesNotSwitchToRecomputing() {
    RefreshCosts costs =
        new RefreshCosts(Map.of(MERGE, new Cost(7300, 20.0), FULL, new Cost(7300, 40.0)));
    assertThat(costs.recomputeCheaper(MERGE, 7300)).isFalse();
    // 57 ms once, between merges of about 20: kept as 30 ms, still cheaper than a recompute
    assertThat(costs.remembered(MERGE, 7300, 57.0)).isEqualTo(30.0);
    costs.record(MERGE, 7300, 57.0);
    assertThat(costs.estimate(MERGE, 7300)).isEqualTo(30.0);
    assertThat(costs.recomputeCheaper(MERGE, 7300)).isFalse();
    // a lasting slowdown shows within a few refreshes: kept as 45, then 57 ms
    costs.record(MERGE, 7300, 57.0);
    assertThat(costs.recomputeCheaper(MERGE, 7300)).isFalse();
    costs.record(MERGE, 7300, 57.0);
    assertThat(costs.recomputeCheaper(MERGE, 7300)).isTrue();
    // a faster merge, a change of another size and a recompute are kept as they were
    assertThat(costs.remembered(MERGE, 7300, 10.0)).isEqualTo(10.0);
    assertThat(costs.remembered(MERGE, 20000, 300.0)).isEqualTo(300.0);
    assertThat(costs.remembered(FULL, 7300, 400.0)).isEqualTo(400.0);
  }
}
