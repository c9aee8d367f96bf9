package org.calciteivm.cli.bench;

import static org.calciteivm.cli.bench.MarkdownTable.appendHeader;
import static org.calciteivm.cli.bench.MarkdownTable.appendRow;
import static org.calciteivm.cli.bench.MarkdownTable.escape;
import static org.calciteivm.cli.bench.ReportFormats.NONE;
import static org.calciteivm.cli.bench.ReportFormats.count;
import static org.calciteivm.cli.bench.ReportFormats.decimal;
import static org.calciteivm.cli.bench.ReportFormats.overhead;
import static org.calciteivm.cli.bench.ReportFormats.percent;
import static org.calciteivm.cli.bench.ReportFormats.plain;
import static org.calciteivm.cli.bench.ReportFormats.speedup;

import java.util.ArrayList;
import java.util.IntSummaryStatistics;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import org.calciteivm.cli.bench.BenchReport.Context;
import org.calciteivm.cli.bench.MarkdownTable.Column;

/**
 * The summary of a run as markdown ({@value BenchReport#SUMMARY_FILE}): a level-1 title, the run's
 * context, a warning naming every incorrect refresh if there is one, the compact {@linkplain
 * #speedupTable() speedup table}, the table of medians per view, kind, delta size, refresh timing
 * and requested refresh mode with notes on its columns, if the run has immediate views what their
 * writes cost against the plain and the deferred writes, and, if the run has {@code auto} and an
 * explicit mode for the same change, how {@code auto}'s refresh time compares with the explicit
 * modes'.
 *
 * <p>The timing is named (a column, a line of context) only if the run has a timing other than
 * {@code deferred}: a run of deferred views reads as runs did before the timings.
 */
final class SummaryMarkdown {
  /** The delta size of the compact speedup table, if the run has it. */
  private static final double COMPACT_DELTA_FRACTION = 0.001;

  /**
   * A column of the table of medians: a new column of the summary is one more entry in {@link
   * #MEDIANS}.
   *
   * @param column its title and alignment
   * @param cell the cell of a group
   */
  private record MedianColumn(Column column, Function<MeasurementGroup, String> cell) {}

  /** The column of the timing, left out of a run of deferred views only. */
  private static final MedianColumn TIMING_MEDIAN =
      new MedianColumn(Column.text("timing"), g -> escape(g.timing()));

  private static final List<MedianColumn> MEDIANS =
      List.of(
          new MedianColumn(Column.text("view"), g -> escape(g.view())),
          new MedianColumn(Column.text("kind"), g -> escape(g.kind())),
          new MedianColumn(Column.numbers("delta"), g -> percent(g.deltaFraction())),
          new MedianColumn(Column.text("requested mode"), g -> escape(g.requestedMode())),
          TIMING_MEDIAN,
          new MedianColumn(
              Column.numbers("changed rows"), g -> count(g.median(Measurement::changedRows))),
          new MedianColumn(
              Column.numbers("refresh ms"), g -> decimal(g.median(Measurement::refreshMillis))),
          new MedianColumn(
              Column.numbers("overhead ms"), g -> decimal(g.median(Measurement::overheadMillis))),
          new MedianColumn(Column.text("mode"), g -> escape(g.modesTaken())),
          new MedianColumn(
              Column.numbers("recompute ms"), g -> decimal(g.median(Measurement::recomputeMillis))),
          new MedianColumn(
              Column.numbers("speedup (x)"), g -> speedup(g.median(Measurement::speedup))),
          new MedianColumn(
              Column.numbers("rows/s"), g -> decimal(g.median(Measurement::rowsPerSecond))),
          new MedianColumn(
              Column.numbers("captured DML ms"),
              g -> decimal(g.median(Measurement::capturedDmlMillis))),
          new MedianColumn(
              Column.numbers("plain DML ms"), g -> decimal(g.median(Measurement::plainDmlMillis))),
          new MedianColumn(
              Column.numbers("capture overhead (x)"),
              g -> overhead(g.median(Measurement::captureOverhead))),
          new MedianColumn(
              Column.numbers("no-op refresh ms"),
              g -> decimal(g.median(Measurement::noopRefreshMillis))),
          new MedianColumn(
              Column.numbers("peak memory MB"),
              g -> decimal(g.median(m -> m.peakMemoryBytes() / 1e6))),
          new MedianColumn(Column.text("correct"), SummaryMarkdown::correctness));

  /** A line of the run's context at the top of the summary. */
  private record Fact(String label, String value) {}

  private final Context context;
  private final MeasurementGroups groups;

  SummaryMarkdown(Context context, MeasurementGroups groups) {
    this.context = context;
    this.groups = groups;
  }

  /** The summary, ending with a newline. */
  String document() {
    StringBuilder md = new StringBuilder("# calcite-ivm benchmark\n\n");
    appendContext(md);
    appendFailures(md);
    md.append("## Speedup\n\n")
        .append("Median speedup of `REFRESH MATERIALIZED VIEW` over recomputing the view,")
        .append(" per kind of change, at a change of 0.1% of the orders")
        .append(" (or a view's smallest change if it has no 0.1% change)")
        .append(perRow())
        .append(":\n\n")
        .append(speedupTable())
        .append('\n');
    if (groups.showsTimings()) {
      md.append(
          """
          With immediate views the write maintains the view and the `REFRESH` after it finds \
          nothing pending: their refresh times and speedups are those of an empty refresh; what \
          the write costs is in *Writes with immediate views* below.

          """);
    }
    md.append("## Medians\n\n").append(mediansTable()).append('\n');
    md.append(
        """
        Medians over the repetitions of each view, kind of change, delta size (the change as a \
        share of the orders) and *requested mode* (the `ivm_refresh_mode` the refreshes ran \
        under). *overhead*: refresh time − merge time (`ivm_views.last_merge_ms`, the merge or \
        recompute statements), so the statements around the merge, the commit and the round \
        trip; a refresh that found nothing \
        pending is all overhead; *mode*: what the refreshes did \
        (`ivm_views.last_refresh_mode`): `incremental`, `full`, or `none` if nothing was \
        pending, with how many repetitions did each if they differ (`incremental 2 / full 1`); \
        *speedup*: recompute time / refresh time; *rows/s*: changed base-table rows / refresh \
        time; *capture overhead*: the change's DML through calcite-ivm, which captures it, / the \
        same DML on plain DuckDB; *no-op refresh*: a refresh with nothing to apply; *peak \
        memory*: DuckDB's memory plus the JVM heap after the refresh; *correct*: the refreshed \
        view equalled its recompute in every repetition. Ratios are medians of the repetitions' \
        ratios. Values that are not finite (a ratio over a zero time, a merge time a file \
        written before the refresh modes lacks) are left out of the medians; – marks a median \
        of none.
        """);
    if (groups.showsTimings()) {
      // a paragraph of its own after the notes above
      md.append(
          """

          *timing*: the view's `refresh` option; `immediate`: every captured write maintained \
          the view before it returned, so the captured DML time includes the maintenance, the \
          view was compared with its recompute right after the write, before any `REFRESH`, and \
          the refresh after it found nothing pending (mode `none`).
          """);
    }
    ModeComparisons comparisons = new ModeComparisons(groups);
    comparisons.appendImmediateWrites(md);
    comparisons.appendAutoComparison(md);
    return md.toString();
  }

  /**
   * The compact speedup table, one row per view, for embedding in a README: the median speedup per
   * kind of change and over all kinds, at a change of 0.1% of the orders, or at the view's smallest
   * change if it has none of 0.1%. If the run has several requested refresh modes, one row per view
   * and mode, with a column naming the mode. A row with an incorrect refresh (at any size) is
   * marked.
   *
   * @return the markdown table, ending with a newline
   */
  String speedupTable() {
    boolean severalModes = groups.modes().size() > 1;
    boolean timings = groups.showsTimings();
    List<Column> columns = new ArrayList<>(List.of(Column.text("view")));
    if (timings) {
      columns.add(Column.text("timing"));
    }
    if (severalModes) {
      columns.add(Column.text("requested mode"));
    }
    columns.add(Column.numbers("delta"));
    groups.kinds().forEach(kind -> columns.add(Column.numbers(kind + " (x)")));
    columns.add(Column.numbers("all kinds (x)"));
    StringBuilder md = new StringBuilder();
    appendHeader(md, columns);
    for (String view : groups.views()) {
      for (String timing : groups.timingsOf(view)) {
        for (String mode : groups.modesOf(view, timing)) {
          List<MeasurementGroup> rowGroups = groups.ofView(view, timing, mode);
          double size = compactDeltaFraction(rowGroups);
          List<String> row = new ArrayList<>();
          row.add(escape(view) + (groups.correct(view, timing, mode) ? "" : " **(incorrect)**"));
          if (timings) {
            row.add(escape(timing));
          }
          if (severalModes) {
            row.add(escape(mode));
          }
          row.add(percent(size));
          for (String kind : groups.kinds()) {
            row.add(
                rowGroups.stream()
                    .filter(g -> g.kind().equals(kind) && g.deltaFraction() == size)
                    .findFirst()
                    .map(g -> speedup(g.median(Measurement::speedup)))
                    .orElse(NONE));
          }
          List<Measurement> atSize =
              rowGroups.stream()
                  .filter(g -> g.deltaFraction() == size)
                  .flatMap(g -> g.reps().stream())
                  .toList();
          row.add(speedup(MeasurementGroups.median(atSize, Measurement::speedup)));
          appendRow(md, row);
        }
      }
    }
    return md.toString();
  }

  /** How the compact table's rows are split, said after "per kind of change ...". */
  private String perRow() {
    boolean severalModes = groups.modes().size() > 1;
    if (groups.showsTimings()) {
      return severalModes
          ? ", per view, refresh timing and requested refresh mode"
          : ", per view and refresh timing";
    }
    return severalModes ? ", per view and requested refresh mode" : "";
  }

  /** The table of medians per view, kind, delta size, timing and requested mode. */
  private String mediansTable() {
    List<MedianColumn> columns =
        MEDIANS.stream().filter(c -> c != TIMING_MEDIAN || groups.showsTimings()).toList();
    StringBuilder md = new StringBuilder();
    appendHeader(md, columns.stream().map(MedianColumn::column).toList());
    for (MeasurementGroup g : groups.groups()) {
      appendRow(md, columns.stream().map(c -> c.cell().apply(g)).toList());
    }
    return md.toString();
  }

  /** Whether every repetition of a group was correct, else how many failed. */
  private static String correctness(MeasurementGroup g) {
    long failures = g.failures();
    return failures == 0 ? "yes" : "**no** (" + failures + " of " + g.reps().size() + " failed)";
  }

  private void appendContext(StringBuilder md) {
    String memory =
        context.memoryBytes() > 0
            ? String.format(Locale.ROOT, "%.1f GiB", context.memoryBytes() / (double) (1L << 30))
            : "unknown";
    String machine =
        context.cpu()
            + ", "
            + context.cores()
            + (context.cores() == 1 ? " core, " : " cores, ")
            + memory
            + " memory, "
            + context.os();
    boolean timings = groups.showsTimings();
    List<Fact> facts =
        new ArrayList<>(
            List.of(
                new Fact("Scale factor", plain(context.scaleFactor())),
                new Fact("Date", context.date().toString()),
                new Fact("Machine", machine),
                new Fact("Java", context.javaVersion()),
                new Fact("DuckDB", context.duckdbVersion()),
                new Fact("calcite-ivm", context.calciteIvmVersion()),
                new Fact("Refresh modes", quotedList(groups.modes()))));
    if (timings) {
      facts.add(new Fact("Refresh timings", quotedList(groups.timings())));
    }
    facts.add(
        new Fact(
            "Repetitions",
            repetitions()
                + (timings ? " per view, timing," : " per view,")
                + " requested mode, kind of change and delta size"));
    for (Fact fact : facts) {
      md.append("- **").append(fact.label()).append(":** ").append(fact.value()).append('\n');
    }
    md.append('\n');
  }

  /** Values as a list of code spans, {@code `auto`, `full`}, or {@value ReportFormats#NONE}. */
  private static String quotedList(List<String> values) {
    return values.isEmpty()
        ? NONE
        : String.join(", ", values.stream().map(v -> "`" + v + "`").toList());
  }

  private void appendFailures(StringBuilder md) {
    boolean timings = groups.showsTimings();
    List<String> failed =
        groups.groups().stream()
            .filter(g -> g.failures() > 0)
            .map(
                g ->
                    String.format(
                        Locale.ROOT,
                        "%s, %s, %s, %s%s (%d of %d repetitions)",
                        escape(g.view()),
                        escape(g.kind()),
                        percent(g.deltaFraction()),
                        timings ? escape(g.timing()) + ", " : "",
                        escape(g.requestedMode()),
                        g.failures(),
                        g.reps().size()))
            .toList();
    if (!failed.isEmpty()) {
      md.append("> **Warning:** a refreshed view differed from its recompute: ")
          .append(String.join("; ", failed))
          .append(".\n\n");
    }
  }

  /** The number of repetitions per group, or its range if it varies. */
  private String repetitions() {
    IntSummaryStatistics reps =
        groups.groups().stream().mapToInt(g -> g.reps().size()).summaryStatistics();
    if (reps.getCount() == 0) {
      return "0";
    }
    return reps.getMin() == reps.getMax()
        ? Integer.toString(reps.getMax())
        : reps.getMin() + " to " + reps.getMax();
  }

  /** The delta size of a view's row in the compact table. */
  private static double compactDeltaFraction(List<MeasurementGroup> viewGroups) {
    return viewGroups.stream()
        .mapToDouble(MeasurementGroup::deltaFraction)
        .filter(f -> Math.abs(f - COMPACT_DELTA_FRACTION) < 1e-12)
        .findFirst()
        .orElse(
            viewGroups.stream()
                .mapToDouble(MeasurementGroup::deltaFraction)
                .min()
                .orElse(Double.NaN));
  }
}
