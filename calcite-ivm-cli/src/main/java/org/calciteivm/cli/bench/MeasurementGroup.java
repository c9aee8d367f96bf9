package org.calciteivm.cli.bench;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The repetitions of one kind of change of one size on one view: what the summary and the charts
 * aggregate into medians.
 *
 * @param view the view's short name
 * @param kind the kind of change
 * @param deltaFraction the size of the change as a fraction of the orders
 * @param reps the repetitions, at least one
 */
record MeasurementGroup(String view, String kind, double deltaFraction, List<Measurement> reps) {
  /** Copies the repetitions. */
  MeasurementGroup {
    reps = List.copyOf(reps);
  }

  /** The median of a metric over the repetitions ({@link MeasurementGroups#median}). */
  double median(ToDoubleFunction<Measurement> metric) {
    return MeasurementGroups.median(reps, metric);
  }

  /** The repetitions whose refreshed view differed from its recompute. */
  long failures() {
    return reps.stream().filter(m -> !m.correct()).count();
  }
}
