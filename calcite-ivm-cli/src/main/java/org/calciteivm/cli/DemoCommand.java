package org.calciteivm.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code calcite-ivm demo}: shows a materialized view kept up to date incrementally.
 *
 * <p>On a new DuckDB file it generates a table of orders inside DuckDB, creates a materialized view
 * of the open orders (a filter and a projection), changes about 0.1% of the rows (inserts, updates
 * into, out of and within the view's filter, deletes), refreshes the view, and prints how long the
 * refresh took next to recomputing the view's query. It ends by checking that the view equals its
 * query as a bag ({@code EXCEPT ALL} both ways) and exits with 1 if it does not.
 */
@Command(
    name = "demo",
    description = {
      "Shows a materialized view refreshed incrementally, next to recomputing it.",
      "",
      "Creates a table and a materialized view over it in a new DuckDB file, changes about 0.1%% "
          + "of the table, refreshes the view and compares the time with recomputing the "
          + "view's query. Checks that the refreshed view equals its query; exits with 1 if not."
    })
final class DemoCommand implements Callable<Integer> {
  private static final int LABEL_WIDTH = 60;
  private static final String VIEW_QUERY =
      """
      SELECT id, customer_id, upper(region) AS region, amount,
             CASE WHEN amount >= 500 THEN 'large' ELSE 'regular' END AS size,
             order_date
      FROM orders
      WHERE status = 'open' AND amount >= 100\
      """;

  @Spec CommandSpec spec;

  @Option(
      names = "--db",
      paramLabel = "PATH",
      description = "new database file to create and keep (default: a temporary file, deleted)")
  Path db;

  @Option(
      names = "--rows",
      paramLabel = "N",
      defaultValue = "1000000",
      description = "rows in the generated table (default: ${DEFAULT-VALUE})")
  long rows;

  private PrintWriter out;

  @Override
  public Integer call() throws IOException {
    if (rows < 1) {
      throw new ParameterException(spec.commandLine(), "--rows must be at least 1");
    }
    out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    if (db != null && Files.exists(db)) {
      err.println(
          "error: "
              + db
              + " already exists; the demo creates a new database (remove it or choose another"
              + " path)");
      return ExitCode.USAGE;
    }
    Path tempDir = db == null ? Files.createTempDirectory("calcite-ivm-demo-") : null;
    Path file = db == null ? tempDir.resolve("demo.duckdb") : db;
    out.printf("calcite-ivm demo: a materialized view on DuckDB, refreshed incrementally%n");
    out.printf("database: %s%s%n%n", file, tempDir == null ? "" : " (temporary)");
    try (Connection connection = DriverManager.getConnection(Databases.url(file))) {
      return demo(connection);
    } catch (SQLException e) {
      out.println();
      out.flush();
      err.println("error: " + ErrorMessages.oneLine(e));
      return ExitCode.SOFTWARE;
    } finally {
      out.flush();
      if (tempDir != null) {
        deleteRecursively(tempDir);
      }
    }
  }

  private int demo(Connection connection) throws SQLException {
    long nanos = step("1. Table orders: %s generated rows", count(rows));
    update(connection, "CREATE TABLE orders AS " + generatedOrders(0, rows));
    done(nanos);

    nanos = step("2. Materialized view open_orders");
    update(connection, "CREATE MATERIALIZED VIEW open_orders AS\n" + VIEW_QUERY);
    done(nanos);
    long rowsBefore = queryLong(connection, "SELECT count(*) FROM open_orders");
    out.print(VIEW_QUERY.indent(5));
    out.printf("     %s rows%n", count(rowsBefore));

    nanos = step("3. Changing about 0.1%% of orders");
    long inserted = update(connection, "INSERT INTO orders " + generatedOrders(rows, rows / 5000));
    long into =
        update(
            connection,
            "UPDATE orders SET status = 'open' WHERE id % 2500 = 1 AND status <> 'open'");
    long outOf =
        update(
            connection,
            "UPDATE orders SET status = 'shipped' WHERE id % 1000 = 2 AND status = 'open'");
    long within = update(connection, "UPDATE orders SET amount = amount + 10 WHERE id % 5000 = 3");
    long deleted = update(connection, "DELETE FROM orders WHERE id % 5000 = 4");
    done(nanos);
    out.printf(
        "     %s rows: %s inserted, %s deleted, %s updated%n",
        count(inserted + deleted + into + outOf + within),
        count(inserted),
        count(deleted),
        count(into + outOf + within));
    out.printf(
        "     updates: %s moved into the view's filter, %s out of it, %s new amounts%n",
        count(into), count(outOf), count(within));

    nanos = step("4. REFRESH MATERIALIZED VIEW open_orders");
    update(connection, "REFRESH MATERIALIZED VIEW open_orders");
    long refreshNanos = done(nanos);
    long rowsAfter = queryLong(connection, "SELECT count(*) FROM open_orders");
    out.printf("     %s rows before, %s after%n", count(rowsBefore), count(rowsAfter));

    nanos = step("5. Recomputing the view's query instead");
    update(connection, "CREATE OR REPLACE TEMP TABLE recomputed AS\n" + VIEW_QUERY);
    long recomputeNanos = done(nanos);
    out.printf("     CREATE OR REPLACE TEMP TABLE recomputed AS <the view's query>%n%n");

    out.printf(
        Locale.ROOT,
        "refresh: %s, recompute: %s, speed-up: %.1fx%n",
        duration(refreshNanos),
        duration(recomputeNanos),
        (double) recomputeNanos / refreshNanos);
    long onlyInView =
        queryLong(
            connection,
            "SELECT count(*) FROM (SELECT * FROM open_orders EXCEPT ALL (" + VIEW_QUERY + "))");
    long onlyInQuery =
        queryLong(
            connection,
            "SELECT count(*) FROM ((" + VIEW_QUERY + ") EXCEPT ALL SELECT * FROM open_orders)");
    if (onlyInView == 0 && onlyInQuery == 0) {
      out.println("view matches its query: yes");
      return ExitCode.OK;
    }
    out.printf(
        "view matches its query: no (%s rows only in the view, %s only in the query)%n",
        count(onlyInView), count(onlyInQuery));
    return ExitCode.SOFTWARE;
  }

  /**
   * Returns a query of {@code count} orders with ids from {@code from}, generated inside DuckDB.
   * Attributes come from {@code hash(id, k)}, so they look random but are the same in every run.
   */
  private static String generatedOrders(long from, long count) {
    return """
    SELECT i AS id,
           CAST(hash(i, 1) %% 50000 AS INTEGER) AS customer_id,
           CASE WHEN hash(i, 2) %% 100 < 20 THEN 'open'
                WHEN hash(i, 2) %% 100 < 70 THEN 'shipped'
                WHEN hash(i, 2) %% 100 < 95 THEN 'delivered'
                ELSE 'cancelled' END AS status,
           ['north', 'south', 'east', 'west'][CAST(1 + hash(i, 3) %% 4 AS INTEGER)] AS region,
           CAST(1 + (hash(i, 4) %% 100000) / 100.0 AS DECIMAL(10, 2)) AS amount,
           DATE '2024-01-01' + CAST(hash(i, 5) %% 730 AS INTEGER) AS order_date
    FROM range(%d, %d) r(i)\
    """
        .formatted(from, from + count);
  }

  /** Prints the label of a step, padded so its time lines up, and returns its start time. */
  private long step(String format, Object... args) {
    out.printf("%-" + LABEL_WIDTH + "s", String.format(Locale.ROOT, format, args));
    out.flush();
    return System.nanoTime();
  }

  /** Prints the time since {@code start} after a step's label and returns it. */
  private long done(long start) {
    long nanos = System.nanoTime() - start;
    out.printf("%10s%n", duration(nanos));
    out.flush();
    return nanos;
  }

  private static long update(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
      return Math.max(0, statement.getUpdateCount());
    }
  }

  private static long queryLong(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rs = statement.executeQuery(sql)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  private static String count(long n) {
    return String.format(Locale.ROOT, "%,d", n);
  }

  private static String duration(long nanos) {
    double millis = nanos / 1e6;
    return millis < 1000
        ? String.format(Locale.ROOT, "%.1f ms", millis)
        : String.format(Locale.ROOT, "%.2f s", millis / 1000);
  }

  private static void deleteRecursively(Path dir) {
    try (Stream<Path> paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the demo's temporary files in " + dir, e);
    }
  }
}
