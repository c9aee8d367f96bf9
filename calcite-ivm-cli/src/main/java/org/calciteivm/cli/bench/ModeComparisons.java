package org.calciteivm.cli.bench;

import static org.calciteivm.cli.bench.MarkdownTable.appendHeader;
import static org.calciteivm.cli.bench.MarkdownTable.appendRow;
import static org.calciteivm.cli.bench.MarkdownTable.escape;
import static org.calciteivm.cli.bench.ReportFormats.NONE;
import static org.calciteivm.cli.bench.ReportFormats.decimal;
import static org.calciteivm.cli.bench.ReportFormats.overhead;
import static org.calciteivm.cli.bench.ReportFormats.percent;

import java.util.ArrayList;
import java.util.List;
import org.calciteivm.cli.bench.MarkdownTable.Column;

/**
 * The summary's sections that compare the same change run two ways: writes with the view immediate
 * against plain and deferred writes, and {@code auto}'s refreshes against the explicit modes'.
 */
final class ModeComparisons {
  /** The mode that chooses, compared with the explicit modes it chooses between. */
  private static final String AUTO = "auto";

  /** The modes {@link #AUTO} chooses between, in the order of the comparison's columns. */
  private static final List<String> EXPLICIT_MODES = List.of("incremental", "full");

  private static final String DEFERRED = Timing.DEFERRED.label();

  private static final String IMMEDIATE = Timing.IMMEDIATE.label();

  private final MeasurementGroups groups;

  ModeComparisons(MeasurementGroups groups) {
    this.groups = groups;
  }

  /**
   * Appends, if the run has immediate views, a section of what a write costs with them: one row per
   * view, kind, delta size (and requested mode if the run has several) with the medians of the
   * plain write (DuckDB without views), of the captured write with the view deferred (if that
   * timing ran too, under the same mode), of the write with the view immediate (captured and
   * maintained), of immediate − plain and of immediate / plain, the last two per repetition, whose
   * plain and immediate writes are of the same cycle.
   */
  void appendImmediateWrites(StringBuilder md) {
    boolean severalModes = groups.modes().size() > 1;
    boolean deferredRan = groups.timings().contains(DEFERRED);
    List<Column> columns =
        new ArrayList<>(List.of(Column.text("view"), Column.text("kind"), Column.numbers("delta")));
    if (severalModes) {
      columns.add(Column.text("requested mode"));
    }
    columns.add(Column.numbers("plain ms"));
    if (deferredRan) {
      columns.add(Column.numbers("deferred ms"));
    }
    columns.add(Column.numbers("immediate ms"));
    columns.add(Column.numbers("immediate − plain ms"));
    columns.add(Column.numbers("immediate / plain (x)"));
    StringBuilder table = new StringBuilder();
    appendHeader(table, columns);
    int rows = 0;
    for (MeasurementGroup immediate : groups.groups()) {
      if (!immediate.timing().equals(IMMEDIATE)) {
        continue;
      }
      List<String> row =
          new ArrayList<>(
              List.of(
                  escape(immediate.view()),
                  escape(immediate.kind()),
                  percent(immediate.deltaFraction())));
      if (severalModes) {
        row.add(escape(immediate.requestedMode()));
      }
      row.add(decimal(immediate.median(Measurement::plainDmlMillis)));
      if (deferredRan) {
        MeasurementGroup deferred = sameChange(immediate, DEFERRED, immediate.requestedMode());
        row.add(deferred == null ? NONE : decimal(deferred.median(Measurement::capturedDmlMillis)));
      }
      row.add(decimal(immediate.median(Measurement::capturedDmlMillis)));
      row.add(decimal(immediate.median(Measurement::captureCostMillis)));
      row.add(overhead(immediate.median(Measurement::captureOverhead)));
      appendRow(table, row);
      rows++;
    }
    if (rows == 0) {
      return;
    }
    md.append("\n## Writes with immediate views\n\n")
        .append("Median time in ms of the change's DML: *plain* on DuckDB without views;")
        .append(
            deferredRan ? " *deferred* captured by calcite-ivm, the view left to `REFRESH`;" : "")
        .append(" *immediate* captured and the view maintained before the write returned.")
        .append(" *immediate − plain* and *immediate / plain* are medians of the repetitions'")
        .append(" differences and ratios (the plain and the immediate write of one cycle).\n\n")
        .append(table);
  }

  /**
   * Appends, if any change (view, kind and delta size) ran under {@code auto} and under incremental
   * or full, a section comparing the median refresh times: a table of one row per such change, and
   * a line saying by how much {@code auto} was, at worst, slower than the best explicit mode. A
   * change whose refreshes under {@code auto} all found nothing pending is left out: {@code auto}
   * had nothing to choose, and the times of such refreshes, below a millisecond, are noise.
   */
  void appendAutoComparison(StringBuilder md) {
    List<Column> columns =
        new ArrayList<>(List.of(Column.text("view"), Column.text("kind"), Column.numbers("delta")));
    columns.add(Column.numbers(AUTO + " ms"));
    EXPLICIT_MODES.forEach(mode -> columns.add(Column.numbers(mode + " ms")));
    columns.add(Column.numbers(AUTO + " / best (x)"));
    StringBuilder table = new StringBuilder();
    appendHeader(table, columns);
    int rows = 0;
    double worst = Double.NaN;
    String worstChange = null;
    for (MeasurementGroup auto : groups.groups()) {
      if (!auto.requestedMode().equals(AUTO)
          || auto.reps().stream().allMatch(m -> m.mode().equals(Measurement.NO_REFRESH))) {
        continue;
      }
      List<MeasurementGroup> others =
          EXPLICIT_MODES.stream().map(mode -> sameChange(auto, auto.timing(), mode)).toList();
      if (others.stream().allMatch(g -> g == null)) {
        continue;
      }
      List<Double> explicit =
          others.stream()
              .map(g -> g == null ? Double.NaN : g.median(Measurement::refreshMillis))
              .toList();
      double autoMillis = auto.median(Measurement::refreshMillis);
      double best =
          explicit.stream().mapToDouble(d -> d).filter(Double::isFinite).min().orElse(Double.NaN);
      double ratio = autoMillis / best;
      String change =
          escape(auto.view()) + ", " + escape(auto.kind()) + ", " + percent(auto.deltaFraction());
      List<String> row =
          new ArrayList<>(
              List.of(
                  escape(auto.view()),
                  escape(auto.kind()),
                  percent(auto.deltaFraction()),
                  decimal(autoMillis)));
      explicit.forEach(millis -> row.add(decimal(millis)));
      row.add(overhead(ratio));
      appendRow(table, row);
      rows++;
      // the largest ratio; NaN (no finite time to compare) never replaces a number
      if (Double.isFinite(ratio) && !(ratio <= worst)) {
        worst = ratio;
        worstChange = change;
      }
    }
    if (rows == 0) {
      return;
    }
    md.append("\n## auto against the explicit modes\n\n")
        .append("Median refresh time in ms of each change that ran under `auto` and under")
        .append(" `incremental` or `full`; *auto / best*: auto's median / the faster explicit")
        .append(" mode's (below 1: auto was faster). Changes whose refreshes under `auto` found")
        .append(" nothing pending (an update of columns the view does not read) are left out.\n\n")
        .append(table)
        .append('\n');
    if (worstChange == null) {
      md.append("No finite refresh times to compare.\n");
    } else if (worst <= 1) {
      md.append("**auto as fast as the best explicit mode or faster** in every change compared")
          .append(" (largest ratio ")
          .append(overhead(worst))
          .append("x: ")
          .append(worstChange)
          .append(").\n");
    } else {
      md.append("**auto within ")
          .append(overhead(worst))
          .append("x of the best explicit mode** in every change compared (at worst: ")
          .append(worstChange)
          .append(").\n");
    }
  }

  /**
   * The group of the same view, kind and delta size as {@code g} with a timing and under a mode, or
   * null.
   */
  private MeasurementGroup sameChange(MeasurementGroup g, String timing, String requestedMode) {
    return groups.groups().stream()
        .filter(
            other ->
                other.requestedMode().equals(requestedMode)
                    && other.timing().equals(timing)
                    && other.view().equals(g.view())
                    && other.kind().equals(g.kind())
                    && other.deltaFraction() == g.deltaFraction())
        .findFirst()
        .orElse(null);
  }
}
