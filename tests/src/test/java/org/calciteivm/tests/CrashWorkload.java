package org.calciteivm.tests;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * The child process of {@link CrashSafetyTest}: opens a database file through the calcite-ivm
 * driver and writes and refreshes (two to four views, chosen at random) in a loop until it is
 * killed.
 *
 * <p>Arguments: the database file, a seed, a journal file and the first transaction number. It
 * loads DuckDB and the driver first and opens the file when the parent writes {@code go} to its
 * standard input (the parent may still have the file open before). Every unit of writing gets the
 * next transaction number, which the rows it inserts or updates carry in their {@code txn} column:
 * an auto-commit statement (or batch), or a transaction of several writes (through {@code
 * setAutoCommit(false)} or SQL {@code BEGIN}, committed or rolled back, sometimes with a refresh
 * inside) whose last statement adds a row to the append-only table {@code log} holding the state of
 * the base tables it leaves ({@link #stateQuery}). The journal records, one line each, what the
 * parent needs to tell what must have survived a kill:
 *
 * <ul>
 *   <li>{@code auto N STATE} before an auto-commit write, with the state the write will leave
 *       (predicted by a query of the rows after it);
 *   <li>{@code begin N} before a transaction's first statement;
 *   <li>{@code commit N STATE} once {@code commit} (or an auto-commit write) returned, forced to
 *       disk;
 *   <li>{@code rollback N} once a rollback returned.
 * </ul>
 *
 * Standard output carries only markers, one line each, for the parent to time its kills by: {@code
 * ready}, {@code txn-begin}, {@code commit}, {@code rollback}, {@code txn-end}, {@code
 * write-begin}, {@code write-end}, {@code refresh-begin} (a view's first refresh in the process),
 * {@code refresh-again}, {@code refresh-end}, {@code checkpoint-begin}, {@code checkpoint-end}.
 * Anything else the JVM prints goes to standard error.
 */
final class CrashWorkload {
  /**
   * A materialized view of the workload, refreshed as {@code timing} says ({@code deferred}, {@code
   * immediate} or {@code every <interval>}).
   */
  record View(String name, String query, String timing) {
    View(String name, String query) {
      this(name, query, "deferred");
    }

    /** Whether every write maintains it: then it equals its query after any crash, unrefreshed. */
    boolean immediate() {
      return timing.equals("immediate");
    }
  }

  /**
   * Views of each kind over the two base tables (and one over the log). {@code a_all} and {@code
   * b_all} read every column, so that equal to their tables after a refresh they show that every
   * committed change was captured. {@code a_groups} and {@code ab_groups} are immediate (every
   * write maintains them, so kills land during their maintenance), {@code b_labels} is refreshed by
   * the scheduler every 100 ms (so kills land during scheduled refreshes).
   */
  static final List<View> VIEWS =
      List.of(
          new View("a_all", "SELECT * FROM a"),
          new View("b_all", "SELECT * FROM b"),
          new View(
              "a_filtered",
              "SELECT id, grp, val * 2 AS doubled FROM a WHERE val > 5 OR grp IS NULL"),
          new View(
              "a_groups",
              "SELECT grp, count(*) AS n, count(val) AS nv, sum(val) AS total, min(val) AS lo,"
                  + " max(val) AS hi FROM a GROUP BY grp",
              "immediate"),
          new View("b_totals", "SELECT count(*) AS n, sum(weight) AS w, max(label) AS top FROM b"),
          new View("b_labels", "SELECT DISTINCT grp, label FROM b", "every 100 milliseconds"),
          new View(
              "ab_join", "SELECT a.id, a.val, b.label, b.weight FROM a JOIN b ON a.grp = b.grp"),
          new View(
              "ab_groups",
              "SELECT b.label, count(*) AS n, sum(a.val * b.weight) AS total, min(a.id) AS first"
                  + " FROM a JOIN b ON a.grp = b.grp GROUP BY b.label",
              "immediate"),
          new View(
              "log_sizes",
              "SELECT statements, count(*) AS n, max(txn) AS last FROM log GROUP BY statements"));

  /** The base tables, with their columns and types. */
  private static final Map<String, Map<String, String>> TABLES = new LinkedHashMap<>();

  static {
    Map<String, String> a = new LinkedHashMap<>();
    a.put("id", "BIGINT");
    a.put("grp", "INTEGER");
    a.put("val", "INTEGER");
    a.put("txn", "BIGINT");
    TABLES.put("a", a);
    Map<String, String> b = new LinkedHashMap<>();
    b.put("grp", "INTEGER");
    b.put("label", "VARCHAR");
    b.put("weight", "INTEGER");
    b.put("txn", "BIGINT");
    TABLES.put("b", b);
  }

  /** Creates the tables with some rows (duplicates and NULLs among them) and the views. */
  static void createSchema(Connection c) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (Map.Entry<String, Map<String, String>> table : TABLES.entrySet()) {
        s.execute(
            "CREATE TABLE "
                + table.getKey()
                + " ("
                + table.getValue().entrySet().stream()
                    .map(column -> column.getKey() + " " + column.getValue())
                    .collect(Collectors.joining(", "))
                + ")");
      }
      s.execute("CREATE TABLE log (txn BIGINT, statements INTEGER, state VARCHAR)");
      s.execute(
          "INSERT INTO a SELECT i % 100, CASE WHEN i % 9 = 0 THEN NULL ELSE i % 5 END,"
              + " CASE WHEN i % 7 = 0 THEN NULL ELSE i % 20 END, 0 FROM range(150) r(i)");
      s.execute(
          "INSERT INTO b VALUES (0, 'x', 1, 0), (1, 'x', 2, 0), (1, 'y', NULL, 0), (2, NULL, 3, 0),"
              + " (3, 'z', 1, 0), (3, 'z', 1, 0), (NULL, 'y', 2, 0), (4, 'y', 5, 0)");
      for (View view : VIEWS) {
        s.execute(
            "CREATE MATERIALIZED VIEW "
                + view.name()
                + " WITH (refresh = '"
                + view.timing()
                + "') AS "
                + view.query());
      }
    }
  }

  /**
   * A query of one string that identifies the contents of both base tables as bags: per table the
   * row count and the sum of the rows' hashes. {@code rows} replaces a table by a query of its rows
   * (columns named {@code c0, c1, ...}); the others are read as they are.
   */
  static String stateQuery(Map<String, String> rows) {
    List<String> parts = new ArrayList<>();
    for (String table : TABLES.keySet()) {
      String source = rows.getOrDefault(table, currentRows(table));
      int columns = TABLES.get(table).size();
      String hashed =
          IntStream.range(0, columns).mapToObj(i -> "c" + i).collect(Collectors.joining(", "));
      parts.add(
          "(SELECT CAST(count(*) AS VARCHAR) || ':' || CAST(coalesce(sum(hash("
              + hashed
              + ")), 0) AS VARCHAR) FROM ("
              + source
              + ") r)");
    }
    return "SELECT " + String.join(" || '|' || ", parts);
  }

  /** The state of the base tables now. */
  static String state(Connection c) throws SQLException {
    return single(c, stateQuery(Map.of()));
  }

  private static String currentRows(String table) {
    List<String> columns = new ArrayList<>(TABLES.get(table).keySet());
    List<String> named = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      named.add(columns.get(i) + " AS c" + i);
    }
    return "SELECT " + String.join(", ", named) + " FROM " + table;
  }

  private static String single(Connection c, String sql) throws SQLException {
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery(sql)) {
      rs.next();
      return rs.getString(1);
    }
  }

  /**
   * A write: {@code sql}, or {@code batch} rows for the prepared statement {@code prepared} when it
   * is not null (the same rows), the table it changes and a query of that table's rows after it.
   */
  private record Write(
      String sql, String prepared, List<List<Object>> batch, String table, String rowsAfter) {}

  private final Random random;
  private final Connection c;
  private final Statement s;
  private final FileChannel journal;
  private final PrintStream markers;
  private long txn;
  private final Set<String> refreshed = new HashSet<>();

  /**
   * The views this process refreshes: a few, since a view's first refresh in a process compiles its
   * program, which costs more than the refreshes; the parent refreshes them all.
   */
  private final List<View> views;

  private CrashWorkload(
      Random random, Connection c, FileChannel journal, PrintStream markers, long firstTxn)
      throws SQLException {
    this.random = random;
    this.c = c;
    this.s = c.createStatement();
    this.journal = journal;
    this.markers = markers;
    this.txn = firstTxn;
    List<View> shuffled = new ArrayList<>(VIEWS);
    Collections.shuffle(shuffled, random);
    this.views = shuffled.subList(0, 2 + random.nextInt(3));
  }

  public static void main(String[] args) throws Exception {
    // stdout is the parent's marker channel: nothing else may write to it
    PrintStream markers = new PrintStream(new FileOutputStream(FileDescriptor.out), true, UTF_8);
    System.setOut(System.err);
    Path db = Path.of(args[0]);
    Random random = new Random(Long.parseLong(args[1]));
    Path journalFile = Path.of(args[2]);
    long firstTxn = Long.parseLong(args[3]);
    // load DuckDB and the driver while the parent still checks the database, then wait for it
    try (Connection warmUp = DriverManager.getConnection("jdbc:ivm:duckdb:");
        Statement s = warmUp.createStatement()) {
      s.execute("SELECT 1");
    }
    if (!"go".equals(new BufferedReader(new InputStreamReader(System.in, UTF_8)).readLine())) {
      System.exit(1);
    }
    try (FileChannel journal =
            FileChannel.open(
                journalFile,
                StandardOpenOption.CREATE,
                StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
        Connection c = DriverManager.getConnection("jdbc:ivm:duckdb:" + db)) {
      markers.println("ready");
      new CrashWorkload(random, c, journal, markers, firstTxn).run();
    } catch (Throwable e) {
      e.printStackTrace();
      System.exit(2);
    }
  }

  private void run() throws SQLException, IOException {
    while (true) {
      int what = random.nextInt(100);
      if (what < 35) {
        autoCommitWrite();
      } else if (what < 65) {
        transaction();
      } else if (what < 98) {
        refresh(randomView());
      } else {
        markers.println("checkpoint-begin");
        try {
          s.execute("CHECKPOINT");
        } catch (SQLException e) {
          // DuckDB refuses a checkpoint while another transaction writes, such as the scheduler's
          // refresh of a scheduled view: not a failure of the driver, and the next one may run
          if (!String.valueOf(e.getMessage()).contains("Cannot CHECKPOINT")) {
            throw e;
          }
        }
        markers.println("checkpoint-end");
      }
    }
  }

  private String randomView() {
    return views.get(random.nextInt(views.size())).name();
  }

  private void refresh(String view) throws SQLException {
    // a view's first refresh in a process compiles its delta program before running SQL
    markers.println(refreshed.add(view) ? "refresh-begin" : "refresh-again");
    s.execute("REFRESH MATERIALIZED VIEW " + view);
    markers.println("refresh-end");
  }

  /** One write in auto-commit mode; the journal names the state it leaves before it runs. */
  private void autoCommitWrite() throws SQLException, IOException {
    long n = ++txn;
    Write write = randomWrite(n);
    String predicted = single(c, stateQuery(Map.of(write.table(), write.rowsAfter())));
    journal("auto " + n + " " + predicted, false);
    markers.println("write-begin");
    for (int attempt = 1; ; attempt++) {
      try {
        execute(write, false);
        break;
      } catch (SQLException e) {
        // a batch that conflicts with the scheduler's refresh is rolled back whole and cannot be
        // retried by the driver (its rows are cleared): the client adds them again, as the error
        // tells it to; execute prepares the batch anew
        if (!"40001".equals(e.getSQLState()) || attempt == 5) {
          throw e;
        }
      }
    }
    markers.println("write-end");
    journal("commit " + n + " " + predicted, true);
    String actual = state(c);
    if (!actual.equals(predicted)) {
      // the workload's prediction is wrong, not the driver: the parent's check would be too
      System.err.printf("state after %s is %s, predicted %s%n", write.sql(), actual, predicted);
      System.exit(3);
    }
  }

  /** Several writes (maybe a refresh among them) and the log row, committed or rolled back. */
  private void transaction() throws SQLException, IOException {
    long n = ++txn;
    boolean sql = random.nextInt(3) == 0;
    journal("begin " + n, false);
    markers.println("txn-begin");
    if (sql) {
      s.execute("BEGIN TRANSACTION");
    } else {
      c.setAutoCommit(false);
    }
    int statements = 1 + random.nextInt(4);
    try {
      for (int i = 0; i < statements; i++) {
        if (random.nextInt(6) == 0) {
          refresh(randomView());
        }
        execute(randomWrite(n), sql);
      }
      String state = state(c);
      s.execute("INSERT INTO log VALUES (" + n + ", " + statements + ", '" + state + "')");
      if (random.nextInt(5) == 0) {
        rollback(n, sql);
      } else {
        markers.println("commit");
        if (sql) {
          s.execute("COMMIT");
        } else {
          c.commit();
        }
        journal("commit " + n + " " + state, true);
      }
    } catch (SQLException e) {
      // a refresh in this transaction, or its immediate views' maintenance, can conflict with the
      // scheduler's refreshes (both seal a change log): the client rolls back, as any client of
      // 40001 does
      if (!"40001".equals(e.getSQLState())) {
        throw e;
      }
      rollback(n, sql);
    }
    if (!sql) {
      c.setAutoCommit(true);
    }
    markers.println("txn-end");
  }

  /** Rolls back transaction {@code n} (opened by SQL {@code BEGIN} if {@code sql}). */
  private void rollback(long n, boolean sql) throws SQLException, IOException {
    markers.println("rollback");
    if (sql) {
      s.execute("ROLLBACK");
    } else {
      c.rollback();
    }
    journal("rollback " + n, false);
  }

  /**
   * Runs {@code write}; not as a batch inside SQL {@code BEGIN}, where DuckDB's driver refuses
   * batches ("cannot start a transaction within a transaction"), with or without calcite-ivm.
   */
  private void execute(Write write, boolean sqlTransaction) throws SQLException {
    if (write.prepared() == null || sqlTransaction) {
      s.execute(write.sql());
      return;
    }
    try (PreparedStatement insert = c.prepareStatement(write.prepared())) {
      for (List<Object> row : write.batch()) {
        for (int i = 0; i < row.size(); i++) {
          insert.setObject(i + 1, row.get(i));
        }
        insert.addBatch();
      }
      insert.executeBatch();
    }
  }

  /** Appends a line to the journal; a commit is forced to disk before the workload goes on. */
  private void journal(String line, boolean force) throws IOException {
    ByteBuffer bytes = ByteBuffer.wrap((line + "\n").getBytes(UTF_8));
    while (bytes.hasRemaining()) {
      journal.write(bytes);
    }
    if (force) {
      journal.force(false);
    }
  }

  /** A random insert, update or delete of either table; its rows carry {@code n}. */
  private Write randomWrite(long n) {
    String table = random.nextInt(3) == 0 ? "b" : "a";
    int kind = random.nextInt(10);
    if (kind < 4) {
      return insert(table, n);
    } else if (kind < 7) {
      return update(table, n);
    } else {
      return delete(table);
    }
  }

  /** Some rows, duplicates and NULLs among them, as VALUES or a batch; now and then many. */
  private Write insert(String table, long n) {
    if (table.equals("a") && random.nextInt(15) == 0) {
      String select =
          "SELECT 100 + i % 60, i % 5, CASE WHEN i % 4 = 0 THEN NULL ELSE i % 13 END, "
              + n
              + " FROM range("
              + (20 + random.nextInt(60))
              + ") r(i)";
      return new Write(
          "INSERT INTO a " + select,
          null,
          null,
          table,
          currentRows(table) + " UNION ALL " + typed(table, select));
    }
    List<List<Object>> rows = new ArrayList<>();
    int count = table.equals("a") ? 1 + random.nextInt(5) : 1 + random.nextInt(2);
    for (int i = 0; i < count; i++) {
      if (!rows.isEmpty() && random.nextInt(4) == 0) {
        rows.add(rows.get(rows.size() - 1)); // a duplicate
        continue;
      }
      rows.add(
          table.equals("a")
              ? Arrays.<Object>asList(
                  (long) random.nextInt(200),
                  random.nextInt(8) == 0 ? null : random.nextInt(5),
                  random.nextInt(8) == 0 ? null : random.nextInt(20),
                  n)
              : Arrays.<Object>asList(
                  random.nextInt(8) == 0 ? null : random.nextInt(5),
                  random.nextInt(6) == 0 ? null : String.valueOf("xyzw".charAt(random.nextInt(4))),
                  random.nextInt(6) == 0 ? null : 1 + random.nextInt(5),
                  n));
    }
    String values =
        rows.stream()
            .map(
                row ->
                    row.stream()
                        .map(CrashWorkload::literal)
                        .collect(Collectors.joining(", ", "(", ")")))
            .collect(Collectors.joining(", "));
    String after =
        currentRows(table) + " UNION ALL " + typed(table, "SELECT * FROM (VALUES " + values + ")");
    String sql = "INSERT INTO " + table + " VALUES " + values;
    if (random.nextInt(3) == 0) {
      String placeholders =
          TABLES.get(table).keySet().stream().map(column -> "?").collect(Collectors.joining(", "));
      String prepared = "INSERT INTO " + table + " VALUES (" + placeholders + ")";
      return new Write(sql, prepared, rows, table, after);
    }
    return new Write(sql, null, null, table, after);
  }

  private static String literal(Object value) {
    return value == null ? "NULL" : value instanceof String ? "'" + value + "'" : value.toString();
  }

  /** {@code select}'s columns cast to {@code table}'s types and named {@code c0, c1, ...}. */
  private static String typed(String table, String select) {
    List<String> types = new ArrayList<>(TABLES.get(table).values());
    List<String> columns = new ArrayList<>();
    List<String> cast = new ArrayList<>();
    for (int i = 0; i < types.size(); i++) {
      columns.add("v" + i);
      cast.add("CAST(v" + i + " AS " + types.get(i) + ") AS c" + i);
    }
    return "SELECT "
        + String.join(", ", cast)
        + " FROM ("
        + select
        + ") v("
        + String.join(", ", columns)
        + ")";
  }

  /** An update of a captured column (keys of the join and groups too) and of {@code txn}. */
  private Write update(String table, long n) {
    Map<String, String> set = new LinkedHashMap<>();
    String where;
    if (table.equals("a")) {
      switch (random.nextInt(4)) {
        case 0 -> set.put("val", "val + 1");
        case 1 -> set.put("val", random.nextInt(3) == 0 ? "NULL" : "" + random.nextInt(20));
        case 2 -> set.put("grp", "(grp + 1) % 5");
        default -> {
          set.put("grp", random.nextInt(4) == 0 ? "NULL" : "" + random.nextInt(5));
          set.put("val", "coalesce(val, 0) * 2 % 20");
        }
      }
      where = predicateOfA();
    } else {
      switch (random.nextInt(3)) {
        case 0 -> set.put("weight", "weight + 1");
        case 1 -> set.put("label", random.nextInt(3) == 0 ? "NULL" : "'x'");
        default -> set.put("grp", "" + random.nextInt(5));
      }
      where = predicateOfB();
    }
    set.put("txn", "" + n);
    List<String> rows = new ArrayList<>();
    int i = 0;
    for (Map.Entry<String, String> column : TABLES.get(table).entrySet()) {
      String name = column.getKey();
      String expression =
          set.containsKey(name)
              ? "CASE WHEN "
                  + where
                  + " THEN CAST("
                  + set.get(name)
                  + " AS "
                  + column.getValue()
                  + ") ELSE "
                  + name
                  + " END"
              : name;
      rows.add(expression + " AS c" + i++);
    }
    String assignments =
        set.entrySet().stream()
            .map(e -> e.getKey() + " = " + e.getValue())
            .collect(Collectors.joining(", "));
    return new Write(
        "UPDATE " + table + " SET " + assignments + " WHERE " + where,
        null,
        null,
        table,
        "SELECT " + String.join(", ", rows) + " FROM " + table);
  }

  private Write delete(String table) {
    String where = table.equals("a") ? predicateOfA() : predicateOfB();
    return new Write(
        "DELETE FROM " + table + " WHERE " + where,
        null,
        null,
        table,
        currentRows(table) + " WHERE (" + where + ") IS NOT TRUE");
  }

  private String predicateOfA() {
    int from = random.nextInt(200);
    return switch (random.nextInt(4)) {
      case 0 -> "(id BETWEEN " + from + " AND " + (from + random.nextInt(12)) + ")";
      case 1 -> "(grp = " + random.nextInt(5) + " AND val < " + random.nextInt(8) + ")";
      case 2 -> "(val IS NULL AND id % 3 = " + random.nextInt(3) + ")";
      default -> "(grp IS NULL OR id = " + from + ")";
    };
  }

  private String predicateOfB() {
    return switch (random.nextInt(3)) {
      case 0 -> "(grp = " + random.nextInt(5) + " AND weight > " + random.nextInt(4) + ")";
      case 1 -> "(label IS NOT DISTINCT FROM " + (random.nextInt(4) == 0 ? "NULL" : "'y'") + ")";
      default -> "(grp IS NULL OR weight IS NULL)";
    };
  }
}
