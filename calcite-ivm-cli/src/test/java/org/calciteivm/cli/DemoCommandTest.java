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
  void refreshedViewMatchesItsQuery() {
    CliRun run = CliRun.of("demo", "--rows", "20000");

    assertThat(run.err()).isEmpty();
    assertThat(run.out())
        .contains("REFRESH MATERIALIZED VIEW open_orders")
        .contains("view matches its query: yes");
    assertThat(run.exitCode()).isZero();
  }

  @Test
  void keepsTheDatabaseGivenWithDb() {
    Path db = dir.resolve("demo.duckdb");

    CliRun run = CliRun.of("demo", "--rows", "5000", "--db", db.toString());

    assertThat(run.exitCode()).isZero();
    assertThat(db).exists();
  }

  @Test
  void refusesAnExistingDatabase() throws IOException {
    Path db = Files.createFile(dir.resolve("existing.duckdb"));

    CliRun run = CliRun.of("demo", "--db", db.toString());

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("already exists");
  }
}
