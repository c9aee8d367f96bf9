package org.calciteivm.tests;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs one scenario script, a subset of DuckDB's sqllogictest format, against a fresh database file
 * through the calcite-ivm driver.
 *
 * <p>Blocks are separated by blank lines; lines starting with {@code #} are comments.
 *
 * <ul>
 *   <li>{@code statement ok} followed by one SQL statement (it may span lines);
 *   <li>{@code statement error <text>}: the statement must fail with a message that contains {@code
 *       <text>}, case-insensitively; {@code a && b} requires both parts;
 *   <li>{@code statement maybe}: the statement may succeed or fail (a write the driver may either
 *       capture or refuse);
 *   <li>{@code query <type letters> [rowsort]}, SQL, {@code ----}, then the expected rows, values
 *       separated by tabs, {@code NULL} for NULL and {@code (empty)} for the empty string;
 *   <li>{@code check <view>} compares the materialized view with its query;
 *   <li>{@code connection <name>} runs what follows on the named connection to the same database,
 *       opened on first use; the first connection is called {@code default};
 *   <li>{@code reopen} closes every connection and opens {@code default} on the same file again.
 * </ul>
 *
 * <p>{@code __TEST_DIR__} in SQL is replaced by a temporary directory. The runner remembers the
 * query of every materialized view it creates and compares the view with it after each successful
 * CREATE and REFRESH MATERIALIZED VIEW ({@link ViewCheck}), and every immediate view after every
 * successful statement (without refreshing it). After a failed statement outside an explicit
 * transaction it checks that the database (catalog and table contents) is unchanged.
 *
 * <p>Every connection is opened with the same JDBC properties, none unless given to {@link
 * #run(Path, Properties)}. Connections are those of the calcite-ivm driver to the database file,
 * unless {@link #run(Path, Properties, Databases)} is given another way to reach it (such as a
 * server).
 */
final class ScenarioRunner implements AutoCloseable {
  private static final String NAME = "(\"(?:[^\"]|\"\")+\"|[\\w.]+)";
  private static final Pattern CREATE_VIEW =
      Pattern.compile(
          "\\s*CREATE\\s+MATERIALIZED\\s+VIEW\\s+(IF\\s+NOT\\s+EXISTS\\s+)?"
              + NAME
              + "\\s+(?:WITH\\s*\\((?:[^()']|'[^']*')*\\)\\s*)?AS\\s(.*)",
          Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
  private static final Pattern REFRESH_VIEW =
      Pattern.compile(
          "\\s*REFRESH\\s+MATERIALIZED\\s+VIEW\\s+" + NAME + "\\s*", Pattern.CASE_INSENSITIVE);
  private static final Pattern DROP_VIEW =
      Pattern.compile(
          "\\s*DROP\\s+MATERIALIZED\\s+VIEW\\s+(IF\\s+EXISTS\\s+)?" + NAME + "\\s*",
          Pattern.CASE_INSENSITIVE);
  private static final Pattern BEGIN =
      Pattern.compile(
          "\\s*(BEGIN|START\\s+TRANSACTION)\\b.*", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);
  private static final Pattern END =
      Pattern.compile(
          "\\s*(COMMIT|ROLLBACK|END|ABORT)\\b.*", Pattern.CASE_INSENSITIVE | Pattern.DOTALL);

  /** How a script reaches its database file: opens it and then connections to it. */
  @FunctionalInterface
  interface Databases {
    /** Connections of the calcite-ivm driver to the file itself. */
    Databases EMBEDDED =
        file ->
            new Database() {
              @Override
              public Connection connect(Properties properties) throws SQLException {
                return DriverManager.getConnection("jdbc:ivm:duckdb:" + file, properties);
              }

              @Override
              public void close() {}
            };

    /** Opens the database file {@code file}. */
    Database open(Path file) throws SQLException;
  }

  /** An open database: where connections come from until it is closed. */
  interface Database extends AutoCloseable {
    /** Opens a connection with {@code properties}. */
    Connection connect(Properties properties) throws SQLException;

    @Override
    void close() throws SQLException;
  }

  /** A materialized view as the script created it: the name as written and its query. */
  private record View(String name, String query) {}

  private final String file;
  private final Path directory;
  private final Databases databases;
  private final Properties properties;
  private Database database;
  private final Map<String, View> views = new HashMap<>();
  private final Map<String, Connection> connections = new HashMap<>();
  private final Set<String> inTransaction = new HashSet<>();
  private String current = "default";
  private Connection connection;

  private ScenarioRunner(String file, Path directory, Properties properties, Databases databases)
      throws SQLException {
    this.file = file;
    this.directory = directory;
    this.databases = databases;
    // the scripts are about applying changes; on their tiny tables ivm_refresh_mode = auto could
    // recompute instead (refresh_modes.test sets the mode itself); -Divm.scenario.mode=full runs
    // them recomputing
    this.properties = new Properties();
    this.properties.setProperty(
        "ivm_refresh_mode", System.getProperty("ivm.scenario.mode", "incremental"));
    this.properties.putAll(properties);
    this.database = databases.open(directory.resolve("scenario.duckdb"));
    use("default");
  }

  /** Runs the script at {@code script} on a new database in a temporary directory. */
  static void run(Path script) throws IOException, SQLException {
    run(script, new Properties());
  }

  /**
   * Runs the script at {@code script} on a new database in a temporary directory, opening every
   * connection with {@code properties} (such as settings {@code ivm_*}).
   */
  static void run(Path script, Properties properties) throws IOException, SQLException {
    run(script, properties, Databases.EMBEDDED);
  }

  /**
   * Runs the script at {@code script} on a new database in a temporary directory, reached through
   * {@code databases}, opening every connection with {@code properties}.
   */
  static void run(Path script, Properties properties, Databases databases)
      throws IOException, SQLException {
    Path directory = Files.createTempDirectory("ivm-scenario");
    try (ScenarioRunner runner =
        new ScenarioRunner(script.getFileName().toString(), directory, properties, databases)) {
      runner.runLines(Files.readAllLines(script));
    } finally {
      try (var paths = Files.walk(directory)) {
        paths.sorted((a, b) -> b.compareTo(a)).forEach(path -> path.toFile().delete());
      }
    }
  }

  private void runLines(List<String> lines) throws SQLException {
    int i = 0;
    while (i < lines.size()) {
      String line = lines.get(i).strip();
      if (line.isEmpty() || line.startsWith("#")) {
        i++;
        continue;
      }
      String where = file + ":" + (i + 1);
      String[] words = line.split("\\s+");
      int end = i + 1;
      while (end < lines.size() && !lines.get(end).isBlank()) {
        end++;
      }
      List<String> body = lines.subList(i + 1, end);
      switch (words[0]) {
        case "statement" -> statement(words, line, body, where);
        case "query" -> query(words, body, where);
        case "check" -> check(viewNamed(words[1], where), where);
        case "connection" -> use(words[1]);
        case "reopen" -> reopen();
        default -> throw new AssertionError(where + ": unknown directive: " + line);
      }
      i = end;
    }
  }

  private void statement(String[] words, String line, List<String> body, String where)
      throws SQLException {
    String sql = sql(body);
    String mode = words.length > 1 ? words[1] : "";
    String expectedError = line.replaceFirst("^statement\\s+error\\s*", "");
    boolean mayFail = mode.equals("error") || mode.equals("maybe");
    if (!mayFail && !mode.equals("ok")) {
      throw new AssertionError(where + ": unknown statement mode: " + line);
    }
    List<String> before = mayFail && !inTransaction.contains(current) ? fingerprint() : null;
    try {
      execute(sql);
    } catch (SQLException e) {
      if (!mayFail) {
        throw new AssertionError(where + ": statement failed: " + e.getMessage() + "\n" + sql, e);
      }
      String message = String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT);
      for (String part : expectedError.split("\\s+&&\\s+")) {
        if (mode.equals("error") && !message.contains(part.toLowerCase(Locale.ROOT))) {
          throw new AssertionError(
              String.format(
                  "%s: expected an error containing \"%s\" but got: %s%n%s",
                  where, part, e.getMessage(), sql),
              e);
        }
      }
      if (before != null && !before.equals(fingerprint())) {
        throw new AssertionError(
            String.format(
                "%s: the failed statement changed the database%n%s%n  before: %s%n  after:  %s",
                where, sql, before, fingerprint()));
      }
      return;
    }
    if (mode.equals("error")) {
      throw new AssertionError(where + ": statement succeeded but should fail:\n" + sql);
    }
    afterSuccess(sql, where);
  }

  private void execute(String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  /** Tracks transactions and view definitions, and checks each created or refreshed view. */
  private void afterSuccess(String sql, String where) throws SQLException {
    if (BEGIN.matcher(sql).matches()) {
      inTransaction.add(current);
    } else if (END.matcher(sql).matches()) {
      inTransaction.remove(current);
    }
    Matcher create = CREATE_VIEW.matcher(sql);
    Matcher refresh = REFRESH_VIEW.matcher(sql);
    Matcher drop = DROP_VIEW.matcher(sql);
    if (create.matches()) {
      // CREATE ... IF NOT EXISTS of an existing view keeps the old definition.
      View view =
          views.computeIfAbsent(
              key(create.group(2)), k -> new View(create.group(2), create.group(3)));
      check(view, where);
    } else if (refresh.matches()) {
      check(viewNamed(refresh.group(1), where), where);
    } else if (drop.matches()) {
      views.remove(key(drop.group(2)));
    }
    checkImmediateViews(where);
  }

  /**
   * Compares every immediate materialized view ({@code WITH (refresh = 'immediate')}) with its
   * query, on the current connection: a write must have maintained them before it returned, in its
   * own transaction too.
   */
  private void checkImmediateViews(String where) throws SQLException {
    if (views.isEmpty()) {
      return;
    }
    for (String name :
        ViewCheck.rows(connection, "SELECT name FROM ivm_views WHERE refresh = 'immediate'")) {
      View view = views.get(key(quote(name)));
      if (view != null) {
        check(view, where + " (immediate view " + name + ")");
      }
    }
  }

  private void query(String[] words, List<String> body, String where) throws SQLException {
    int separator = body.indexOf("----");
    if (words.length < 2 || separator < 0) {
      throw new AssertionError(where + ": a query needs type letters, SQL, ---- and rows");
    }
    String sql = sql(body.subList(0, separator));
    List<String> expected = new ArrayList<>(body.subList(separator + 1, body.size()));
    List<String> actual;
    try {
      actual = ViewCheck.rows(connection, sql);
    } catch (SQLException e) {
      throw new AssertionError(where + ": query failed: " + e.getMessage() + "\n" + sql, e);
    }
    for (String row : actual) {
      if (row.split("\t", -1).length != words[1].length()) {
        throw new AssertionError(
            where + ": query returns other than " + words[1].length() + " columns: " + row);
      }
    }
    if (Arrays.asList(words).contains("rowsort")) {
      expected.sort(null);
      actual.sort(null);
    }
    if (!expected.equals(actual)) {
      throw new AssertionError(
          String.format(
              "%s: wrong result for%n%s%n  expected:%n    %s%n  actual:%n    %s",
              where, sql, String.join("\n    ", expected), String.join("\n    ", actual)));
    }
  }

  private void check(View view, String where) throws SQLException {
    ViewCheck.assertMatches(connection, view.name(), view.query(), where);
    ViewCheck.assertHiddenViewsMatch(connection, view.name(), where);
  }

  private View viewNamed(String name, String where) {
    View view = views.get(key(name));
    if (view == null) {
      throw new AssertionError(where + ": no materialized view " + name + " was created");
    }
    return view;
  }

  private void use(String name) throws SQLException {
    current = name;
    connection = connections.get(name);
    if (connection == null) {
      connection = database.connect(properties);
      connections.put(name, connection);
    }
  }

  private void reopen() throws SQLException {
    close();
    database = databases.open(directory.resolve("scenario.duckdb"));
    connections.clear();
    inTransaction.clear();
    use("default");
  }

  /**
   * Every object in the catalog with its definition, and the row count and a content hash of every
   * table (the driver's hidden ones included).
   */
  private List<String> fingerprint() throws SQLException {
    List<String> state = new ArrayList<>();
    List<String> tables =
        ViewCheck.rows(
            connection,
            "SELECT database_name, schema_name, table_name, sql FROM duckdb_tables() ORDER BY ALL");
    for (String table : tables) {
      String[] parts = table.split("\t");
      String name = quote(parts[0]) + "." + quote(parts[1]) + "." + quote(parts[2]);
      state.add(table);
      state.addAll(ViewCheck.rows(connection, "SELECT count(*), sum(hash(x)) FROM " + name + " x"));
    }
    state.addAll(
        ViewCheck.rows(
            connection,
            "SELECT database_name, schema_name, view_name, sql FROM duckdb_views()"
                + " WHERE NOT internal ORDER BY ALL"));
    state.addAll(
        ViewCheck.rows(
            connection,
            "SELECT database_name, schema_name, sequence_name FROM duckdb_sequences() ORDER BY ALL"));
    return state;
  }

  private String sql(List<String> lines) {
    String sql =
        String.join("\n", lines.stream().filter(l -> !l.strip().startsWith("#")).toList()).strip();
    if (sql.endsWith(";")) {
      sql = sql.substring(0, sql.length() - 1);
    }
    return sql.replace("__TEST_DIR__", directory.toString());
  }

  private static String key(String name) {
    String unquoted = name.startsWith("\"") ? name.substring(1, name.length() - 1) : name;
    return unquoted.replace("\"\"", "\"").toLowerCase(Locale.ROOT);
  }

  private static String quote(String identifier) {
    return "\"" + identifier.replace("\"", "\"\"") + "\"";
  }

  @Override
  public void close() throws SQLException {
    for (Connection open : connections.values()) {
      open.close();
    }
    database.close();
  }
}
