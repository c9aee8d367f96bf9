package org.calciteivm.tests;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs every scenario script under {@code resources/scenarios} as one dynamic test. Set {@code
 * -Divm.scenario=word} to run only the scripts whose file name contains {@code word}.
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
    return scripts.stream()
        .flatMap(
            script -> {
              String name = script.getFileName().toString();
              if (!name.startsWith("join_")) {
                return Stream.of(
                    DynamicTest.dynamicTest(
                        name, script.toUri(), () -> ScenarioRunner.run(script)));
              }
              return JOIN_STRATEGIES.stream()
                  .filter(value -> strategy.isEmpty() || strategy.equals(value))
                  .map(
                      value -> {
                        Properties properties = new Properties();
                        properties.setProperty(JOIN_STRATEGY, value);
                        return DynamicTest.dynamicTest(
                            name + " [" + JOIN_STRATEGY + "=" + value + "]",
                            script.toUri(),
                            () -> ScenarioRunner.run(script, properties));
                      });
            });
  }
}
