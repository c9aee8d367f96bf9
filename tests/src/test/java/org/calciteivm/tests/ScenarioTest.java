package org.calciteivm.tests;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs every scenario script under {@code resources/scenarios} as one dynamic test. Set {@code
 * -Divm.scenario=word} to run only the scripts whose file name contains {@code word}.
 *
 * <p>Each script runs on databases of its own, so scripts run side by side, as many at once as the
 * machine has processors (at most four; {@code -Divm.scenario_threads=n} sets it): every run starts
 * when the factory is called, and each dynamic test waits for its own and reports its outcome.
 *
 * <p>Scripts whose name starts with {@code join_} run once per join strategy, with the JDBC
 * connection property {@code ivm_join_strategy} set to each of {@link #JOIN_STRATEGIES} (a script
 * may still change it with {@code SET}). Set {@code -Divm.join_strategy=value} to run them with
 * that strategy only.
 */
class ScenarioTest {
  /** The values of the setting {@code ivm_join_strategy}. */
  static final List<String> JOIN_STRATEGIES = List.of("auto", "inclusion_exclusion", "telescoping");

  private static final String JOIN_STRATEGY = "ivm_join_strategy";

  @TestFactory
  Stream<DynamicTest> scenarios() throws IOException, URISyntaxException {
    Path directory = Path.of(Objects.requireNonNull(getClass().getResource("/scenarios")).toURI());
    String filter = System.getProperty("ivm.scenario", "");
    String strategy = System.getProperty("ivm.join_strategy", "");
    List<Path> scripts;
    try (Stream<Path> files = Files.list(directory)) {
      scripts =
          files
              .filter(path -> path.getFileName().toString().endsWith(".test"))
              .filter(path -> path.getFileName().toString().contains(filter))
              .sorted()
              .toList();
    }
    int threads =
        Integer.getInteger(
            "ivm.scenario_threads", Math.min(4, Runtime.getRuntime().availableProcessors()));
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    List<DynamicTest> tests =
        scripts.stream()
            .flatMap(
                script -> {
                  String name = script.getFileName().toString();
                  if (!name.startsWith("join_")) {
                    return Stream.of(started(pool, name, script, new Properties()));
                  }
                  return JOIN_STRATEGIES.stream()
                      .filter(value -> strategy.isEmpty() || strategy.equals(value))
                      .map(
                          value -> {
                            Properties properties = new Properties();
                            properties.setProperty(JOIN_STRATEGY, value);
                            return started(
                                pool,
                                name + " [" + JOIN_STRATEGY + "=" + value + "]",
                                script,
                                properties);
                          });
                })
            .toList();
    pool.shutdown();
    return tests.stream();
  }

  /**
   * The dynamic test of {@code script} run with {@code properties}, its run started in {@code
   * pool}.
   */
  private static DynamicTest started(
      ExecutorService pool, String name, Path script, Properties properties) {
    Future<?> run =
        pool.submit(
            () -> {
              ScenarioRunner.run(script, properties);
              return null;
            });
    return DynamicTest.dynamicTest(
        name,
        script.toUri(),
        () -> {
          try {
            run.get();
          } catch (ExecutionException e) {
            throw e.getCause();
          }
        });
  }
}
