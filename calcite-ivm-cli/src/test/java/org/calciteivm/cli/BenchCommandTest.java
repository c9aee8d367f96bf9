package org.calciteivm.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.calciteivm.cli.bench.Measurement;
import org.calciteivm.cli.bench.MeasurementsCsv;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quick variant of {@code calcite-ivm bench}, as a smoke test of the benchmark code: tiny TPC-H
 * data, one change size, one repetition, a single-table, a join aggregate and the join view, every
 * kind of change; a run of one view and kind under two refresh modes; and a run of two views with
 * the views deferred, then immediate. Every refresh is checked against a recompute by the benchmark
 * itself; the command fails if one differs.
 */
class BenchCommandTest {
  @TempDir Path dir;

  /** The generated TPC-H data, shared by the runs. */
  @TempDir static Path data;

  @Test
  void quickRunMeasuresEveryCycleAndWritesTheReport() throws Exception {
    Path out = dir.resolve("report");
    CliRun run =
        CliRun.of(
            "bench",
            "--sf",
            "0.01",
            "--deltas",
            "0.001",
            "--reps",
            "1",
            "--views",
            "q1,q3,joined",
            "--out",
            out.toString(),
            "--data",
            data.toString());
    assertThat(run.err()).doesNotContain("error");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("15 cycles measured");
    // one row per view and kind, under the default mode
    List<Measurement> csv = MeasurementsCsv.read(out.resolve("measurements.csv"));
    assertThat(csv)
        .hasSize(3 * 5)
        .allMatch(Measurement::correct)
        .allMatch(m -> m.requestedMode().equals("auto"))
        .allMatch(m -> List.of("incremental", "full", "none").contains(m.mode()));
    for (Measurement m : csv) {
      // ivm_views' merge time is part of the refresh time the benchmark measures
      assertThat(m.mergeMillis()).as(m.toString()).isBetween(0.0, m.refreshMillis());
    }
    assertThat(Files.readString(out.resolve("summary.md"))).contains("| joined |");
    assertThat(out.resolve("refresh-time.png")).isNotEmptyFile();
    assertThat(out.resolve("speedup.png")).isNotEmptyFile();
  }

  @Test
  void runsTheCyclesUnderEachRequestedMode() throws Exception {
    Path out = dir.resolve("report");
    CliRun run =
        CliRun.of(
            "bench",
            "--sf",
            "0.01",
            "--deltas",
            "0.001",
            "--reps",
            "1",
            "--views",
            "q1",
            "--kinds",
            "delete",
            "--modes",
            "incremental,full",
            "--out",
            out.toString(),
            "--data",
            data.toString());
    assertThat(run.err()).doesNotContain("error");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("2 cycles measured");
    List<Measurement> csv = MeasurementsCsv.read(out.resolve("measurements.csv"));
    assertThat(csv)
        .extracting(Measurement::requestedMode, Measurement::mode)
        .containsExactly(tuple("incremental", "incremental"), tuple("full", "full"));
    for (Measurement m : csv) {
      assertThat(m.correct()).as(m.toString()).isTrue();
      assertThat(m.mergeMillis())
          .as(m.toString())
          .isPositive()
          .isLessThanOrEqualTo(m.refreshMillis());
    }
  }

  @Test
  void runsTheCyclesWithTheViewDeferredThenImmediate() throws Exception {
    Path out = dir.resolve("report");
    CliRun run =
        CliRun.of(
            "bench",
            "--sf",
            "0.01",
            "--deltas",
            "0.001",
            "--reps",
            "2",
            "--views",
            "q1,q6",
            "--kinds",
            "insert,update_one",
            "--modes",
            "incremental",
            "--timing",
            "deferred,immediate",
            "--out",
            out.toString(),
            "--data",
            data.toString());
    assertThat(run.err()).doesNotContain("error");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("16 cycles measured");
    List<Measurement> csv = MeasurementsCsv.read(out.resolve("measurements.csv"));
    assertThat(csv).hasSize(2 * 2 * 2 * 2).allMatch(Measurement::correct);
    // per view: every deferred cycle, then every immediate one
    assertThat(csv)
        .extracting(Measurement::view, Measurement::timing, Measurement::kind)
        .containsSubsequence(
            tuple("q1", "deferred", "insert"),
            tuple("q1", "deferred", "update_one"),
            tuple("q1", "immediate", "insert"),
            tuple("q1", "immediate", "update_one"),
            tuple("q6", "deferred", "insert"),
            tuple("q6", "immediate", "update_one"));
    for (Measurement m : csv) {
      if (m.kind().equals("update_one")) {
        assertThat(m.changedRows()).as(m.toString()).isEqualTo(1);
      }
      if (m.timing().equals("immediate")) {
        // the write maintained the view: the refresh after it had nothing to do
        assertThat(m.mode()).as(m.toString()).isEqualTo("none");
      } else if (m.view().equals("q1")) {
        // every change of lineitem's measures is one of q1's
        assertThat(m.mode()).as(m.toString()).isEqualTo("incremental");
      }
    }
    assertThat(Files.readString(out.resolve("summary.md")))
        .contains("- **Refresh timings:** `deferred`, `immediate`\n")
        .contains("## Writes with immediate views")
        .contains("| q1 | update_one | 0.1% |")
        .contains("| q6 | insert | 0.1% |");
  }

  @Test
  void unknownTimingIsRefusedBeforeAnythingRuns() {
    CliRun run = CliRun.of("bench", "--timing", "deferred,later", "--data", dir.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("unknown timing \"later\"; known: deferred, immediate");
    assertThat(dir).isEmptyDirectory();

    run = CliRun.of("bench", "--timing", "immediate,immediate", "--data", dir.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--timing names \"immediate\" twice");
  }

  @Test
  void unknownModeIsRefusedBeforeAnythingRuns() {
    CliRun run = CliRun.of("bench", "--modes", "auto,fast", "--data", dir.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("unknown mode \"fast\"; known: auto, incremental, full");
    assertThat(dir).isEmptyDirectory();

    run = CliRun.of("bench", "--modes", "full,full", "--data", dir.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("--modes names \"full\" twice");
  }

  @Test
  void unknownViewIsRefusedBeforeAnythingRuns() {
    CliRun run = CliRun.of("bench", "--views", "q42", "--data", dir.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("unknown view \"q42\"");
    assertThat(dir).isEmptyDirectory();
  }
}
