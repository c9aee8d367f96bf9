package org.calciteivm.cli.bench;

import static java.util.Objects.requireNonNull;
import static java.util.stream.Collectors.groupingBy;
import static java.util.stream.Collectors.toList;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.Paint;
import java.awt.RenderingHints;
import java.awt.Shape;
import java.awt.Stroke;
import java.awt.geom.Ellipse2D;
import java.awt.geom.Line2D;
import java.awt.geom.Rectangle2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.text.DecimalFormat;
import java.text.DecimalFormatSymbols;
import java.text.NumberFormat;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.IntSummaryStatistics;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.AxisState;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberTick;
import org.jfree.chart.axis.TickType;
import org.jfree.chart.axis.ValueTick;
import org.jfree.chart.block.LengthConstraintType;
import org.jfree.chart.block.RectangleConstraint;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.title.Title;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.RectangleEdge;
import org.jfree.chart.ui.Size2D;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.chart.util.ShapeUtils;
import org.jfree.data.Range;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The report of a benchmark run, written by {@link #write(Path)} into a directory:
 *
 * <ul>
 *   <li>{@value #CSV_FILE}: every measurement, one row each in the given order, with the derived
 *       speedup, rows per second and capture overhead ({@link MeasurementsCsv});
 *   <li>{@value #SUMMARY_FILE}: the run's context and tables of medians ({@link #markdown()});
 *   <li>{@value #REFRESH_TIME_CHART_FILE}: refresh and recompute time against the delta size, one
 *       panel per view, both axes logarithmic;
 *   <li>{@value #SPEEDUP_CHART_FILE}: speedup against the delta size, one panel per view, both axes
 *       logarithmic, with a reference line at 1x.
 * </ul>
 *
 * <p>The summary and the charts aggregate the repetitions of each view, kind of change and delta
 * size into medians. Values that are not finite (a ratio over a zero time, a time that is NaN) are
 * left out of a median, and the charts also leave out values that are not positive. The ratios
 * (speedup, rows per second, capture overhead) are medians of the ratios of the single repetitions,
 * not ratios of medians. Views and kinds keep the order in which they first appear in the
 * measurements; delta sizes ascend.
 *
 * <p>The charts are {@value #CHART_WIDTH} pixels wide: a header of {@value #HEADER_HEIGHT} pixels
 * (title and legend) above a grid of panels {@value #PANEL_HEIGHT} pixels high, 1 column for one
 * view, 2 for up to 4 views, 3 for up to 9 and 4 beyond. Loading this class sets {@code
 * java.awt.headless} to {@code true} unless it is set already.
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

  /** The width of the charts in pixels. */
  public static final int CHART_WIDTH = 1600;

  /** The height of the charts' header, the title and the legend, in pixels. */
  public static final int HEADER_HEIGHT = 90;

  /** The height of one view's panel in the charts, in pixels. */
  public static final int PANEL_HEIGHT = 450;

  /** The delta size of the compact speedup table, if the run has it. */
  private static final double COMPACT_DELTA_FRACTION = 0.001;

  private static final String NONE = "–";
  private static final String RECOMPUTE = "full recompute";

  private static final Font TITLE_FONT = new Font(Font.SANS_SERIF, Font.BOLD, 22);
  private static final Font PANEL_TITLE_FONT = new Font(Font.SANS_SERIF, Font.BOLD, 17);
  private static final Font LEGEND_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 16);
  private static final Font AXIS_LABEL_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 14);
  private static final Font TICK_LABEL_FONT = new Font(Font.SANS_SERIF, Font.PLAIN, 13);
  private static final Color GRID_COLOR = new Color(0xDDDDDD);
  private static final Color INCORRECT_COLOR = new Color(0xC00000);

  /**
   * Colours for the kinds of change: the Okabe-Ito palette, distinguishable by colour-blind eyes.
   */
  private static final List<Color> KIND_COLORS =
      List.of(
          new Color(0x0072B2),
          new Color(0xD55E00),
          new Color(0x009E73),
          new Color(0xCC79A7),
          new Color(0xE69F00),
          new Color(0x56B4E9),
          new Color(0x000000));

  private static final List<Shape> KIND_SHAPES =
      List.of(
          new Ellipse2D.Double(-5, -5, 10, 10),
          new Rectangle2D.Double(-4.5, -4.5, 9, 9),
          ShapeUtils.createUpTriangle(6),
          ShapeUtils.createDiamond(6),
          ShapeUtils.createDownTriangle(6));

  private static final Style RECOMPUTE_STYLE =
      new Style(
          new Color(0x444444),
          ShapeUtils.createDiagonalCross(5, 1.2f),
          new BasicStroke(
              2.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10, new float[] {8, 5}, 0));

  static {
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
  }

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
     * The context of a run today on this machine: the processor's model name from {@code
     * /proc/cpuinfo} (else the architecture), the processors available to the JVM, the physical
     * memory the JVM sees (a container's limit inside a container), the operating system, the
     * running Java, DuckDB's version from {@code SELECT version()} on an in-memory database, and
     * calcite-ivm's version from the jar manifest.
     *
     * @param scaleFactor the TPC-H scale factor of the generated data
     * @return the context
     */
    public static Context current(double scaleFactor) {
      OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
      long memory =
          os instanceof com.sun.management.OperatingSystemMXBean bean
              ? bean.getTotalMemorySize()
              : 0;
      return new Context(
          scaleFactor,
          LocalDate.now(),
          detectCpuModel(),
          Runtime.getRuntime().availableProcessors(),
          memory,
          os.getName() + " " + os.getVersion() + " (" + os.getArch() + ")",
          Runtime.version() + " (" + System.getProperty("java.vm.name", "unknown VM") + ")",
          detectDuckdbVersion(),
          detectCalciteIvmVersion());
    }

    private static String detectDuckdbVersion() {
      try (Connection connection = DriverManager.getConnection("jdbc:duckdb:");
          Statement statement = connection.createStatement();
          ResultSet version = statement.executeQuery("SELECT version()")) {
        return version.next() ? version.getString(1) : "unknown";
      } catch (SQLException e) {
        return "unknown";
      }
    }

    private static String detectCalciteIvmVersion() {
      String version = BenchReport.class.getPackage().getImplementationVersion();
      return version == null ? "development build" : version;
    }

    private static String detectCpuModel() {
      Path cpuinfo = Path.of("/proc/cpuinfo");
      if (Files.isReadable(cpuinfo)) {
        try (Stream<String> lines = Files.lines(cpuinfo)) {
          var model =
              lines
                  .filter(line -> line.startsWith("model name"))
                  .map(line -> line.substring(line.indexOf(':') + 1).strip())
                  .findFirst();
          if (model.isPresent()) {
            return model.get();
          }
        } catch (IOException | RuntimeException e) {
          // fall back to the architecture
        }
      }
      return System.getProperty("os.arch", "unknown");
    }
  }

  /** The repetitions of one kind of change of one size on one view. */
  private record Group(String view, String kind, double deltaFraction, List<Measurement> reps) {
    double median(ToDoubleFunction<Measurement> metric) {
      return BenchReport.median(reps, metric);
    }

    long failures() {
      return reps.stream().filter(m -> !m.correct()).count();
    }
  }

  /** How a series is drawn. */
  private record Style(Paint paint, Shape shape, Stroke stroke) {}

  private final Context context;
  private final List<Measurement> measurements;
  private final List<String> views;
  private final List<String> kinds;
  private final List<Group> groups;

  /**
   * Creates the report of a run.
   *
   * @param measurements the run's measurements, in any order; may be empty
   * @param context where and on what the run ran
   */
  public BenchReport(List<Measurement> measurements, Context context) {
    this.context = requireNonNull(context, "context");
    this.measurements = List.copyOf(measurements);
    this.views = distinct(this.measurements, Measurement::view);
    this.kinds = distinct(this.measurements, Measurement::kind);
    this.groups = group(this.measurements, views, kinds);
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
    writePng(refreshTimeChart(), dir.resolve(REFRESH_TIME_CHART_FILE));
    writePng(speedupChart(), dir.resolve(SPEEDUP_CHART_FILE));
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
   * The summary as a markdown document, the content of {@value #SUMMARY_FILE}: a level-1 title, the
   * run's context, a warning naming every incorrect refresh if there is one, the compact
   * {@linkplain #speedupTable() speedup table}, and the table of medians per view, kind and delta
   * size with notes on its columns.
   *
   * @return the markdown text, ending with a newline
   */
  public String markdown() {
    StringBuilder md = new StringBuilder("# calcite-ivm benchmark\n\n");
    appendContext(md);
    appendFailures(md);
    md.append("## Speedup\n\n")
        .append("Median speedup of `REFRESH MATERIALIZED VIEW` over recomputing the view,")
        .append(" per kind of change, at a change of 0.1% of the orders")
        .append(" (or a view's smallest change if it has no 0.1% change):\n\n")
        .append(speedupTable())
        .append('\n');
    md.append("## Medians\n\n").append(mediansTable()).append('\n');
    md.append(
        """
        Medians over the repetitions of each view, kind of change and delta size (the change as \
        a share of the orders). *speedup*: recompute time / refresh time; *rows/s*: changed \
        base-table rows / refresh time; *capture overhead*: the change's DML through calcite-ivm, \
        which captures it, / the same DML on plain DuckDB; *no-op refresh*: a refresh with \
        nothing to apply; *peak memory*: DuckDB's memory plus the JVM heap after the refresh; \
        *correct*: the refreshed view equalled its recompute in every repetition. Ratios are \
        medians of the repetitions' ratios. Values that are not finite (a ratio over a zero \
        time) are left out of the medians; – marks a median of none.
        """);
    return md.toString();
  }

  /**
   * The compact speedup table, one row per view, for embedding in a README: the median speedup per
   * kind of change and over all kinds, at a change of 0.1% of the orders, or at the view's smallest
   * change if it has none of 0.1%. A view with an incorrect refresh (at any size) is marked.
   *
   * @return the markdown table, ending with a newline
   */
  public String speedupTable() {
    List<String> header = new ArrayList<>(List.of("view", "delta"));
    kinds.forEach(kind -> header.add(kind + " (x)"));
    header.add("all kinds (x)");
    StringBuilder md = new StringBuilder();
    appendTableHeader(md, header);
    for (String view : views) {
      List<Group> viewGroups = groups.stream().filter(g -> g.view().equals(view)).toList();
      double size = compactDeltaFraction(viewGroups);
      List<String> row = new ArrayList<>();
      boolean correct = viewGroups.stream().allMatch(g -> g.failures() == 0);
      row.add(escape(view) + (correct ? "" : " **(incorrect)**"));
      row.add(percent(size));
      for (String kind : kinds) {
        row.add(
            viewGroups.stream()
                .filter(g -> g.kind().equals(kind) && g.deltaFraction() == size)
                .findFirst()
                .map(g -> speedup(g.median(Measurement::speedup)))
                .orElse(NONE));
      }
      List<Measurement> atSize =
          viewGroups.stream()
              .filter(g -> g.deltaFraction() == size)
              .flatMap(g -> g.reps().stream())
              .toList();
      row.add(speedup(median(atSize, Measurement::speedup)));
      appendTableRow(md, row);
    }
    return md.toString();
  }

  /** The table of medians per view, kind and delta size. */
  private String mediansTable() {
    StringBuilder md = new StringBuilder();
    appendTableHeader(
        md,
        List.of(
            "view",
            "kind",
            "delta",
            "changed rows",
            "refresh ms",
            "recompute ms",
            "speedup (x)",
            "rows/s",
            "captured DML ms",
            "plain DML ms",
            "capture overhead (x)",
            "no-op refresh ms",
            "peak memory MB",
            "correct"));
    for (Group g : groups) {
      long failures = g.failures();
      appendTableRow(
          md,
          List.of(
              escape(g.view()),
              escape(g.kind()),
              percent(g.deltaFraction()),
              count(g.median(Measurement::changedRows)),
              decimal(g.median(Measurement::refreshMillis)),
              decimal(g.median(Measurement::recomputeMillis)),
              speedup(g.median(Measurement::speedup)),
              decimal(g.median(Measurement::rowsPerSecond)),
              decimal(g.median(Measurement::capturedDmlMillis)),
              decimal(g.median(Measurement::plainDmlMillis)),
              overhead(g.median(Measurement::captureOverhead)),
              decimal(g.median(Measurement::noopRefreshMillis)),
              decimal(g.median(m -> m.peakMemoryBytes() / 1e6)),
              failures == 0
                  ? "yes"
                  : "**no** (" + failures + " of " + g.reps().size() + " failed)"));
    }
    return md.toString();
  }

  private void appendContext(StringBuilder md) {
    String memory =
        context.memoryBytes() > 0
            ? String.format(Locale.ROOT, "%.1f GiB", context.memoryBytes() / (double) (1L << 30))
            : "unknown";
    md.append("- **Scale factor:** ")
        .append(plain(context.scaleFactor()))
        .append("\n- **Date:** ")
        .append(context.date())
        .append("\n- **Machine:** ")
        .append(context.cpu())
        .append(", ")
        .append(context.cores())
        .append(context.cores() == 1 ? " core, " : " cores, ")
        .append(memory)
        .append(" memory, ")
        .append(context.os())
        .append("\n- **Java:** ")
        .append(context.javaVersion())
        .append("\n- **DuckDB:** ")
        .append(context.duckdbVersion())
        .append("\n- **calcite-ivm:** ")
        .append(context.calciteIvmVersion())
        .append("\n- **Repetitions:** ")
        .append(repetitions())
        .append(" per view, kind of change and delta size\n\n");
  }

  private void appendFailures(StringBuilder md) {
    List<String> failed =
        groups.stream()
            .filter(g -> g.failures() > 0)
            .map(
                g ->
                    String.format(
                        Locale.ROOT,
                        "%s, %s, %s (%d of %d repetitions)",
                        escape(g.view()),
                        escape(g.kind()),
                        percent(g.deltaFraction()),
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
    IntSummaryStatistics reps = groups.stream().mapToInt(g -> g.reps().size()).summaryStatistics();
    if (reps.getCount() == 0) {
      return "0";
    }
    return reps.getMin() == reps.getMax()
        ? Integer.toString(reps.getMax())
        : reps.getMin() + " to " + reps.getMax();
  }

  /** The chart of refresh and recompute times. */
  BufferedImage refreshTimeChart() {
    List<JFreeChart> panels = new ArrayList<>();
    for (String view : views) {
      XYSeriesCollection data = new XYSeriesCollection();
      XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
      for (String kind : kinds) {
        addSeries(
            data,
            renderer,
            kind,
            kindStyle(kind),
            kindPoints(view, kind, Measurement::refreshMillis));
      }
      addSeries(data, renderer, RECOMPUTE, RECOMPUTE_STYLE, recomputePoints(view));
      panels.add(panel(view, data, renderer, "time (ms)", Double.NaN));
    }
    List<LegendItem> legend = kindLegend();
    legend.add(legendItem(RECOMPUTE, RECOMPUTE_STYLE));
    return grid(
        "Refresh time against the size of the change: incremental refresh per kind of change,"
            + " and full recompute (medians)",
        legend,
        panels);
  }

  /** The chart of speedups. */
  BufferedImage speedupChart() {
    List<JFreeChart> panels = new ArrayList<>();
    for (String view : views) {
      XYSeriesCollection data = new XYSeriesCollection();
      XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
      for (String kind : kinds) {
        addSeries(
            data, renderer, kind, kindStyle(kind), kindPoints(view, kind, Measurement::speedup));
      }
      JFreeChart panel = panel(view, data, renderer, "speedup (x)", 1);
      ValueMarker one =
          new ValueMarker(
              1,
              Color.GRAY,
              new BasicStroke(
                  1.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10, new float[] {6, 4}, 0));
      one.setLabel("1x");
      one.setLabelFont(TICK_LABEL_FONT);
      one.setLabelPaint(Color.DARK_GRAY);
      one.setLabelBackgroundColor(new Color(0, true));
      one.setLabelAnchor(RectangleAnchor.TOP_RIGHT);
      one.setLabelTextAnchor(TextAnchor.BOTTOM_RIGHT);
      panel.getXYPlot().addRangeMarker(one);
      panels.add(panel);
    }
    return grid(
        "Speedup of incremental refresh over full recompute against the size of the change"
            + " (medians)",
        kindLegend(),
        panels);
  }

  /** The medians of a metric for one kind of change on one view, by delta size in percent. */
  private Map<Double, Double> kindPoints(
      String view, String kind, ToDoubleFunction<Measurement> metric) {
    Map<Double, Double> points = new TreeMap<>();
    for (Group g : groups) {
      if (g.view().equals(view) && g.kind().equals(kind)) {
        points.put(g.deltaFraction() * 100, g.median(metric));
      }
    }
    return points;
  }

  /** The median recompute time of a view over all kinds of change, by delta size in percent. */
  private Map<Double, Double> recomputePoints(String view) {
    Map<Double, List<Measurement>> bySize =
        measurements.stream()
            .filter(m -> m.view().equals(view))
            .collect(groupingBy(m -> m.deltaFraction() * 100, TreeMap::new, toList()));
    Map<Double, Double> points = new TreeMap<>();
    bySize.forEach((size, ms) -> points.put(size, median(ms, Measurement::recomputeMillis)));
    return points;
  }

  /** Adds a series of the points that a log scale can show, unless there are none. */
  private static void addSeries(
      XYSeriesCollection data,
      XYLineAndShapeRenderer renderer,
      String key,
      Style style,
      Map<Double, Double> points) {
    XYSeries series = new XYSeries(key);
    points.forEach(
        (x, y) -> {
          if (plottable(x) && plottable(y)) {
            series.add(x, y);
          }
        });
    if (series.isEmpty()) {
      return;
    }
    int index = data.getSeriesCount();
    data.addSeries(series);
    renderer.setSeriesPaint(index, style.paint());
    renderer.setSeriesShape(index, style.shape());
    renderer.setSeriesStroke(index, style.stroke());
  }

  /**
   * One view's panel: log-scaled delta size against a log-scaled value.
   *
   * @param include a value the value axis shows even without data there, or NaN
   */
  private JFreeChart panel(
      String view,
      XYSeriesCollection data,
      XYLineAndShapeRenderer renderer,
      String valueLabel,
      double include) {
    // all the view's sizes, so that the axis shows them even where no value can be plotted
    List<Double> xs =
        groups.stream()
            .filter(g -> g.view().equals(view))
            .map(g -> g.deltaFraction() * 100)
            .filter(BenchReport::plottable)
            .toList();
    List<Double> ys = new ArrayList<>();
    for (int s = 0; s < data.getSeriesCount(); s++) {
      for (int i = 0; i < data.getItemCount(s); i++) {
        ys.add(data.getYValue(s, i));
      }
    }
    if (!Double.isNaN(include)) {
      ys.add(include);
    }
    XYPlot plot =
        new XYPlot(data, logAxis("change (% of orders)", xs), logAxis(valueLabel, ys), renderer);
    plot.setBackgroundPaint(Color.WHITE);
    plot.setDomainGridlinePaint(GRID_COLOR);
    plot.setRangeGridlinePaint(GRID_COLOR);
    plot.setOutlinePaint(Color.GRAY);
    plot.setNoDataMessage("nothing to plot: no positive, finite values");
    plot.setNoDataMessageFont(AXIS_LABEL_FONT);
    boolean correct =
        groups.stream().filter(g -> g.view().equals(view)).allMatch(g -> g.failures() == 0);
    JFreeChart chart =
        new JFreeChart(
            correct ? view : view + " (incorrect results)", PANEL_TITLE_FONT, plot, false);
    chart.setBackgroundPaint(Color.WHITE);
    if (!correct) {
      chart.getTitle().setPaint(INCORRECT_COLOR);
    }
    return chart;
  }

  /** A log axis whose range covers the values with a margin. */
  private static LogAxis logAxis(String label, List<Double> values) {
    double min = values.stream().mapToDouble(Double::doubleValue).min().orElse(1);
    double max = values.stream().mapToDouble(Double::doubleValue).max().orElse(1);
    LogAxis axis = new LogScaleAxis(label);
    axis.setRange(new Range(min / 1.4, max * 1.4), true, false);
    axis.setLabelFont(AXIS_LABEL_FONT);
    axis.setTickLabelFont(TICK_LABEL_FONT);
    axis.setMinorTickMarksVisible(true);
    return axis;
  }

  /**
   * A logarithmic axis with ticks at 1 to 9 times the powers of ten. Over a wide range it labels
   * the powers of ten (every second or more of them beyond 8 decades), over up to 2.5 decades also
   * 2 and 5 times them, and over less than 0.7 decades every tick, so that a narrow range has
   * labels too.
   */
  private static final class LogScaleAxis extends LogAxis {
    private final NumberFormat format =
        new DecimalFormat("#,##0.####", DecimalFormatSymbols.getInstance(Locale.ROOT));

    LogScaleAxis(String label) {
      super(label);
    }

    @Override
    public List<ValueTick> refreshTicks(
        Graphics2D g2, AxisState state, Rectangle2D dataArea, RectangleEdge edge) {
      double lower = getLowerBound();
      double upper = getUpperBound();
      double decades = Math.log10(upper / lower);
      int decadeStep = Math.max(1, (int) Math.ceil(decades / 8));
      TextAnchor anchor;
      if (edge == RectangleEdge.TOP) {
        anchor = TextAnchor.BOTTOM_CENTER;
      } else if (edge == RectangleEdge.BOTTOM) {
        anchor = TextAnchor.TOP_CENTER;
      } else if (edge == RectangleEdge.LEFT) {
        anchor = TextAnchor.CENTER_RIGHT;
      } else {
        anchor = TextAnchor.CENTER_LEFT;
      }
      List<ValueTick> ticks = new ArrayList<>();
      for (int exponent = (int) Math.floor(Math.log10(lower));
          exponent <= Math.ceil(Math.log10(upper));
          exponent++) {
        for (int multiple = 1; multiple <= 9; multiple++) {
          // via BigDecimal, so that 3 * 10^-2 is 0.03 and not 0.030000000000000002
          double value = new BigDecimal(multiple).scaleByPowerOfTen(exponent).doubleValue();
          if (value < lower || value > upper) {
            continue;
          }
          boolean labelled =
              decades < 0.7
                  || decades <= 2.5 && (multiple == 1 || multiple == 2 || multiple == 5)
                  || multiple == 1 && Math.floorMod(exponent, decadeStep) == 0;
          ticks.add(
              new NumberTick(
                  labelled ? TickType.MAJOR : TickType.MINOR,
                  value,
                  labelled ? format.format(value) : "",
                  anchor,
                  anchor,
                  0));
        }
      }
      return ticks;
    }
  }

  /** Draws the title, the legend and the panels in a grid. */
  private static BufferedImage grid(
      String title, List<LegendItem> legend, List<JFreeChart> panels) {
    int columns = gridColumns(panels.size());
    double panelWidth = (double) CHART_WIDTH / columns;
    BufferedImage image =
        new BufferedImage(CHART_WIDTH, chartHeight(panels.size()), BufferedImage.TYPE_INT_RGB);
    Graphics2D g2 = image.createGraphics();
    try {
      g2.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
      g2.setRenderingHint(
          RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g2.setPaint(Color.WHITE);
      g2.fillRect(0, 0, image.getWidth(), image.getHeight());
      drawCentered(g2, new TextTitle(title, TITLE_FONT), 6, 38);
      LegendItemCollection items = new LegendItemCollection();
      legend.forEach(items::add);
      LegendTitle legendTitle = new LegendTitle(() -> items);
      legendTitle.setItemFont(LEGEND_FONT);
      drawCentered(g2, legendTitle, 44, HEADER_HEIGHT - 44);
      for (int i = 0; i < panels.size(); i++) {
        panels
            .get(i)
            .draw(
                g2,
                new Rectangle2D.Double(
                    i % columns * panelWidth,
                    HEADER_HEIGHT + i / columns * PANEL_HEIGHT,
                    panelWidth,
                    PANEL_HEIGHT));
      }
    } finally {
      g2.dispose();
    }
    return image;
  }

  /** Draws a title centred in a horizontal band of the chart. */
  private static void drawCentered(Graphics2D g2, Title title, double top, double height) {
    Size2D size =
        title.arrange(
            g2,
            new RectangleConstraint(
                CHART_WIDTH,
                new Range(0, CHART_WIDTH),
                LengthConstraintType.RANGE,
                height,
                new Range(0, height),
                LengthConstraintType.RANGE));
    title.draw(
        g2,
        new Rectangle2D.Double(
            (CHART_WIDTH - size.getWidth()) / 2,
            top + (height - size.getHeight()) / 2,
            size.getWidth(),
            size.getHeight()));
  }

  /** The columns of the grid of a chart with this many panels. */
  static int gridColumns(int panels) {
    return panels <= 1 ? 1 : panels <= 4 ? 2 : panels <= 9 ? 3 : 4;
  }

  /** The height in pixels of a chart with this many panels. */
  static int chartHeight(int panels) {
    int columns = gridColumns(panels);
    return HEADER_HEIGHT + (panels + columns - 1) / columns * PANEL_HEIGHT;
  }

  private List<LegendItem> kindLegend() {
    List<LegendItem> items = new ArrayList<>();
    kinds.forEach(kind -> items.add(legendItem(kind, kindStyle(kind))));
    return items;
  }

  private static LegendItem legendItem(String label, Style style) {
    return new LegendItem(
        label,
        null,
        null,
        null,
        true,
        style.shape(),
        true,
        style.paint(),
        false,
        style.paint(),
        style.stroke(),
        true,
        new Line2D.Double(-14, 0, 14, 0),
        style.stroke(),
        style.paint());
  }

  private Style kindStyle(String kind) {
    int index = kinds.indexOf(kind);
    return new Style(
        KIND_COLORS.get(index % KIND_COLORS.size()),
        KIND_SHAPES.get(index % KIND_SHAPES.size()),
        new BasicStroke(2.5f));
  }

  private static void writePng(BufferedImage image, Path file) throws IOException {
    if (!ImageIO.write(image, "png", file.toFile())) {
      throw new IOException("no PNG writer for " + file);
    }
  }

  /** The delta size of a view's row in the compact table. */
  private static double compactDeltaFraction(List<Group> viewGroups) {
    return viewGroups.stream()
        .mapToDouble(Group::deltaFraction)
        .filter(f -> Math.abs(f - COMPACT_DELTA_FRACTION) < 1e-12)
        .findFirst()
        .orElse(viewGroups.stream().mapToDouble(Group::deltaFraction).min().orElse(Double.NaN));
  }

  /** The distinct values of a property in the order of their first appearance. */
  private static List<String> distinct(
      List<Measurement> measurements, Function<Measurement, String> property) {
    return List.copyOf(new LinkedHashSet<>(measurements.stream().map(property).toList()));
  }

  /** Groups measurements by view, kind and delta size, ordered by those. */
  private static List<Group> group(
      List<Measurement> measurements, List<String> views, List<String> kinds) {
    record Key(String view, String kind, double deltaFraction) {}
    Map<Key, List<Measurement>> byKey = new LinkedHashMap<>();
    for (Measurement m : measurements) {
      byKey
          .computeIfAbsent(new Key(m.view(), m.kind(), m.deltaFraction()), k -> new ArrayList<>())
          .add(m);
    }
    return byKey.entrySet().stream()
        .sorted(
            Comparator.comparing(
                    (Map.Entry<Key, List<Measurement>> e) -> views.indexOf(e.getKey().view()))
                .thenComparing(e -> kinds.indexOf(e.getKey().kind()))
                .thenComparing(e -> e.getKey().deltaFraction()))
        .map(
            e ->
                new Group(
                    e.getKey().view(),
                    e.getKey().kind(),
                    e.getKey().deltaFraction(),
                    List.copyOf(e.getValue())))
        .toList();
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

  private static boolean plottable(double value) {
    return Double.isFinite(value) && value > 0;
  }

  /** A number as a decimal without exponent that reads back as the same double. */
  static String plain(double value) {
    return value == 0 ? "0" : BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  /** A fraction as a percentage, e.g. {@code 0.1%}. */
  private static String percent(double fraction) {
    if (!Double.isFinite(fraction)) {
      return NONE;
    }
    if (fraction == 0) {
      return "0%";
    }
    return BigDecimal.valueOf(fraction * 100)
            .round(new MathContext(3))
            .stripTrailingZeros()
            .toPlainString()
        + "%";
  }

  /** A time, rate or size: one decimal below 100, else a whole number with grouped digits. */
  private static String decimal(double value) {
    if (!Double.isFinite(value)) {
      return NONE;
    }
    double rounded = Math.round(value * 10) / 10.0;
    return Math.abs(rounded) < 100
        ? String.format(Locale.ROOT, "%.1f", rounded)
        : String.format(Locale.ROOT, "%,.0f", value);
  }

  /** A count: whole with grouped digits, one decimal if a median fell between two counts. */
  private static String count(double value) {
    if (!Double.isFinite(value)) {
      return NONE;
    }
    return value == Math.rint(value)
        ? String.format(Locale.ROOT, "%,.0f", value)
        : String.format(Locale.ROOT, "%,.1f", value);
  }

  /** A speedup: one decimal from 1 up, two significant digits below 1 (a slowdown). */
  private static String speedup(double value) {
    if (!Double.isFinite(value)) {
      return NONE;
    }
    return Math.abs(value) >= 0.995 || value == 0
        ? String.format(Locale.ROOT, "%,.1f", value)
        : BigDecimal.valueOf(value).round(new MathContext(2)).toPlainString();
  }

  /** A capture overhead, near 1: two decimals. */
  private static String overhead(double value) {
    return Double.isFinite(value) ? String.format(Locale.ROOT, "%.2f", value) : NONE;
  }

  private static String escape(String cell) {
    return cell.replace("|", "\\|").replace("\n", " ");
  }

  private static void appendTableHeader(StringBuilder md, List<String> header) {
    appendTableRow(md, header);
    md.append('|');
    for (int i = 0; i < header.size(); i++) {
      // the names (view, kind) and "correct" left, the numbers right
      boolean text = i < 2 && !header.get(i).equals("delta") || header.get(i).equals("correct");
      md.append(text ? "---|" : "---:|");
    }
    md.append('\n');
  }

  private static void appendTableRow(StringBuilder md, List<String> cells) {
    md.append("| ").append(String.join(" | ", cells)).append(" |\n");
  }
}
