package org.calciteivm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Tests the top level of the tool: help, version and wrong subcommands. */
class MainTest {
  @Test
  void helpListsSubcommands() {
    CliRun run = CliRun.of("--help");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).contains("Usage: calcite-ivm", "run", "shell", "demo");
  }

  @Test
  void versionNamesTheToolAndWhatItRunsOn() {
    CliRun run = CliRun.of("--version");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out().lines())
        .satisfiesExactly(
            line ->
                assertThat(line)
                    .matches("calcite-ivm \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(built \\d{4}-.*Z\\)"),
            line -> assertThat(line).matches("DuckDB v\\d+\\.\\d+\\.\\d+ \\(duckdb_jdbc \\d.*\\)"),
            line -> assertThat(line).matches("Apache Calcite 1\\.\\d+\\.\\d+"),
            line -> assertThat(line).matches("Avatica 1\\.\\d+\\.\\d+"),
            line -> assertThat(line).startsWith("Java " + Runtime.version().feature()));
  }

  @Test
  void subcommandsPrintTheVersionToo() {
    CliRun run = CliRun.of("run", "--version");

    assertThat(run.exitCode()).isZero();
    assertThat(run.out()).startsWith("calcite-ivm ").contains("DuckDB v");
  }

  @Test
  void unknownSubcommandPrintsUsageAndFails() {
    CliRun run = CliRun.of("frobnicate");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("frobnicate", "Usage: calcite-ivm");
  }

  @Test
  void missingSubcommandPrintsUsageAndFails() {
    CliRun run = CliRun.of();

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("Usage: calcite-ivm");
  }

  @Test
  void runWithoutFilesIsAUsageError() {
    CliRun run = CliRun.of("run");

    assertThat(run.exitCode()).isEqualTo(2);
    assertThat(run.err()).contains("FILE");
  }
}
