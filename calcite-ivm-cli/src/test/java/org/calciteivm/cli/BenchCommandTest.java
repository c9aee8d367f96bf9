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
 * kind of change; and a run of one view and kind under two refresh modes. Every refresh is checked
 * against a recompute by the benchmark itself; the command fails if one differs.
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
