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
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.function.ToLongFunction;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code calcite-ivm demo}: shows a materialized view kept up to date incrementally, next to
 * recomputing it.
 *
 * <p>On a new DuckDB file it generates a fact table of orders and a dimension table of customers
 * inside DuckDB, and creates a materialized view that aggregates the orders joined with their
 * customers: the kind of view whose recompute reads everything while a refresh reads the change and
 * the rows it joins with. Then, in rounds, it changes about 0.1% of the orders (inserts, updates,
 * deletes), refreshes the view, recomputes the view's query into a table the same way the view is
 * stored, and checks that the two are equal as bags ({@code EXCEPT ALL} both ways). A first round
 * is a warm-up and not counted: it pays for planning the view's maintenance and for cold caches. It
 * reports the median, minimum and maximum of both times, and exits with 1 if the view ever differed
 * from its recompute.
 */
@Command(
    name = "demo",
    description = {
      "Shows a materialized view refreshed incrementally, next to recomputing it.",
      "",
      "Creates orders and customers in a new DuckDB file and a materialized view of revenue per "
          + "region, segment and year over their join. Then, in rounds, changes about 0.1%% of "
          + "the orders, refreshes the view, recomputes its query into a table, and checks that "
          + "both are equal. Reports the median, minimum and maximum times after a warm-up round; "
          + "exits with 1 if the view ever differs from its recompute."
    })
final class DemoCommand implements Callable<Integer> {
  private static final String VIEW = "revenue_by_region";
  private static final String RECOMPUTED = "revenue_recomputed";
  private static final String VIEW_QUERY =
      """
      SELECT c.region, c.segment, EXTRACT(YEAR FROM o.order_date) AS order_year,
             count(*) AS orders, sum(o.amount) AS revenue
      FROM orders o JOIN customers c ON o.customer_id = c.id
      WHERE o.status <> 'cancelled'
      GROUP BY c.region, c.segment, EXTRACT(YEAR FROM o.order_date)\
      """;
  private static final int LABEL_WIDTH = 60;

  /** Orders per customer: the dimension table is this much smaller than the fact table. */
  private static final long ORDERS_PER_CUSTOMER = 100;

  @Spec CommandSpec spec;

  @Option(
      names = "--db",
      paramLabel = "PATH",
      description = "new database file to create and keep (default: a temporary file, deleted)")
  Path db;

  @Option(
      names = "--rows",
      paramLabel = "N",
      defaultValue = "2000000",
      description =
          "orders in the generated table (default: ${DEFAULT-VALUE}; one customer per "
              + ORDERS_PER_CUSTOMER
              + " orders)")
  long rows;

  @Option(
      names = "--rounds",
      paramLabel = "N",
      defaultValue = "5",
      description = "measured rounds of change, refresh and recompute (default: ${DEFAULT-VALUE})")
  int rounds;

  private PrintWriter out;

  /** What one round did and how long its steps took. */
  private record Round(
      long changedRows,
      long changeNanos,
      long refreshNanos,
      long recomputeNanos,
      boolean matches) {}

  @Override
  public Integer call() throws IOException {
    if (rows < 1) {
      throw new ParameterException(spec.commandLine(), "--rows must be at least 1");
    }
    if (rounds < 1) {
      throw new ParameterException(spec.commandLine(), "--rounds must be at least 1");
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
    long customers = Math.max(1, rows / ORDERS_PER_CUSTOMER);
    long nanos = step("1. Tables: %s orders, %s customers", count(rows), count(customers));
    update(connection, "CREATE TABLE customers AS " + generatedCustomers(customers));
    update(connection, "CREATE TABLE orders AS " + generatedOrders(0, rows, customers, 0));
    done(nanos);

    nanos = step("2. Materialized view %s", VIEW);
    update(connection, "CREATE MATERIALIZED VIEW " + VIEW + " AS\n" + VIEW_QUERY);
    done(nanos);
    out.print(VIEW_QUERY.indent(5));
    out.printf("     %s rows%n", count(queryLong(connection, "SELECT count(*) FROM " + VIEW)));

    nanos = step("3. Warm-up round, not counted");
    Round warmUp = round(connection, 0, customers);
    done(nanos);
    out.printf(
        "     refresh %s (the first in a process reads the view's program and warms up the JVM),"
            + " recompute %s%n%n",
        duration(warmUp.refreshNanos()), duration(warmUp.recomputeNanos()));

    out.printf("4. %d rounds: change about 0.1%% of orders, refresh, recompute, compare%n", rounds);
    out.printf("     recompute: CREATE OR REPLACE TABLE %s AS <the view's query>%n", RECOMPUTED);
    out.printf(
        Locale.ROOT,
        "     %-6s %13s %10s %10s %10s  %s%n",
        "round",
        "changed rows",
        "change",
        "refresh",
        "recompute",
        "view = recompute");
    List<Round> measured = new ArrayList<>();
    boolean allMatch = warmUp.matches();
    for (int i = 1; i <= rounds; i++) {
      Round round = round(connection, i, customers);
      measured.add(round);
      allMatch &= round.matches();
      out.printf(
          Locale.ROOT,
          "     %-6d %13s %10s %10s %10s  %s%n",
          i,
          count(round.changedRows()),
          duration(round.changeNanos()),
          duration(round.refreshNanos()),
          duration(round.recomputeNanos()),
          round.matches() ? "yes" : "NO");
      out.flush();
    }
    update(connection, "DROP TABLE " + RECOMPUTED);

    long refresh = median(measured, Round::refreshNanos);
    long recompute = median(measured, Round::recomputeNanos);
    out.println();
    out.printf(
        "refresh:   median %s (%s to %s)%n",
        duration(refresh),
        duration(min(measured, Round::refreshNanos)),
        duration(max(measured, Round::refreshNanos)));
    out.printf(
        "recompute: median %s (%s to %s)%n",
        duration(recompute),
        duration(min(measured, Round::recomputeNanos)),
        duration(max(measured, Round::recomputeNanos)));
    out.printf(
        Locale.ROOT,
        "speed-up:  %.1fx (median recompute / median refresh)%n",
        (double) recompute / refresh);
    if (allMatch) {
      out.println("view matches its recompute after every refresh: yes (EXCEPT ALL both ways)");
      return ExitCode.OK;
    }
    out.println("view matches its recompute after every refresh: NO");
    return ExitCode.SOFTWARE;
  }

  /**
   * One round: changes about 0.1% of the orders (half of it new orders, 30% updates of amounts,
   * some of which cancel an order and so leave the view's filter, 20% deletes), refreshes the view,
   * recomputes its query, and compares the two.
   */
  private Round round(Connection connection, int round, long customers) throws SQLException {
    long change = Math.max(3, rows / 1000);
    long inserts = change / 2;
    long updates = change * 3 / 10;
    long deletes = change - inserts - updates;
    long firstNewId = rows + round * inserts;

    long start = System.nanoTime();
    long changed =
        update(
            connection,
            "INSERT INTO orders " + generatedOrders(firstNewId, inserts, customers, round + 1));
    changed +=
        update(
            connection,
            """
            UPDATE orders
            SET amount = amount + 10,
                status = CASE WHEN hash(id, %d) %% 4 = 0 THEN 'cancelled' ELSE status END
            WHERE id IN (SELECT hash(i, %d, 1) %% %d FROM range(%d) r(i))\
            """
                .formatted(round, round, rows, updates));
    changed +=
        update(
            connection,
            "DELETE FROM orders WHERE id IN (SELECT hash(i, %d, 2) %% %d FROM range(%d) r(i))"
                .formatted(round, rows, deletes));
    long changeNanos = System.nanoTime() - start;

    start = System.nanoTime();
    update(connection, "REFRESH MATERIALIZED VIEW " + VIEW);
    long refreshNanos = System.nanoTime() - start;

    // Stored the way the view is: in a table of the database file.
    start = System.nanoTime();
    update(connection, "CREATE OR REPLACE TABLE " + RECOMPUTED + " AS\n" + VIEW_QUERY);
    long recomputeNanos = System.nanoTime() - start;

    boolean matches =
        queryLong(
                    connection,
                    "SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s)"
                        .formatted(VIEW, RECOMPUTED))
                == 0
            && queryLong(
                    connection,
                    "SELECT count(*) FROM (SELECT * FROM %s EXCEPT ALL SELECT * FROM %s)"
                        .formatted(RECOMPUTED, VIEW))
                == 0;
    return new Round(changed, changeNanos, refreshNanos, recomputeNanos, matches);
  }

  /** Returns a query of {@code count} customers, generated inside DuckDB. */
  private static String generatedCustomers(long count) {
    return """
    SELECT i AS id,
           ['north', 'south', 'east', 'west', 'central', 'coast', 'mountains', 'islands']
               [CAST(1 + hash(i, 1) %% 8 AS INTEGER)] AS region,
           ['consumer', 'corporate', 'small business'][CAST(1 + hash(i, 2) %% 3 AS INTEGER)]
               AS segment
    FROM range(%d) r(i)\
    """
        .formatted(count);
  }

  /**
   * Returns a query of {@code count} orders with ids from {@code from}, generated inside DuckDB.
   * Attributes come from {@code hash(id, k, seed)}, so they look random but are the same in every
   * run.
   */
  private static String generatedOrders(long from, long count, long customers, int seed) {
    return """
    SELECT i AS id,
           CAST(hash(i, 1, %3$d) %% %4$d AS INTEGER) AS customer_id,
           CASE WHEN hash(i, 2, %3$d) %% 100 < 20 THEN 'open'
                WHEN hash(i, 2, %3$d) %% 100 < 70 THEN 'shipped'
                WHEN hash(i, 2, %3$d) %% 100 < 95 THEN 'delivered'
                ELSE 'cancelled' END AS status,
           CAST(1 + (hash(i, 3, %3$d) %% 100000) / 100.0 AS DECIMAL(10, 2)) AS amount,
           DATE '2023-01-01' + CAST(hash(i, 4, %3$d) %% 1096 AS INTEGER) AS order_date
    FROM range(%1$d, %2$d) r(i)\
    """
        .formatted(from, from + count, seed, customers);
  }

  private static long median(List<Round> rounds, ToLongFunction<Round> time) {
    long[] sorted = rounds.stream().mapToLong(time).sorted().toArray();
    int middle = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  }

  private static long min(List<Round> rounds, ToLongFunction<Round> time) {
    return rounds.stream().mapToLong(time).min().orElseThrow();
  }

  private static long max(List<Round> rounds, ToLongFunction<Round> time) {
    return rounds.stream().mapToLong(time).max().orElseThrow();
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
