package org.calciteivm.cli.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import javax.imageio.ImageIO;
import org.calciteivm.cli.bench.BenchReport.Context;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tests {@link BenchReport} on synthetic measurements. */
class BenchReportTest {
  private static final Context CONTEXT =
      new Context(
          1,
          LocalDate.of(2025, 3, 14),
          "Test CPU 3000",
          8,
          16L << 30,
          "Linux 6.1 (amd64)",
          "17.0.15",
          "v1.3.0",
          "0.1.0-SNAPSHOT");

  /**
   * A repetition of the synthetic measurements.
   *
   * @param refreshFactor its refresh time relative to its group's base time
   * @param recomputeMillis its recompute time
   */
  private record Rep(int rep, double refreshFactor, double recomputeMillis) {}

  private static final List<Rep> REPS =
      List.of(new Rep(1, 1, 1000), new Rep(2, 3, 900), new Rep(3, 1.25, 1100));

  /**
   * A delta size of the synthetic measurements.
   *
   * @param refreshFactor its refresh times relative to those of 0.1%
   */
  private record Size(double fraction, double refreshFactor) {}

  private static final List<Size> SIZES =
      List.of(new Size(0.0001, 0.1), new Size(0.001, 1), new Size(0.01, 10));

  @TempDir Path dir;

  /**
   * 2 views, 2 kinds, 3 sizes, 3 repetitions. The refresh of view {@code v} (0, 1), kind {@code k}
   * (0, 1) and size {@code s} takes {@code 10 * (v + 1) * (k + 1) * s / 0.1%} ms times the
   * repetition's factor, of which {@code 0.25 * rep} ms are overhead; all are under {@code auto},
   * refreshed incrementally; one repetition of {@code join}, {@code delete}, 1% is incorrect.
   */
  private static List<Measurement> measurements() {
    List<Measurement> measurements = new ArrayList<>();
    List<String> views = List.of("q1", "join");
    List<String> kinds = List.of("insert", "delete");
    for (int v = 0; v < views.size(); v++) {
      for (int k = 0; k < kinds.size(); k++) {
        for (Size size : SIZES) {
          for (Rep rep : REPS) {
            double base = 10.0 * (v + 1) * (k + 1) * size.refreshFactor();
            double refresh = base * rep.refreshFactor();
            boolean correct = !(v == 1 && k == 1 && size.fraction() == 0.01 && rep.rep() == 2);
            measurements.add(
                new Measurement(
                    views.get(v),
                    kinds.get(k),
                    size.fraction(),
                    "auto",
                    rep.rep(),
                    Math.round(1_000_000 * size.fraction()),
                    2.0 * rep.rep(),
                    1.6 * rep.rep(),
                    refresh,
                    refresh - 0.25 * rep.rep(),
                    "incremental",
                    rep.recomputeMillis(),
                    0.5,
                    200_000_000L + rep.rep(),
                    correct));
          }
        }
      }
    }
    return measurements;
  }

  @Test
  void writesOneCsvRowPerMeasurement() throws IOException {
    new BenchReport(measurements(), CONTEXT).write(dir);

    List<String> lines = Files.readAllLines(dir.resolve(BenchReport.CSV_FILE));
    assertThat(lines).hasSize(1 + 2 * 2 * 3 * 3);
    assertThat(lines.get(0))
        .isEqualTo(
            "view,kind,delta_fraction,requested_mode,rep,changed_rows,captured_dml_ms,plain_dml_ms,"
                + "refresh_ms,merge_ms,overhead_ms,mode,recompute_ms,noop_refresh_ms,"
                + "peak_memory_bytes,correct,speedup,rows_per_second,capture_overhead");
    // q1, insert, 0.01%, rep 1: refresh 1 ms (merge 0.75), recompute 1000 ms, 100 rows, DML 2 ms
    // vs 1.6 ms
    assertThat(lines.get(1))
        .isEqualTo(
            "q1,insert,0.0001,auto,1,100,2,1.6,1,0.75,0.25,incremental,1000,0.5,200000001,true,"
                + "1000,100000,1.25");
  }

  @Test
  void quotesCsvFieldsAsRfc4180Says() {
    Measurement odd =
        new Measurement(
            "a,\"b\"", "in\nsert", 0.001, "full", 1, 1, 1, 0, 0, 0, "full", 1, 1, 1, true);

    String csv = new BenchReport(List.of(odd), CONTEXT).csv();

    // refresh and plain DML take 0 ms: speedup, rows/s and overhead are not finite, so empty
    assertThat(csv)
        .endsWith("\n\"a,\"\"b\"\"\",\"in\nsert\",0.001,full,1,1,1,0,0,0,0,full,1,1,1,true,,,\n");
  }

  @Test
  void summarizesMediansInMarkdown() throws IOException {
    BenchReport report = new BenchReport(measurements(), CONTEXT);
    report.write(dir);

    String markdown = Files.readString(dir.resolve(BenchReport.SUMMARY_FILE));
    assertThat(markdown)
        .isEqualTo(report.markdown())
        .contains("- **Scale factor:** 1\n")
        .contains("- **Date:** 2025-03-14\n")
        .contains("Test CPU 3000, 8 cores, 16.0 GiB memory, Linux 6.1 (amd64)")
        .contains("- **DuckDB:** v1.3.0\n")
        .contains("- **calcite-ivm:** 0.1.0-SNAPSHOT\n")
        .contains("- **Repetitions:** 3 per");
    // q1, insert, 0.1%: refresh 10, 30, 12.5 ms -> 12.5; recompute 1000, 900, 1100 -> 1,000;
    // speedups 100, 30, 88 -> 88.0; rows/s 100000, 33333, 80000 -> 80,000; captured DML 2, 4, 6
    // -> 4.0; plain 1.6, 3.2, 4.8 -> 3.2; overhead 1.25 each; peak 200 MB
    assertThat(markdown)
        .contains(
            "| q1 | insert | 0.1% | 1,000 | 12.5 | 1,000 | 88.0 | 80,000 | 4.0 | 3.2 | 1.25 | 0.5"
                + " | 200 | yes |\n");
    // join, delete, 1%: refresh 400, 1200, 500 ms -> 500; speedups 2.5, 0.75, 2.2 -> 2.2
    assertThat(markdown)
        .contains("| join | delete | 1% | 10,000 | 500 | 1,000 | 2.2 |")
        .contains("| **no** (1 of 3 failed) |\n")
        .contains(
            "> **Warning:** a refreshed view differed from its recompute: join, delete, 1% (1 of 3"
                + " repetitions).");
  }

  @Test
  void sortsRowsByViewInOrderOfAppearanceThenKindThenSize() {
    List<Measurement> reversed = new ArrayList<>(measurements());
    Collections.reverse(reversed);
    List<Measurement> ordered = new ArrayList<>(reversed.subList(18, 36));
    ordered.addAll(reversed.subList(0, 18)); // q1 first, kinds and sizes descending

    String markdown = new BenchReport(ordered, CONTEXT).markdown();

    List<String> rows =
        markdown.lines().filter(line -> line.matches("\\| (q1|join) \\| \\w+ \\| .*")).toList();
    assertThat(rows)
        .extracting(row -> row.substring(0, row.indexOf('%') + 1))
        .containsExactly(
            "| q1 | delete | 0.01%",
            "| q1 | delete | 0.1%",
            "| q1 | delete | 1%",
            "| q1 | insert | 0.01%",
            "| q1 | insert | 0.1%",
            "| q1 | insert | 1%",
            "| join | delete | 0.01%",
            "| join | delete | 0.1%",
            "| join | delete | 1%",
            "| join | insert | 0.01%",
            "| join | insert | 0.1%",
            "| join | insert | 1%");
  }

  @Test
  void compactTableShowsSpeedupsAtOneTenthPercent() {
    String table = new BenchReport(measurements(), CONTEXT).speedupTable();

    // q1, 0.1%: insert speedups 100, 30, 88 -> 88.0; delete 50, 15, 44 -> 44.0;
    // all six: 15, 30, 44, 50, 88, 100 -> (44 + 50) / 2 = 47.0
    assertThat(table)
        .startsWith("| view | delta | insert (x) | delete (x) | all kinds (x) |\n")
        .contains("| q1 | 0.1% | 88.0 | 44.0 | 47.0 |\n")
        .contains("| join **(incorrect)** | 0.1% | 44.0 | 22.0 | 23.5 |\n");
  }

  @Test
  void compactTableFallsBackToTheSmallestSize() {
    List<Measurement> without01 =
        measurements().stream().filter(m -> m.deltaFraction() != 0.001).toList();

    String table = new BenchReport(without01, CONTEXT).speedupTable();

    // q1, insert, 0.01%: refresh 1, 3, 1.25 ms -> speedups 1000, 300, 880 -> 880.0
    assertThat(table).contains("| q1 | 0.01% | 880.0 | 440.0 | 470.0 |\n");
  }

  @Test
  void drawsChartsOfTheExpectedSize() throws IOException {
    BenchReport.write(measurements(), CONTEXT, dir);

    // 2 views: 2 columns, 1 row of 450 px below a 90 px header
    assertImage(dir.resolve(BenchReport.REFRESH_TIME_CHART_FILE), 1600, 540);
    assertImage(dir.resolve(BenchReport.SPEEDUP_CHART_FILE), 1600, 540);
  }

  @Test
  void copesWithOneSizeMissingKindsAndTimesALogScaleCannotShow() throws IOException {
    List<Measurement> measurements =
        List.of(
            new Measurement(
                "a", "insert", 0.001, "auto", 1, 10, 1, 1, 5, 4, "full", 50, 1, 1, true),
            new Measurement(
                "b",
                "update",
                0.001,
                "auto",
                1,
                10,
                1,
                0,
                0,
                Double.NaN,
                "none",
                Double.NaN,
                1,
                1,
                true),
            new Measurement(
                "c", "insert", 0.001, "auto", 1, 10, 1, 1, 5, 4, "incremental", 50, 1, 1, false),
            new Measurement(
                "d", "delete", 0.001, "auto", 1, 10, 1, 1, 5, 4, "incremental", 50, 1, 1, true),
            new Measurement(
                "e", "delete", 0.001, "auto", 1, 10, 1, 1, 5, 4, "incremental", 50, 1, 1, true));

    BenchReport report = new BenchReport(measurements, CONTEXT);
    report.write(dir);

    // 5 views: 3 columns, 2 rows
    assertImage(dir.resolve(BenchReport.REFRESH_TIME_CHART_FILE), 1600, 90 + 2 * 450);
    assertImage(dir.resolve(BenchReport.SPEEDUP_CHART_FILE), 1600, 90 + 2 * 450);
    assertThat(report.markdown())
        .contains("| b | update | 0.1% | 10 | 0.0 | – | – | – | 1.0 | 0.0 | – | 1.0 |")
        .contains("| c **(incorrect)** | 0.1% | 10.0 | – | – | 10.0 |");
  }

  @Test
  void writesAnEmptyReport() throws IOException {
    new BenchReport(List.of(), CONTEXT).write(dir);

    assertThat(Files.readAllLines(dir.resolve(BenchReport.CSV_FILE))).hasSize(1);
    assertImage(dir.resolve(BenchReport.SPEEDUP_CHART_FILE), 1600, 90);
  }

  @Test
  void describesThisMachine() {
    Context context = Context.current(0.5);

    assertThat(context.cores()).isPositive();
    assertThat(context.cpu()).isNotBlank();
    assertThat(context.os()).isNotBlank();
    assertThat(context.javaVersion()).startsWith(Integer.toString(Runtime.version().feature()));
    assertThat(context.duckdbVersion()).startsWith("v");
    assertThat(new BenchReport(List.of(), context).markdown())
        .contains("- **Scale factor:** 0.5\n")
        .contains("- **DuckDB:** " + context.duckdbVersion() + "\n");
  }

  private static void assertImage(Path file, int width, int height) throws IOException {
    BufferedImage image = ImageIO.read(file.toFile());
    assertThat(image).as(file.toString()).isNotNull();
    assertThat(image.getWidth()).isEqualTo(width);
    assertThat(image.getHeight()).isEqualTo(height);
  }
}
