package org.calciteivm.cli.bench;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.List;

/**
 * The report of a benchmark run, written by {@link #write(Path)} into a directory:
 *
 * <ul>
 *   <li>{@value #CSV_FILE}: every measurement, one row each in the given order, with the derived
 *       refresh overhead, speedup, rows per second and capture overhead ({@link MeasurementsCsv});
 *   <li>{@value #SUMMARY_FILE}: the run's context and tables of medians ({@link #markdown()});
 *   <li>{@value #REFRESH_TIME_CHART_FILE}: refresh and recompute time against the delta size, one
 *       panel per view, both axes logarithmic;
 *   <li>{@value #SPEEDUP_CHART_FILE}: speedup against the delta size, one panel per view, both axes
 *       logarithmic, with a reference line at 1x ({@link BenchCharts} draws both).
 * </ul>
 *
 * <p>The summary and the charts aggregate the repetitions of each view, refresh timing, requested
 * refresh mode, kind of change and delta size into medians ({@link MeasurementGroups}); views,
 * timings, modes and kinds keep the order in which they first appear in the measurements, delta
 * sizes ascend.
 */
public final class BenchReport {
  /** The file name of the measurements as CSV. */
  public static final String CSV_FILE = "measurements.csv";

  /** The file name of the markdown summary. */
  public static final String SUMMARY_FILE = "summary.md";

  /** The file name of the chart of refresh and recompute times. */
  public static final String REFRESH_TIME_CHART_FILE = "refresh-time.png";

  /** The file name of the chart of speedups. */
  public static final String SPEEDUP_CHART_FILE = "speedup.png";

  /**
   * Where and on what a benchmark ran, shown at the top of the summary.
   *
   * @param scaleFactor the TPC-H scale factor of the generated data
   * @param date the day of the run
   * @param cpu the processor's model name
   * @param cores the processors available to the JVM
   * @param memoryBytes the machine's physical memory, or 0 if unknown
   * @param os the operating system, its version and architecture
   * @param javaVersion the Java runtime's version
   * @param duckdbVersion DuckDB's version
   * @param calciteIvmVersion calcite-ivm's version
   */
  public record Context(
      double scaleFactor,
      LocalDate date,
      String cpu,
      int cores,
      long memoryBytes,
      String os,
      String javaVersion,
      String duckdbVersion,
      String calciteIvmVersion) {

    /** Checks that no component is null. */
    public Context {
      requireNonNull(date, "date");
      requireNonNull(cpu, "cpu");
      requireNonNull(os, "os");
      requireNonNull(javaVersion, "javaVersion");
      requireNonNull(duckdbVersion, "duckdbVersion");
      requireNonNull(calciteIvmVersion, "calciteIvmVersion");
    }

    /**
     * The context of a run today on this machine ({@link ContextProbe#current} says from where).
     *
     * @param scaleFactor the TPC-H scale factor of the generated data
     * @return the context
     */
    public static Context current(double scaleFactor) {
      return ContextProbe.current(scaleFactor);
    }
  }

  private final List<Measurement> measurements;
  private final SummaryMarkdown summary;
  private final BenchCharts charts;

  /**
   * Creates the report of a run.
   *
   * @param measurements the run's measurements, in any order; may be empty
   * @param context where and on what the run ran
   */
  public BenchReport(List<Measurement> measurements, Context context) {
    requireNonNull(context, "context");
    this.measurements = List.copyOf(measurements);
    MeasurementGroups groups = MeasurementGroups.of(this.measurements);
    this.summary = new SummaryMarkdown(context, groups);
    this.charts = new BenchCharts(groups);
  }

  /**
   * Writes the report of a run into a directory: {@code new BenchReport(measurements,
   * context).write(dir)}.
   *
   * @param measurements the run's measurements, in any order; may be empty
   * @param context where and on what the run ran
   * @param dir the directory, created if need be
   * @throws IOException if a file cannot be written
   */
  public static void write(List<Measurement> measurements, Context context, Path dir)
      throws IOException {
    new BenchReport(measurements, context).write(dir);
  }

  /**
   * Writes {@value #CSV_FILE}, {@value #SUMMARY_FILE}, {@value #REFRESH_TIME_CHART_FILE} and
   * {@value #SPEEDUP_CHART_FILE} into a directory, creating it if need be and replacing files of
   * those names.
   *
   * @param dir the directory
   * @throws IOException if a file cannot be written
   */
  public void write(Path dir) throws IOException {
    Files.createDirectories(dir);
    MeasurementsCsv.write(measurements, dir.resolve(CSV_FILE));
    Files.writeString(dir.resolve(SUMMARY_FILE), markdown(), StandardCharsets.UTF_8);
    charts.write(dir);
  }

  /**
   * The measurements as CSV, the content of {@value #CSV_FILE} ({@link MeasurementsCsv}).
   *
   * @return the CSV text
   */
  public String csv() {
    return MeasurementsCsv.toCsv(measurements);
  }

  /**
   * The summary as a markdown document, the content of {@value #SUMMARY_FILE} ({@link
   * SummaryMarkdown}).
   *
   * @return the markdown text, ending with a newline
   */
  public String markdown() {
    return summary.document();
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
  public String speedupTable() {
    return summary.speedupTable();
  }
}
