package org.calciteivm.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Tests {@code bin/calcite-ivm} itself: its first-use build must leave stdout to the tool's results
 * and write nothing to stderr that would share a line with them.
 *
 * <p>The script runs in a copy of the repository's layout whose Maven project is an empty pom (a
 * real Maven build, of nothing, in about a second) and whose class path file names this JVM's class
 * path, older than the pom, so that the script builds first.
 */
class LauncherTest {
  private static final char ESCAPE = '\u001b';
  private static final String BUILDING =
      "calcite-ivm: building the project with Maven (first use, or sources changed) ...\n";

  @TempDir Path root;

  private Path layout(String pom) throws IOException {
    Path script = root.resolve("bin/calcite-ivm");
    Files.createDirectories(script.getParent());
    Files.copy(Path.of("").toAbsolutePath().getParent().resolve("bin/calcite-ivm"), script);
    Path target = root.resolve("calcite-ivm-cli/target");
    Files.createDirectories(target.resolve("classes"));
    Path classPath = Files.writeString(target.resolve("classpath.txt"), CliRun.classPath(), UTF_8);
    Files.setLastModifiedTime(classPath, FileTime.from(Instant.now().minus(1, ChronoUnit.HOURS)));
    Files.writeString(root.resolve("pom.xml"), pom, UTF_8);
    return script;
  }

  @Test
  void theFirstUseBuildKeepsStdoutCleanAndEndsItsLines() throws Exception {
    Path script =
        layout(
            """
            <project xmlns="http://maven.apache.org/POM/4.0.0">
              <modelVersion>4.0.0</modelVersion>
              <groupId>org.calciteivm.test</groupId>
              <artifactId>launcher-test</artifactId>
              <version>1</version>
              <packaging>pom</packaging>
            </project>
            """);

    CliRun run =
        CliRun.run(
            root, "SELECT 1 AS one;\n", Map.of(), List.of("bash", script.toString(), "run", "-"));

    assertThat(run.out()).isEqualTo("one\n1\n");
    assertThat(run.err()).isEqualTo(BUILDING);
    assertThat(run.exitCode()).isZero();
  }

  @Test
  void aFailedBuildSaysSoOnStderrInWholeLines() throws Exception {
    Path script = layout("<project>\n");

    CliRun run = CliRun.run(root, "", Map.of(), List.of("bash", script.toString(), "--version"));

    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out()).isEmpty();
    assertThat(run.err())
        .startsWith(BUILDING)
        .contains("Non-readable POM")
        .endsWith("\ncalcite-ivm: the build failed\n")
        .doesNotContain(String.valueOf(ESCAPE));
  }
}
