package org.calciteivm.cli.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalDate;
import java.util.stream.Stream;
import org.calciteivm.cli.bench.BenchReport.Context;

/**
 * Finds out where and on what a run happens ({@link Context#current}). Each probe falls back to a
 * placeholder rather than failing: a report without the processor's name is still a report.
 */
final class ContextProbe {
  private ContextProbe() {}

  /**
   * The context of a run today on this machine: the processor's model name from {@code
   * /proc/cpuinfo} (else the architecture), the processors available to the JVM, the physical
   * memory the JVM sees (a container's limit inside a container), the operating system, the running
   * Java, DuckDB's version from {@code SELECT version()} on an in-memory database, and
   * calcite-ivm's version from the jar manifest.
   */
  static Context current(double scaleFactor) {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    long memory =
        os instanceof com.sun.management.OperatingSystemMXBean bean ? bean.getTotalMemorySize() : 0;
    return new Context(
        scaleFactor,
        LocalDate.now(),
        cpuModel(),
        Runtime.getRuntime().availableProcessors(),
        memory,
        os.getName() + " " + os.getVersion() + " (" + os.getArch() + ")",
        Runtime.version() + " (" + System.getProperty("java.vm.name", "unknown VM") + ")",
        duckdbVersion(),
        calciteIvmVersion());
  }

  private static String duckdbVersion() {
    try (Connection connection = DriverManager.getConnection("jdbc:duckdb:");
        Statement statement = connection.createStatement();
        ResultSet version = statement.executeQuery("SELECT version()")) {
      return version.next() ? version.getString(1) : "unknown";
    } catch (SQLException e) {
      return "unknown";
    }
  }

  /** The version in the jar's manifest; classes run from a build directory have none. */
  private static String calciteIvmVersion() {
    String version = BenchReport.class.getPackage().getImplementationVersion();
    return version == null ? "development build" : version;
  }

  private static String cpuModel() {
    Path cpuinfo = Path.of("/proc/cpuinfo");
    if (Files.isReadable(cpuinfo)) {
      try (Stream<String> lines = Files.lines(cpuinfo)) {
        var model =
            lines
                .filter(line -> line.startsWith("model name"))
                .map(line -> line.substring(line.indexOf(':') + 1).strip())
                .findFirst();
        if (model.isPresent()) {
          return model.get();
        }
      } catch (IOException | RuntimeException e) {
        // fall back to the architecture
      }
    }
    return System.getProperty("os.arch", "unknown");
  }
}
