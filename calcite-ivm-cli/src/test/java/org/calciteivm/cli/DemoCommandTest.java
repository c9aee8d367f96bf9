package org.calciteivm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tests {@code calcite-ivm demo} on a small table. */
class DemoCommandTest {
  @TempDir Path dir;

  @Test
  void refreshedViewMatchesItsRecomputeInEveryRound() {
    CliRun run = CliRun.of("demo", "--rows", "20000", "--rounds", "3");

    assertThat(run.err()).isEmpty();
    assertThat(run.exitCode()).isZero();
    assertThat(run.out())
        .contains("1. Tables: 20,000 orders, 200 customers")
        .contains("2. Materialized view revenue_by_region")
        .contains("FROM orders o JOIN customers c ON o.customer_id = c.id")
        .contains("3. Warm-up round, not counted")
        .contains("4. 3 rounds: change about 0.1% of orders, refresh, recompute, compare")
        .containsPattern("refresh: +median [0-9.]+ m?s \\([0-9.]+ m?s to [0-9.]+ m?s\\)")
        .containsPattern("recompute: median [0-9.]+ m?s")
        .containsPattern("speed-up: +[0-9.]+x")
        .contains("view matches its recompute after every refresh: yes (EXCEPT ALL both ways)");
    // One line per measured round: 20 changed rows (0.1%), and the view equal to its recompute.
    assertThat(run.out().lines().filter(line -> line.matches(" +[1-3] +\\d+ .* yes"))).hasSize(3);
  }

  @Test
  void keepsTheDatabaseGivenWithDb() {
    Path db = dir.resolve("demo.duckdb");

    CliRun run = CliRun.of("demo", "--rows", "5000", "--rounds", "1", "--db", db.toString());

    assertThat(run.exitCode()).isZero();
    assertThat(db).exists();
    CliRun views =
        CliRun.withStdin(
            "SELECT name, pending_rows_total FROM ivm_views;", "run", "--db", db.toString(), "-");
    assertThat(views.out()).isEqualTo("name\tpending_rows_total\nrevenue_by_region\t0\n");
  }

  @Test
  void refusesAnExistingDatabase() throws IOException {
    Path db = Files.createFile(dir.resolve("existing.duckdb"));

    CliRun run = CliRun.of("demo", "--db", db.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("already exists");
  }
}
