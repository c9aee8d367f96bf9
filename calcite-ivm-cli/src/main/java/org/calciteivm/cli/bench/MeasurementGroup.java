package org.calciteivm.cli.bench;

import java.util.List;
import java.util.function.ToDoubleFunction;

/**
 * The repetitions of one kind of change of one size on one view under one refresh timing and one
 * refresh mode: what the summary and the charts aggregate into medians.
 *
 * @param view the view's short name
 * @param requestedMode the {@code ivm_refresh_mode} the repetitions ran under
 * @param timing the view's refresh timing, {@code deferred} or {@code immediate}
 * @param kind the kind of change
 * @param deltaFraction the size of the change as a fraction of the orders
 * @param reps the repetitions, at least one
 */
record MeasurementGroup(
    String view,
    String requestedMode,
    String timing,
    String kind,
    double deltaFraction,
    List<Measurement> reps) {
  /** What a refresh can have done, in the order the summary lists them. */
  private static final List<String> MODES = List.of("incremental", "full", Measurement.NO_REFRESH);

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

  /**
   * What the repetitions' refreshes did: the mode if they all did the same ({@code incremental}),
   * else each mode with its count ({@code incremental 3 / full 2}), in the order incremental, full,
   * none, then any other.
   */
  String modesTaken() {
    List<String> taken =
        reps.stream()
            .map(Measurement::mode)
            .distinct()
            .sorted(
                (a, b) ->
                    Integer.compare(
                        MODES.contains(a) ? MODES.indexOf(a) : MODES.size(),
                        MODES.contains(b) ? MODES.indexOf(b) : MODES.size()))
            .toList();
    if (taken.size() == 1) {
      return taken.get(0);
    }
    return String.join(
        " / ",
        taken.stream()
            .map(mode -> mode + " " + reps.stream().filter(m -> m.mode().equals(mode)).count())
            .toList());
  }
}
