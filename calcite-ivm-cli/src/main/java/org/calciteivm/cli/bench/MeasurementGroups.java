package org.calciteivm.cli.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * A run's measurements as the summary and the charts aggregate them: grouped by view, refresh
 * timing, requested refresh mode, kind of change and delta size ({@link MeasurementGroup}).
 *
 * <p>Views, timings, modes and kinds keep the order in which they first appear in the measurements,
 * so that the report follows the order of the run; groups are sorted by view, then kind, then
 * ascending delta size, then timing, then mode, so that the timings and modes of one change sit
 * next to each other. Medians leave out values that are not finite (a ratio over a zero time, a
 * time that is NaN), and the median of a ratio is the median of the single repetitions' ratios, not
 * a ratio of medians.
 *
 * @param measurements the measurements in the given order
 * @param views the distinct views in order of first appearance
 * @param modes the distinct requested refresh modes in order of first appearance
 * @param timings the distinct refresh timings in order of first appearance
 * @param kinds the distinct kinds of change in order of first appearance
 * @param groups the groups, sorted
 */
record MeasurementGroups(
    List<Measurement> measurements,
    List<String> views,
    List<String> modes,
    List<String> timings,
    List<String> kinds,
    List<MeasurementGroup> groups) {

  /** What the repetitions of a group share; a new dimension of a run is one more component. */
  private record Key(
      String view, String requestedMode, String timing, String kind, double deltaFraction) {
    static Key of(Measurement m) {
      return new Key(m.view(), m.requestedMode(), m.timing(), m.kind(), m.deltaFraction());
    }
  }

  /** Copies the lists. */
  MeasurementGroups {
    measurements = List.copyOf(measurements);
    views = List.copyOf(views);
    modes = List.copyOf(modes);
    timings = List.copyOf(timings);
    kinds = List.copyOf(kinds);
    groups = List.copyOf(groups);
  }

  /**
   * Groups measurements.
   *
   * @param measurements the run's measurements, in any order; may be empty
   * @return the groups
   */
  static MeasurementGroups of(List<Measurement> measurements) {
    List<String> views = distinct(measurements, Measurement::view);
    List<String> modes = distinct(measurements, Measurement::requestedMode);
    List<String> timings = distinct(measurements, Measurement::timing);
    List<String> kinds = distinct(measurements, Measurement::kind);
    Map<Key, List<Measurement>> byKey = new LinkedHashMap<>();
    for (Measurement m : measurements) {
      byKey.computeIfAbsent(Key.of(m), k -> new ArrayList<>()).add(m);
    }
    List<MeasurementGroup> groups =
        byKey.keySet().stream()
            .sorted(
                Comparator.comparing((Key k) -> views.indexOf(k.view()))
                    .thenComparing(k -> kinds.indexOf(k.kind()))
                    .thenComparing(Key::deltaFraction)
                    .thenComparing(k -> timings.indexOf(k.timing()))
                    .thenComparing(k -> modes.indexOf(k.requestedMode())))
            .map(
                k ->
                    new MeasurementGroup(
                        k.view(),
                        k.requestedMode(),
                        k.timing(),
                        k.kind(),
                        k.deltaFraction(),
                        byKey.get(k)))
            .toList();
    return new MeasurementGroups(measurements, views, modes, timings, kinds, groups);
  }

  /**
   * Whether the report names the timings: if any is not {@code deferred}. A run of deferred views
   * only, like every run before the timings, is reported as before.
   */
  boolean showsTimings() {
    return timings.stream().anyMatch(t -> !t.equals(Timing.DEFERRED.label()));
  }

  /** The groups of one view, sorted by kind, delta size and mode. */
  List<MeasurementGroup> ofView(String view) {
    return groups.stream().filter(g -> g.view().equals(view)).toList();
  }

  /**
   * The groups of one view under one timing and one requested mode, sorted by kind and delta size.
   */
  List<MeasurementGroup> ofView(String view, String timing, String requestedMode) {
    return groups.stream()
        .filter(
            g ->
                g.view().equals(view)
                    && g.timing().equals(timing)
                    && g.requestedMode().equals(requestedMode))
        .toList();
  }

  /** The timings a view ran with, in the order of {@link #timings}. */
  List<String> timingsOf(String view) {
    return timings.stream().filter(timing -> !modesOf(view, timing).isEmpty()).toList();
  }

  /** The requested modes a view ran under with one timing, in the order of {@link #modes}. */
  List<String> modesOf(String view, String timing) {
    return modes.stream().filter(mode -> !ofView(view, timing, mode).isEmpty()).toList();
  }

  /** Whether every refresh of a view, under every mode, equalled its recompute. */
  boolean correct(String view) {
    return ofView(view).stream().allMatch(g -> g.failures() == 0);
  }

  /**
   * Whether every refresh of a view with one timing under one requested mode equalled its
   * recompute.
   */
  boolean correct(String view, String timing, String requestedMode) {
    return ofView(view, timing, requestedMode).stream().allMatch(g -> g.failures() == 0);
  }

  /** The median of a metric over measurements, leaving out values that are not finite; or NaN. */
  static double median(List<Measurement> measurements, ToDoubleFunction<Measurement> metric) {
    double[] values =
        measurements.stream().mapToDouble(metric).filter(Double::isFinite).sorted().toArray();
    int n = values.length;
    if (n == 0) {
      return Double.NaN;
    }
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  }

  /** The distinct values of a property in the order of their first appearance. */
  private static List<String> distinct(
      List<Measurement> measurements, Function<Measurement, String> property) {
    return List.copyOf(new LinkedHashSet<>(measurements.stream().map(property).toList()));
  }
}
