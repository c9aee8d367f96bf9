package org.calciteivm.tests;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs every scenario script under {@code resources/scenarios} as one dynamic test. Set {@code
 * -Divm.scenario=word} to run only the scripts whose file name contains {@code word}.
 */
class ScenarioTest {
  @TestFactory
  Stream<DynamicTest> scenarios() throws IOException, URISyntaxException {
    Path directory = Path.of(Objects.requireNonNull(getClass().getResource("/scenarios")).toURI());
    String filter = System.getProperty("ivm.scenario", "");
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
        .map(
            script ->
                DynamicTest.dynamicTest(
                    script.getFileName().toString(),
                    script.toUri(),
                    () -> ScenarioRunner.run(script)));
  }
}
