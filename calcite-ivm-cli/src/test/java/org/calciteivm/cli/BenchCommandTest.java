package org.calciteivm.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
 * kind of change. Every refresh is checked against a recompute by the benchmark itself; the command
 * fails if one differs.
 */
class BenchCommandTest {
  @TempDir Path dir;

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
            dir.resolve("data").toString());
    assertThat(run.err()).doesNotContain("error");
    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("15 cycles measured");
    // one row per view and kind
    List<Measurement> csv = MeasurementsCsv.read(out.resolve("measurements.csv"));
    assertThat(csv).hasSize(3 * 5).allMatch(Measurement::correct);
    assertThat(Files.readString(out.resolve("summary.md"))).contains("| joined |");
    assertThat(out.resolve("refresh-time.png")).isNotEmptyFile();
    assertThat(out.resolve("speedup.png")).isNotEmptyFile();
  }

  @Test
  void unknownViewIsRefusedBeforeAnythingRuns() {
    CliRun run = CliRun.of("bench", "--views", "q42", "--data", dir.toString());
    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("unknown view \"q42\"");
    assertThat(dir).isEmptyDirectory();
  }
}
