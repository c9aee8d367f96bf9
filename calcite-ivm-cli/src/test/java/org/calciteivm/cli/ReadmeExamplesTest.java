package org.calciteivm.cli;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.SimpleJavaFileObject;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's examples, run as written: the Java of "Using it" and of the server's "From another
 * JVM" (compiled from the README's text, with only the placeholder path and host filled in), and
 * the server session (every {@code bin/calcite-ivm} command of its block, run in a JVM of its own
 * in a scratch directory, in the README's order, on the README's port).
 */
class ReadmeExamplesTest {
  private static final Path README = Path.of("..", "README.md");
  private static final String PASSWORD = "correct horse battery staple";

  @TempDir Path dir;

  @Test
  void theJavaOfUsingItRuns() throws Exception {
    String example = codeBlock(section("## Using it"), "java");
    Path file = dir.resolve("file.duckdb");
    run(example.replace("/path/to/file.duckdb", file.toString()), "");
    try (Connection c = DriverManager.getConnection("jdbc:ivm:duckdb:" + file);
        Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT * FROM open_orders ORDER BY id")) {
      List<String> rows = new ArrayList<>();
      while (rs.next()) {
        rows.add(rs.getInt(1) + " " + rs.getBigDecimal(2).stripTrailingZeros().toPlainString());
      }
      assertThat(rows).containsExactly("1 12", "2 6");
    }
  }

  @Test
  void theServerSessionRuns() throws Exception {
    String server = section("## Server");
    List<List<String>> commands = commands(codeBlock(server, "sh"));
    assertThat(commands).hasSize(3);
    assertThat(commands.get(0)).startsWith("users", "add");
    assertThat(commands.get(1)).startsWith("serve");
    assertThat(commands.get(2)).startsWith("run");

    CliRun add = runInDir(commands.get(0), PASSWORD + "\n");
    assertThat(add.exitCode()).as(add.err()).isZero();

    Process serve = start(commands.get(1));
    try {
      List<String> printed = readUntilConnectLine(serve);
      // the README shows what serve prints, each line after "# "
      List<String> shown =
          codeBlock(server, "sh")
              .lines()
              .filter(line -> line.startsWith("# "))
              .map(line -> line.substring(2))
              .toList();
      assertThat(printed).hasSameSizeAs(shown);
      for (int i = 0; i < shown.size(); i++) {
        String expected = shown.get(i).replaceAll("^\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z", "");
        assertThat(printed.get(i).replaceAll("^\\d{4}-\\d\\d-\\d\\dT[0-9:.]+Z", ""))
            .isEqualTo(expected);
      }

      Files.writeString(
          dir.resolve("report.sql"),
          """
          CREATE TABLE orders (id INTEGER, status VARCHAR, amount DECIMAL(10,2));
          CREATE MATERIALIZED VIEW open_orders AS
            SELECT id, amount * 1.2 AS gross FROM orders WHERE status = 'open';
          INSERT INTO orders VALUES (1, 'open', 10.00), (2, 'closed', 5.00);
          SELECT count(*) AS orders FROM orders;
          """);
      CliRun report = runInDir(commands.get(2), PASSWORD + "\n");
      assertThat(report.exitCode()).as(report.err()).isZero();
      assertThat(report.out()).isEqualTo("INSERT\t2\norders\n2\n");

      // another JVM with Avatica's client, as the README's second Java example
      String client = codeBlock(server.substring(server.indexOf("From another JVM")), "java");
      run(client.replace("db-host", "127.0.0.1"), PASSWORD);
    } finally {
      serve.destroy(); // SIGTERM, as the README says stops it
      assertThat(serve.waitFor(60, TimeUnit.SECONDS)).isTrue();
    }
    assertThat(serve.exitValue()).isIn(0, 143);
  }

  /** The text of the README from {@code heading} to the next heading of its level. */
  private static String section(String heading) throws IOException {
    String readme = Files.readString(README, UTF_8);
    int start = readme.indexOf("\n" + heading + "\n");
    assertThat(start).as("README has %s", heading).isNotNegative();
    String level = heading.substring(0, heading.indexOf(' ') + 1);
    int end = readme.indexOf("\n" + level, start + heading.length() + 1);
    return readme.substring(start, end < 0 ? readme.length() : end);
  }

  /** The first fenced code block of {@code language} in {@code text}. */
  private static String codeBlock(String text, String language) {
    Matcher m = Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL).matcher(text);
    assertThat(m.find()).as("a %s block", language).isTrue();
    return m.group(1);
  }

  /**
   * The {@code bin/calcite-ivm} commands of a shell block, split into words as the shell does
   * (single quotes, backslash-newline continuations, {@code #} comments).
   */
  private static List<List<String>> commands(String block) {
    List<List<String>> commands = new ArrayList<>();
    String joined = block.replace("\\\n", " ");
    for (String line : joined.lines().toList()) {
      List<String> words = new ArrayList<>();
      StringBuilder word = null;
      boolean quoted = false;
      for (int i = 0; i < line.length(); i++) {
        char c = line.charAt(i);
        if (quoted) {
          if (c == '\'') {
            quoted = false;
          } else {
            word.append(c);
          }
        } else if (c == '\'') {
          quoted = true;
          word = word == null ? new StringBuilder() : word;
        } else if (c == '#' && word == null) {
          break;
        } else if (Character.isWhitespace(c)) {
          if (word != null) {
            words.add(word.toString());
            word = null;
          }
        } else {
          word = word == null ? new StringBuilder() : word;
          word.append(c);
        }
      }
      if (word != null) {
        words.add(word.toString());
      }
      if (!words.isEmpty() && words.get(0).equals("bin/calcite-ivm")) {
        commands.add(words.subList(1, words.size()));
      }
    }
    return commands;
  }

  /**
   * Runs {@code calcite-ivm command...} in a JVM of its own in the scratch directory, to its end.
   */
  private CliRun runInDir(List<String> command, String stdin) throws Exception {
    Path err = Files.createTempFile(dir, "stderr", ".txt");
    Process process = builder(command).redirectError(err.toFile()).start();
    try (OutputStream in = process.getOutputStream()) {
      in.write(stdin.getBytes(UTF_8));
    }
    String out = new String(process.getInputStream().readAllBytes(), UTF_8);
    assertThat(process.waitFor(5, TimeUnit.MINUTES)).isTrue();
    return new CliRun(process.exitValue(), out, Files.readString(err, UTF_8));
  }

  /**
   * Starts {@code calcite-ivm command...} in a JVM of its own in the scratch directory, standard
   * error merged into standard output.
   */
  private Process start(List<String> command) throws IOException {
    return builder(command).redirectErrorStream(true).start();
  }

  private ProcessBuilder builder(List<String> command) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    List<String> line =
        new ArrayList<>(
            List.of(java, "-cp", System.getProperty("java.class.path"), Main.class.getName()));
    line.addAll(command);
    return new ProcessBuilder(line).directory(dir.toFile());
  }

  /** What the server prints up to and including its "connect with" line. */
  private static List<String> readUntilConnectLine(Process serve) throws IOException {
    BufferedReader out = new BufferedReader(new InputStreamReader(serve.getInputStream(), UTF_8));
    List<String> lines = new ArrayList<>();
    for (String line = out.readLine(); line != null; line = out.readLine()) {
      lines.add(line);
      if (line.startsWith("calcite-ivm: connect with")) {
        return lines;
      }
    }
    throw new AssertionError("serve ended before saying how to connect: " + lines);
  }

  /**
   * Compiles {@code statements} (a README snippet) as the body of a method with a {@code String
   * password} in scope, the way the snippet uses it, and runs it.
   */
  private void run(String statements, String password) throws Exception {
    String source =
        "import java.sql.*;\nimport java.util.Properties;\n"
            + "public class Example {\n  public static void main(String password) throws"
            + " Exception {\n"
            + statements
            + "\n  }\n}\n";
    Path classes = Files.createDirectories(dir.resolve("classes"));
    JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
    SimpleJavaFileObject file =
        new SimpleJavaFileObject(
            URI.create("string:///Example.java"), SimpleJavaFileObject.Kind.SOURCE) {
          @Override
          public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return source;
          }
        };
    boolean compiled =
        compiler
            .getTask(
                null,
                null,
                null,
                List.of("-d", classes.toString(), "-cp", System.getProperty("java.class.path")),
                null,
                List.of(file))
            .call();
    assertThat(compiled).as("the README's example compiles:%n%s", source).isTrue();
    try (URLClassLoader loader =
        new URLClassLoader(new URL[] {classes.toUri().toURL()}, getClass().getClassLoader())) {
      Method main = loader.loadClass("Example").getMethod("main", String.class);
      main.invoke(null, password);
    }
  }
}
