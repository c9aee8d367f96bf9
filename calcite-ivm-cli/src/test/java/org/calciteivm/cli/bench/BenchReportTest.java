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
                    "deferred",
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
            "view,kind,delta_fraction,requested_mode,timing,rep,changed_rows,captured_dml_ms,"
                + "plain_dml_ms,refresh_ms,merge_ms,overhead_ms,mode,recompute_ms,noop_refresh_ms,"
                + "peak_memory_bytes,correct,speedup,rows_per_second,capture_overhead");
    // q1, insert, 0.01%, rep 1: refresh 1 ms (merge 0.75), recompute 1000 ms, 100 rows, DML 2 ms
    // vs 1.6 ms
    assertThat(lines.get(1))
        .isEqualTo(
            "q1,insert,0.0001,auto,deferred,1,100,2,1.6,1,0.75,0.25,incremental,1000,0.5,200000001,"
                + "true,1000,100000,1.25");
  }

  @Test
  void quotesCsvFieldsAsRfc4180Says() {
    Measurement odd =
        new Measurement(
            "a,\"b\"",
            "in\nsert",
            0.001,
            "full",
            "deferred",
            1,
            1,
            1,
            0,
            0,
            0,
            "full",
            1,
            1,
            1,
            true);

    String csv = new BenchReport(List.of(odd), CONTEXT).csv();

    // refresh and plain DML take 0 ms: speedup, rows/s and overhead are not finite, so empty
    assertThat(csv)
        .endsWith(
            "\n\"a,\"\"b\"\"\",\"in\nsert\",0.001,full,deferred,1,1,1,0,0,0,0,full,1,1,1,true,,,\n");
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
        .contains("- **Refresh modes:** `auto`\n")
        .contains("- **Repetitions:** 3 per");
    // q1, insert, 0.1%: refresh 10, 30, 12.5 ms -> 12.5; refresh overhead 0.25, 0.5, 0.75 ms ->
    // 0.5; recompute 1000, 900, 1100 -> 1,000; speedups 100, 30, 88 -> 88.0; rows/s 100000,
    // 33333, 80000 -> 80,000; captured DML 2, 4, 6 -> 4.0; plain 1.6, 3.2, 4.8 -> 3.2; capture
    // overhead 1.25 each; peak 200 MB
    assertThat(markdown)
        .contains(
            "| q1 | insert | 0.1% | auto | 1,000 | 12.5 | 0.5 | incremental | 1,000 | 88.0 | 80,000"
                + " | 4.0 | 3.2 | 1.25 | 0.5 | 200 | yes |\n");
    // join, delete, 1%: refresh 400, 1200, 500 ms -> 500; speedups 2.5, 0.75, 2.2 -> 2.2
    assertThat(markdown)
        .contains("| join | delete | 1% | auto | 10,000 | 500 | 0.5 | incremental | 1,000 | 2.2 |")
        .contains("| **no** (1 of 3 failed) |\n")
        .contains(
            "> **Warning:** a refreshed view differed from its recompute: join, delete, 1%, auto (1"
                + " of 3 repetitions).");
    // only auto: nothing to compare it with
    assertThat(markdown).doesNotContain("auto against").doesNotContain("auto within");
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
                "a",
                "insert",
                0.001,
                "auto",
                "deferred",
                1,
                10,
                1,
                1,
                5,
                4,
                "full",
                50,
                1,
                1,
                true),
            new Measurement(
                "b",
                "update",
                0.001,
                "auto",
                "deferred",
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
                "c",
                "insert",
                0.001,
                "auto",
                "deferred",
                1,
                10,
                1,
                1,
                5,
                4,
                "incremental",
                50,
                1,
                1,
                false),
            new Measurement(
                "d",
                "delete",
                0.001,
                "auto",
                "deferred",
                1,
                10,
                1,
                1,
                5,
                4,
                "incremental",
                50,
                1,
                1,
                true),
            new Measurement(
                "e",
                "delete",
                0.001,
                "auto",
                "deferred",
                1,
                10,
                1,
                1,
                5,
                4,
                "incremental",
                50,
                1,
                1,
                true));

    BenchReport report = new BenchReport(measurements, CONTEXT);
    report.write(dir);

    // 5 views: 3 columns, 2 rows
    assertImage(dir.resolve(BenchReport.REFRESH_TIME_CHART_FILE), 1600, 90 + 2 * 450);
    assertImage(dir.resolve(BenchReport.SPEEDUP_CHART_FILE), 1600, 90 + 2 * 450);
    // b: nothing pending, and a merge time unknown (NaN): no overhead to take a median of
    assertThat(report.markdown())
        .contains(
            "| b | update | 0.1% | auto | 10 | 0.0 | – | none | – | – | – | 1.0 | 0.0 | – | 1.0 |")
        .contains("| c **(incorrect)** | 0.1% | 10.0 | – | – | 10.0 |");
  }

  /**
   * A cycle of the measurements of several modes: 1,000 changed rows, recompute 100 ms, DML 1 ms.
   */
  private static Measurement cycle(
      String view,
      String requestedMode,
      String kind,
      int rep,
      double refreshMillis,
      double mergeMillis,
      String mode,
      boolean correct) {
    return new Measurement(
        view,
        kind,
        0.001,
        requestedMode,
        "deferred",
        rep,
        1000,
        1,
        1,
        refreshMillis,
        mergeMillis,
        mode,
        100,
        0.5,
        1_000_000,
        correct);
  }

  /**
   * q1 under auto, incremental and full, in the order the benchmark runs them, and q6 under auto
   * only; all at 0.1%, 3 repetitions. Median refresh of q1 insert: auto 12 ms, incremental 10, full
   * 35; of q1 delete: auto 25, full 20 (no incremental); one repetition of q1, delete, full is
   * incorrect.
   */
  private static List<Measurement> severalModes() {
    return List.of(
        cycle("q1", "auto", "insert", 1, 12, 9, "incremental", true),
        cycle("q1", "auto", "insert", 2, 10, 8, "incremental", true),
        cycle("q1", "auto", "insert", 3, 14, Double.NaN, "full", true),
        cycle("q1", "auto", "delete", 1, 25, 20, "full", true),
        cycle("q1", "auto", "delete", 2, 25, 20, "full", true),
        cycle("q1", "auto", "delete", 3, 25, 20, "full", true),
        cycle("q1", "incremental", "insert", 1, 10, 8, "incremental", true),
        cycle("q1", "incremental", "insert", 2, 11, 8, "incremental", true),
        cycle("q1", "incremental", "insert", 3, 9, 8, "incremental", true),
        cycle("q1", "full", "insert", 1, 30, 25, "full", true),
        cycle("q1", "full", "insert", 2, 40, 25, "full", true),
        cycle("q1", "full", "insert", 3, 35, 25, "full", true),
        cycle("q1", "full", "delete", 1, 20, 15, "full", true),
        cycle("q1", "full", "delete", 2, 20, 15, "full", false),
        cycle("q1", "full", "delete", 3, 20, 15, "full", true),
        cycle("q6", "auto", "insert", 1, 5, 4, "incremental", true),
        cycle("q6", "auto", "insert", 2, 5, 4, "incremental", true),
        cycle("q6", "auto", "insert", 3, 5, 4, "incremental", true));
  }

  @Test
  void summarizesEachRequestedModeOnARowOfItsOwn() {
    String markdown = new BenchReport(severalModes(), CONTEXT).markdown();

    assertThat(markdown)
        .contains("- **Refresh modes:** `auto`, `incremental`, `full`\n")
        .contains("- **Repetitions:** 3 per view, requested mode, kind of change and delta size\n")
        .contains(
            "> **Warning:** a refreshed view differed from its recompute: q1, delete, 0.1%, full (1"
                + " of 3 repetitions).");
    // the rows of the table of medians (1,000 changed rows): the modes of one change next to each
    // other, in the order of the run
    List<String> rows =
        markdown
            .lines()
            .filter(line -> line.matches("\\| q\\d \\| \\w+ \\| 0.1% \\| \\w+ \\| 1,000 \\| .*"))
            .toList();
    // auto, insert: refresh 12, 10, 14 -> 12.0; overhead 3, 2 and one unknown -> 2.5; two
    // refreshes incremental, one full; speedups 8.3, 10, 7.1 -> 8.3
    // incremental: overhead 2, 3, 1 -> 2.0; full: overhead 5, 15, 10 -> 10.0
    assertThat(rows)
        .extracting(row -> row.substring(0, row.indexOf(" | 100 |")))
        .containsExactly(
            "| q1 | insert | 0.1% | auto | 1,000 | 12.0 | 2.5 | incremental 2 / full 1",
            "| q1 | insert | 0.1% | incremental | 1,000 | 10.0 | 2.0 | incremental",
            "| q1 | insert | 0.1% | full | 1,000 | 35.0 | 10.0 | full",
            "| q1 | delete | 0.1% | auto | 1,000 | 25.0 | 5.0 | full",
            "| q1 | delete | 0.1% | full | 1,000 | 20.0 | 5.0 | full",
            "| q6 | insert | 0.1% | auto | 1,000 | 5.0 | 1.0 | incremental");
    assertThat(rows.get(0)).contains(" | 100 | 8.3 |");
  }

  @Test
  void compactTableHasARowPerViewAndModeWhenTheRunHasSeveral() {
    String table = new BenchReport(severalModes(), CONTEXT).speedupTable();

    // q1 under auto: insert 8.3, 10, 7.1 -> 8.3; delete 4.0; all six -> (4.0 + 7.1) / 2 = 5.6
    assertThat(table)
        .isEqualTo(
            """
            | view | requested mode | delta | insert (x) | delete (x) | all kinds (x) |
            |---|---|---:|---:|---:|---:|
            | q1 | auto | 0.1% | 8.3 | 4.0 | 5.6 |
            | q1 | incremental | 0.1% | 10.0 | – | 10.0 |
            | q1 **(incorrect)** | full | 0.1% | 2.9 | 5.0 | 4.2 |
            | q6 | auto | 0.1% | 20.0 | – | 20.0 |
            """);
  }

  @Test
  void comparesAutoWithTheBestExplicitMode() {
    String markdown = new BenchReport(severalModes(), CONTEXT).markdown();

    // insert: 12 ms against incremental's 10; delete: 25 against full's 20, the worse; q6 ran
    // under auto only
    assertThat(markdown)
        .contains(
            """
            | view | kind | delta | auto ms | incremental ms | full ms | auto / best (x) |
            |---|---|---:|---:|---:|---:|---:|
            | q1 | insert | 0.1% | 12.0 | 10.0 | 35.0 | 1.20 |
            | q1 | delete | 0.1% | 25.0 | – | 20.0 | 1.25 |

            **auto within 1.25x of the best explicit mode** in every change compared (at worst: \
            q1, delete, 0.1%).
            """)
        .doesNotContain("| q6 | insert | 0.1% | 5.0 |");
  }

  @Test
  void saysWhenAutoWasAsFastAsTheBestModeOrFaster() {
    List<Measurement> measurements =
        List.of(
            cycle("q1", "auto", "insert", 1, 9, 8, "incremental", true),
            cycle("q1", "full", "insert", 1, 30, 25, "full", true),
            cycle("q1", "incremental", "insert", 1, 10, 8, "incremental", true));

    assertThat(new BenchReport(measurements, CONTEXT).markdown())
        .contains("| q1 | insert | 0.1% | 9.0 | 10.0 | 30.0 | 0.90 |\n")
        .contains(
            "**auto as fast as the best explicit mode or faster** in every change compared"
                + " (largest ratio 0.90x: q1, insert, 0.1%).\n");
  }

  @Test
  void leavesChangesWithNothingPendingOutOfTheComparison() {
    List<Measurement> measurements =
        List.of(
            cycle("q1", "auto", "insert", 1, 11, 8, "incremental", true),
            cycle("q1", "auto", "update_key", 1, 2, 0, "none", true),
            cycle("q1", "incremental", "insert", 1, 10, 8, "incremental", true),
            cycle("q1", "incremental", "update_key", 1, 0.5, 0, "none", true));

    String markdown = new BenchReport(measurements, CONTEXT).markdown();

    // update_key: 4x slower, but nothing was pending, so nothing was chosen
    assertThat(markdown)
        .contains("| q1 | update_key | 0.1% | auto | 1,000 | 2.0 | 2.0 | none |")
        .contains("| q1 | insert | 0.1% | 11.0 | 10.0 | – | 1.10 |\n")
        .doesNotContain("| q1 | update_key | 0.1% | 2.0 |")
        .contains("**auto within 1.10x of the best explicit mode**");
  }

  @Test
  void drawsAPanelPerViewAndModeWhenTheRunHasSeveral() throws IOException {
    BenchReport.write(severalModes(), CONTEXT, dir);

    // q1 under 3 modes and q6 under 1: 4 panels, 2 columns, 2 rows
    assertImage(dir.resolve(BenchReport.REFRESH_TIME_CHART_FILE), 1600, 90 + 2 * 450);
    assertImage(dir.resolve(BenchReport.SPEEDUP_CHART_FILE), 1600, 90 + 2 * 450);
  }

  /**
   * A write of the measurements of several timings, under {@code incremental}: 1,000 changed rows,
   * recompute 100 ms; a deferred view's refresh takes 20 ms, an immediate view's finds nothing
   * pending and takes 0.1 ms.
   */
  private static Measurement write(
      String view,
      String timing,
      String kind,
      int rep,
      double plainMillis,
      double capturedMillis,
      boolean correct) {
    boolean immediate = timing.equals("immediate");
    return new Measurement(
        view,
        kind,
        0.001,
        "incremental",
        timing,
        rep,
        1000,
        capturedMillis,
        plainMillis,
        immediate ? 0.1 : 20,
        immediate ? 0 : 15,
        immediate ? "none" : "incremental",
        100,
        0.5,
        1_000_000,
        correct);
  }

  /**
   * q1 with the view deferred, then immediate, as the benchmark runs them, inserts and single-row
   * updates, 3 repetitions; q6 immediate only, one repetition, incorrect.
   */
  private static List<Measurement> severalTimings() {
    return List.of(
        write("q1", "deferred", "insert", 1, 10, 11, true),
        write("q1", "deferred", "insert", 2, 12, 13, true),
        write("q1", "deferred", "insert", 3, 11, 12, true),
        write("q1", "deferred", "update_one", 1, 1.0, 2, true),
        write("q1", "deferred", "update_one", 2, 1.2, 2, true),
        write("q1", "deferred", "update_one", 3, 1.4, 3, true),
        write("q1", "immediate", "insert", 1, 10, 25, true),
        write("q1", "immediate", "insert", 2, 14, 30, true),
        write("q1", "immediate", "insert", 3, 12, 20, true),
        write("q1", "immediate", "update_one", 1, 1, 3, true),
        write("q1", "immediate", "update_one", 2, 1, 4, true),
        write("q1", "immediate", "update_one", 3, 2, 5, true),
        write("q6", "immediate", "insert", 1, 10, 15, false));
  }

  @Test
  void comparesWritesWithImmediateViewsWithPlainAndDeferredWrites() {
    String markdown = new BenchReport(severalTimings(), CONTEXT).markdown();

    // q1 insert: plain 10, 14, 12 -> 12.0; deferred 11, 13, 12 -> 12.0; immediate 25, 30, 20 ->
    // 25.0; differences 15, 16, 8 -> 15.0; ratios 2.5, 2.14, 1.67 -> 2.14
    // q1 update_one: plain 1, 1, 2 -> 1.0; deferred 2, 2, 3 -> 2.0; immediate 3, 4, 5 -> 4.0;
    // differences 2, 3, 3 -> 3.0; ratios 3, 4, 2.5 -> 3.00
    // q6: never deferred
    assertThat(markdown)
        .contains(
            """
            ## Writes with immediate views

            Median time in ms of the change's DML: *plain* on DuckDB without views; *deferred* \
            captured by calcite-ivm, the view left to `REFRESH`; *immediate* captured and the view \
            maintained before the write returned. *immediate − plain* and *immediate / plain* are \
            medians of the repetitions' differences and ratios (the plain and the immediate write \
            of one cycle).

            | view | kind | delta | plain ms | deferred ms | immediate ms | immediate − plain ms \
            | immediate / plain (x) |
            |---|---|---:|---:|---:|---:|---:|---:|
            | q1 | insert | 0.1% | 12.0 | 12.0 | 25.0 | 15.0 | 2.14 |
            | q1 | update_one | 0.1% | 1.0 | 2.0 | 4.0 | 3.0 | 3.00 |
            | q6 | insert | 0.1% | 10.0 | – | 15.0 | 5.0 | 1.50 |
            """);
  }

  @Test
  void namesTheTimingWhereTheRunHasImmediateViews() {
    BenchReport report = new BenchReport(severalTimings(), CONTEXT);
    String markdown = report.markdown();

    assertThat(markdown)
        .contains("- **Refresh modes:** `incremental`\n")
        .contains("- **Refresh timings:** `deferred`, `immediate`\n")
        .contains("- **Repetitions:** 1 to 3 per view, timing, requested mode, kind of change")
        .contains(
            "> **Warning:** a refreshed view differed from its recompute: q6, insert, 0.1%,"
                + " immediate, incremental (1 of 1 repetitions).")
        .contains("| view | kind | delta | requested mode | timing | changed rows | refresh ms |")
        // the timings of one change next to each other; immediate: nothing pending
        .contains(
            "| q1 | insert | 0.1% | incremental | deferred | 1,000 | 20.0 | 5.0 | incremental |")
        .contains("| q1 | insert | 0.1% | incremental | immediate | 1,000 | 0.1 | 0.1 | none |")
        // a paragraph after the notes on the other columns
        .contains("of none.\n\n*timing*: the view's `refresh` option");
    // deferred: speedups 100 / 20 = 5.0; immediate: 100 / 0.1 = 1,000 (an empty refresh)
    assertThat(report.speedupTable())
        .isEqualTo(
            """
            | view | timing | delta | insert (x) | update_one (x) | all kinds (x) |
            |---|---|---:|---:|---:|---:|
            | q1 | deferred | 0.1% | 5.0 | 5.0 | 5.0 |
            | q1 | immediate | 0.1% | 1,000.0 | 1,000.0 | 1,000.0 |
            | q6 **(incorrect)** | immediate | 0.1% | 1,000.0 | – | 1,000.0 |
            """);
  }

  @Test
  void leavesTheTimingOutOfARunOfDeferredViews() {
    String markdown = new BenchReport(measurements(), CONTEXT).markdown();

    assertThat(markdown)
        .doesNotContain("timing")
        .doesNotContain("Refresh timings")
        .doesNotContain("Writes with immediate views")
        .contains("| view | kind | delta | requested mode | changed rows |");
  }

  @Test
  void drawsAPanelPerViewAndTimingWhenTheRunHasImmediateViews() throws IOException {
    BenchReport.write(severalTimings(), CONTEXT, dir);

    // q1 deferred and immediate, q6 immediate: 3 panels, 2 columns, 2 rows
    assertImage(dir.resolve(BenchReport.REFRESH_TIME_CHART_FILE), 1600, 90 + 2 * 450);
    assertImage(dir.resolve(BenchReport.SPEEDUP_CHART_FILE), 1600, 90 + 2 * 450);
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
