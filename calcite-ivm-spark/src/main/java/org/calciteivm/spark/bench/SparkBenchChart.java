package org.calciteivm.spark.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The Spark benchmark's chart ({@value #FILE}): per view and kind of change, the median refresh and
 * recompute times in seconds, side by side, drawn with jfreechart. {@code main} draws it again from
 * a run's {@code measurements.csv}: {@code SparkBenchChart DIR}.
 */
public final class SparkBenchChart {
  static final String FILE = "refresh-vs-recompute.png";

  static {
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
  }

  private SparkBenchChart() {}

  public static void main(String[] args) throws IOException {
    if (args.length != 1) {
      System.err.println("usage: SparkBenchChart DIR (a directory with measurements.csv)");
      System.exit(2);
    }
    Path dir = Path.of(args[0]);
    List<String> lines = Files.readAllLines(dir.resolve("measurements.csv"));
    List<String> header = List.of(lines.get(0).split(","));
    List<String[]> rows = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] cells = line.split(",");
      rows.add(
          new String[] {
            cells[header.indexOf("view")],
            cells[header.indexOf("kind")],
            cells[header.indexOf("rep")],
            cells[header.indexOf("refresh_ms")],
            cells[header.indexOf("recompute_ms")]
          });
    }
    write(dir, "Spark, " + dir.getFileName(), rows);
  }

  /**
   * Draws the chart of {@code rows} (view, kind, repetition, refresh ms, recompute ms) into {@code
   * dir}.
   */
  static void write(Path dir, String title, List<String[]> rows) throws IOException {
    Map<String, List<String[]>> groups = new LinkedHashMap<>();
    for (String[] row : rows) {
      groups.computeIfAbsent(row[0] + " " + row[1], k -> new ArrayList<>()).add(row);
    }
    DefaultCategoryDataset data = new DefaultCategoryDataset();
    for (Map.Entry<String, List<String[]>> group : groups.entrySet()) {
      data.addValue(SparkBench.median(group.getValue(), 3) / 1000.0, "refresh", group.getKey());
      data.addValue(SparkBench.median(group.getValue(), 4) / 1000.0, "recompute", group.getKey());
    }
    JFreeChart chart =
        ChartFactory.createBarChart(
            title + ": median refresh and recompute",
            "view and change",
            "seconds",
            data,
            PlotOrientation.VERTICAL,
            true,
            false,
            false);
    ChartUtils.saveChartAsPNG(
        dir.resolve(FILE).toFile(), chart, Math.max(600, 110 * groups.size()), 420);
  }
}
