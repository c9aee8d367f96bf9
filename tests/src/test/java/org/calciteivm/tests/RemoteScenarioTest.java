package org.calciteivm.tests;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.stream.Stream;
import org.calciteivm.server.IvmServer;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs scenario scripts through the server: each script gets its own in-process server over its
 * database file on a free loopback port, and every connection of the script is a remote one
 * (Avatica's driver, protobuf). The scripts, their expected rows and errors and the check of every
 * view against its query are exactly those of {@link ScenarioTest}; {@code reopen} stops the server
 * and starts a new one on the file.
 *
 * <p>By default a representative subset runs, to keep the build short: {@link ScenarioTest} runs
 * every script embedded, and this suite is about the way to them (all scripts passed remotely when
 * it was written, in about 140 s). {@code -Divm.remote_scenarios=all} runs every script, join
 * scripts with {@code ivm_join_strategy=auto}; {@code -Divm.scenario=word} filters as in {@link
 * ScenarioTest}.
 */
class RemoteScenarioTest {
  /** Scripts covering views of every kind, errors, transactions, several connections, reopen. */
  static final List<String> SUBSET =
      List.of(
          "filters.test",
          "nulls.test",
          "identifiers.test",
          "errors.test",
          "transactions.test",
          "interleaved.test",
          "reopen.test",
          "settings.test",
          "explain.test",
          "duckdb_writes.test",
          "returning.test",
          "agg_basic.test",
          "agg_types.test",
          "agg_minmax.test",
          "join_four_way.test",
          "join_foreign_keys.test",
          "refresh_immediate.test");

  /** Opens a database file by starting a server over it; closing it stops the server. */
  static final ScenarioRunner.Databases REMOTE =
      file -> {
        IvmServer server = RemoteServer.start(file);
        return new ScenarioRunner.Database() {
          @Override
          public Connection connect(Properties properties) throws SQLException {
            return RemoteServer.connect(server, properties);
          }

          @Override
          public void close() throws SQLException {
            server.close();
          }
        };
      };

  @TestFactory
  Stream<DynamicTest> scenariosThroughTheServer() throws IOException, URISyntaxException {
    Path directory = Path.of(Objects.requireNonNull(getClass().getResource("/scenarios")).toURI());
    boolean all = System.getProperty("ivm.remote_scenarios", "").equals("all");
    String filter = System.getProperty("ivm.scenario", "");
    List<Path> scripts;
    try (Stream<Path> files = Files.list(directory)) {
      scripts =
          files
              .filter(path -> path.getFileName().toString().endsWith(".test"))
              .filter(path -> all || SUBSET.contains(path.getFileName().toString()))
              .filter(path -> path.getFileName().toString().contains(filter))
              .sorted()
              .toList();
    }
    return scripts.stream()
        .map(
            script ->
                DynamicTest.dynamicTest(
                    script.getFileName().toString(),
                    script.toUri(),
                    () -> ScenarioRunner.run(script, new Properties(), REMOTE)));
  }
}
