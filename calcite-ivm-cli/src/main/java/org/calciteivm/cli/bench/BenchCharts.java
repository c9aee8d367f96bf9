package org.calciteivm.cli.bench;

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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import javax.imageio.ImageIO;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.LegendItem;
import org.jfree.chart.LegendItemCollection;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.block.LengthConstraintType;
import org.jfree.chart.block.RectangleConstraint;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.chart.title.LegendTitle;
import org.jfree.chart.title.TextTitle;
import org.jfree.chart.title.Title;
import org.jfree.chart.ui.RectangleAnchor;
import org.jfree.chart.ui.Size2D;
import org.jfree.chart.ui.TextAnchor;
import org.jfree.chart.util.ShapeUtils;
import org.jfree.data.Range;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;

/**
 * The report's charts ({@value BenchReport#REFRESH_TIME_CHART_FILE}, {@value
 * BenchReport#SPEEDUP_CHART_FILE}), drawn with jfreechart: a value against the delta size, one
 * panel per view, both axes logarithmic, one series per kind of change. If the run has several
 * requested refresh modes, one panel per view and mode (titled {@code q1, full}), in the order of
 * the run, so that a mode's times are never mixed with another's; likewise one panel per timing if
 * the run has immediate views ({@code q1, immediate}).
 *
 * <p>The points are the medians of {@link MeasurementGroups}; values that a log scale cannot show
 * (not finite, not positive) are left out. A chart is {@value #CHART_WIDTH} pixels wide: a header
 * of {@value #HEADER_HEIGHT} pixels (title and legend) above a grid of panels {@value
 * #PANEL_HEIGHT} pixels high, 1 column for one view, 2 for up to 4 views, 3 for up to 9 and 4
 * beyond. Loading this class sets {@code java.awt.headless} to {@code true} unless it is set
 * already.
 */
final class BenchCharts {
  static {
    // before any AWT class is used: the benchmark runs on servers without a display
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
  }

  /** The width of the charts in pixels. */
  static final int CHART_WIDTH = 1600;

  /** The height of the charts' header, the title and the legend, in pixels. */
  static final int HEADER_HEIGHT = 90;

  /** The height of one view's panel in the charts, in pixels. */
  static final int PANEL_HEIGHT = 450;

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

  /** Shapes for the kinds of change, so that they differ in print too. */
  private static final List<Shape> KIND_SHAPES =
      List.of(
          new Ellipse2D.Double(-5, -5, 10, 10),
          new Rectangle2D.Double(-4.5, -4.5, 9, 9),
          ShapeUtils.createUpTriangle(6),
          ShapeUtils.createDiamond(6),
          ShapeUtils.createDownTriangle(6));

  /** The recompute's series: dark grey and dashed, apart from the kinds' colours. */
  private static final Style RECOMPUTE_STYLE =
      new Style(
          new Color(0x444444),
          ShapeUtils.createDiagonalCross(5, 1.2f),
          new BasicStroke(
              2.5f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_ROUND, 10, new float[] {8, 5}, 0));

  /** How a series is drawn. */
  private record Style(Paint paint, Shape shape, Stroke stroke) {}

  private final MeasurementGroups groups;

  BenchCharts(MeasurementGroups groups) {
    this.groups = groups;
  }

  /**
   * Draws both charts into a directory.
   *
   * @param dir the directory, which exists
   * @throws IOException if a file cannot be written
   */
  void write(Path dir) throws IOException {
    writePng(refreshTimeChart(), dir.resolve(BenchReport.REFRESH_TIME_CHART_FILE));
    writePng(speedupChart(), dir.resolve(BenchReport.SPEEDUP_CHART_FILE));
  }

  /**
   * A panel's measurements: a view's with one timing under one requested mode.
   *
   * @param title the panel's title: the view, the timing if the run has immediate views, and the
   *     mode if the run has several
   */
  private record PanelKey(String view, String timing, String requestedMode, String title) {}

  /** The panels of a chart, by view, then timing, then mode, in the order of the run. */
  private List<PanelKey> panelKeys() {
    boolean severalModes = groups.modes().size() > 1;
    List<PanelKey> keys = new ArrayList<>();
    for (String view : groups.views()) {
      for (String timing : groups.timingsOf(view)) {
        for (String mode : groups.modesOf(view, timing)) {
          List<String> title = new ArrayList<>(List.of(view));
          if (groups.showsTimings()) {
            title.add(timing);
          }
          if (severalModes) {
            title.add(mode);
          }
          keys.add(new PanelKey(view, timing, mode, String.join(", ", title)));
        }
      }
    }
    return keys;
  }

  /** The chart of refresh and recompute times. */
  private BufferedImage refreshTimeChart() {
    List<JFreeChart> panels = new ArrayList<>();
    for (PanelKey key : panelKeys()) {
      XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
      XYSeriesCollection data = kindSeries(key, Measurement::refreshMillis, renderer);
      addSeries(data, renderer, RECOMPUTE, RECOMPUTE_STYLE, recomputePoints(key));
      panels.add(panel(key, data, renderer, "time (ms)", Double.NaN));
    }
    List<LegendItem> legend = kindLegend();
    legend.add(legendItem(RECOMPUTE, RECOMPUTE_STYLE));
    return grid(
        "Refresh time against the size of the change: refresh per kind of change,"
            + " and full recompute (medians)",
        legend,
        panels);
  }

  /** The chart of speedups. */
  private BufferedImage speedupChart() {
    List<JFreeChart> panels = new ArrayList<>();
    for (PanelKey key : panelKeys()) {
      XYLineAndShapeRenderer renderer = new XYLineAndShapeRenderer(true, true);
      XYSeriesCollection data = kindSeries(key, Measurement::speedup, renderer);
      JFreeChart panel = panel(key, data, renderer, "speedup (x)", 1);
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
        "Speedup of refresh over full recompute against the size of the change (medians)",
        kindLegend(),
        panels);
  }

  /** A panel's series of a metric, one per kind of change, with their styles set in renderer. */
  private XYSeriesCollection kindSeries(
      PanelKey key, ToDoubleFunction<Measurement> metric, XYLineAndShapeRenderer renderer) {
    XYSeriesCollection data = new XYSeriesCollection();
    for (String kind : groups.kinds()) {
      addSeries(data, renderer, kind, kindStyle(kind), kindPoints(key, kind, metric));
    }
    return data;
  }

  /** The medians of a metric for one kind of change in one panel, by delta size in percent. */
  private Map<Double, Double> kindPoints(
      PanelKey key, String kind, ToDoubleFunction<Measurement> metric) {
    Map<Double, Double> points = new TreeMap<>();
    for (MeasurementGroup g : groups.ofView(key.view(), key.timing(), key.requestedMode())) {
      if (g.kind().equals(kind)) {
        points.put(g.deltaFraction() * 100, g.median(metric));
      }
    }
    return points;
  }

  /** The median recompute time of a panel over all kinds of change, by delta size in percent. */
  private Map<Double, Double> recomputePoints(PanelKey key) {
    Map<Double, List<Measurement>> bySize =
        groups.measurements().stream()
            .filter(
                m ->
                    m.view().equals(key.view())
                        && m.timing().equals(key.timing())
                        && m.requestedMode().equals(key.requestedMode()))
            .collect(groupingBy(m -> m.deltaFraction() * 100, TreeMap::new, toList()));
    Map<Double, Double> points = new TreeMap<>();
    bySize.forEach(
        (size, ms) -> points.put(size, MeasurementGroups.median(ms, Measurement::recomputeMillis)));
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
   * One panel: log-scaled delta size against a log-scaled value.
   *
   * @param include a value the value axis shows even without data there, or NaN
   */
  private JFreeChart panel(
      PanelKey key,
      XYSeriesCollection data,
      XYLineAndShapeRenderer renderer,
      String valueLabel,
      double include) {
    // all the panel's sizes, so that the axis shows them even where no value can be plotted
    List<Double> xs =
        groups.ofView(key.view(), key.timing(), key.requestedMode()).stream()
            .map(g -> g.deltaFraction() * 100)
            .filter(BenchCharts::plottable)
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
    boolean correct = groups.correct(key.view(), key.timing(), key.requestedMode());
    JFreeChart chart =
        new JFreeChart(
            correct ? key.title() : key.title() + " (incorrect results)",
            PANEL_TITLE_FONT,
            plot,
            false);
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
    groups.kinds().forEach(kind -> items.add(legendItem(kind, kindStyle(kind))));
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
    int index = groups.kinds().indexOf(kind);
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

  private static boolean plottable(double value) {
    return Double.isFinite(value) && value > 0;
  }
}
