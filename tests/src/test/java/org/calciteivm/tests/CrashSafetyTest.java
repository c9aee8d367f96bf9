package org.calciteivm.tests;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Crash safety: a child JVM ({@link CrashWorkload}) writes base tables and refreshes views in a
 * loop on a database file and is killed with SIGKILL at random moments, again and again; after
 * every kill the file must open, nothing committed may be missing and nothing else may be there,
 * and every view, refreshed, must equal its query.
 *
 * <p>What is proved and how:
 *
 * <ul>
 *   <li><b>Committed writes survive, uncommitted ones vanish, whole.</b> The child journals each
 *       commit (forced to disk) only after {@code commit} returned, with a digest of both base
 *       tables ({@link CrashWorkload#stateQuery}: row count and sum of row hashes per table). Each
 *       transaction also appends its number and that digest to the table {@code log}. After a kill
 *       the base tables must have exactly the digest of the last journalled commit, or, when the
 *       kill came during the next unit of writing, exactly the digest that unit leaves (the log row
 *       of a transaction whose commit went through before its journal line, or the digest an
 *       auto-commit write predicted). {@code log} must hold exactly the journalled commits (plus
 *       that one), never a rolled-back transaction.
 *   <li><b>Captures are atomic with their writes.</b> After the check, every view is refreshed and
 *       compared with its query as bags ({@link ViewCheck}): a base change without its capture, or
 *       a capture without its change, or a refresh applied in part, would make some view differ.
 *       Two views are {@code SELECT *} of a base table, so no committed change of any column can be
 *       missing from the captured changes; the others cover each kind of maintenance: a filter with
 *       an expression, grouped aggregates with MIN/MAX, an aggregate without GROUP BY, DISTINCT, a
 *       join and an aggregate over the join, and an aggregate over {@code log}.
 *   <li><b>Immediate views are exact after any crash.</b> Two views are immediate: every write
 *       maintains them in its transaction, so after every kill they must equal their queries before
 *       any refresh. One view is scheduled, so kills also land during the child's background
 *       refreshes.
 *   <li><b>Pending changes survive crashes.</b> Every third round the parent checks without
 *       refreshing, so changes captured before one kill are refreshed by a later child or check.
 * </ul>
 *
 * <p>Kills take turns: at a random time (50-800 ms after the child is ready), or shortly after the
 * child announces on its standard output a transaction (0-20 ms), a commit (0-3 ms) or a refresh of
 * a view it has refreshed before (0-3 ms; a view's first refresh in a process spends most of its
 * time compiling), so that every run kills during refreshes and open transactions. The test counts
 * the kills by the last announcement it had read. {@link Process#destroyForcibly()} sends SIGKILL
 * on Linux; the exit value 137 (128 + 9) confirms each kill was one.
 *
 * <p>System properties: {@code ivm.seed} replays the schedule and the data (the moments the kills
 * land depend on timing too), {@code ivm.crash.kills} the number of kills (24).
 */
class CrashSafetyTest {
  private static final int SIGKILL_EXIT = 128 + 9;

  @TempDir Path dir;

  @Test
  void killedWritersLoseNoCommittedChangeAndViewsRefreshToTheirQueries() throws Exception {
    long seed = Long.getLong("ivm.seed", System.nanoTime());
    int kills = Integer.getInteger("ivm.crash.kills", 24);
    String replay = "seed " + seed + " (replay with -Divm.seed=" + seed + ")";
    System.out.println("CrashSafetyTest: -Divm.seed=" + seed);
    Random random = new Random(seed);
    Path file = dir.resolve("crash.duckdb");
    String url = "jdbc:ivm:duckdb:" + file;
    Stats stats = new Stats();
    Set<Long> logged = new TreeSet<>();
    String state;
    try (Connection c = DriverManager.getConnection(url)) {
      CrashWorkload.createSchema(c);
      state = CrashWorkload.state(c);
    }
    long started = System.nanoTime();
    Child next = Child.start(dir, 0, random.nextLong(), file);
    try {
      for (int round = 0; round < kills; round++) {
        String where = "kill " + (round + 1) + " of " + kills + ", " + replay;
        Child child = next;
        next = null;
        long childStarted = System.nanoTime();
        String phase = killAtRandomMoment(child, random, where, stats);
        long checkStarted = System.nanoTime();
        stats.childNanos += checkStarted - childStarted;
        // the next child starts its JVM and loads DuckDB while this one's database is checked
        if (round + 1 < kills) {
          next = Child.start(dir, round + 1, random.nextLong(), file);
        }
        where += ", killed during " + phase;
        // every third check leaves the changes pending, for the next child to refresh after it
        boolean refresh = round % 3 != 2 || round == kills - 1;
        try (Connection c = open(url, where)) {
          state = checkCommits(c, Journal.read(child.journal), state, logged, where, stats);
          // immediate views changed with every committed write: exact without a refresh
          for (CrashWorkload.View view : CrashWorkload.VIEWS) {
            if (view.immediate()) {
              ViewCheck.assertMatches(c, view.name(), view.query(), where + ", unrefreshed");
              stats.immediateChecked++;
            }
          }
          if (refresh) {
            for (CrashWorkload.View view : CrashWorkload.VIEWS) {
              try (Statement s = c.createStatement()) {
                s.execute("REFRESH MATERIALIZED VIEW " + view.name());
              }
              ViewCheck.assertMatches(c, view.name(), view.query(), where);
              stats.refreshesChecked++;
            }
          }
        }
        stats.checkNanos += System.nanoTime() - checkStarted;
      }
    } finally {
      if (next != null) {
        next.kill();
      }
    }
    System.out.printf(
        "CrashSafetyTest: %s in %.1f s, %s%n", stats, (System.nanoTime() - started) / 1e9, replay);
    assertThat(stats.phases.values().stream().mapToInt(Integer::intValue).sum()).isEqualTo(kills);
    if (kills >= 8) {
      assertThat(stats.duringRefresh).as("kills during a refresh, " + replay).isPositive();
      assertThat(stats.duringTransaction).as("kills in a transaction, " + replay).isPositive();
      assertThat(stats.committed).as("committed units, " + replay).isPositive();
    }
  }

  /** What the kills hit and what the checks covered. */
  private static final class Stats {
    final Map<String, Integer> phases = new TreeMap<>();
    int duringRefresh;
    int duringTransaction;
    int committed;
    int transactions;
    int rolledBack;
    int inFlightKept;
    int refreshesByChildren;
    int refreshesChecked;
    int immediateChecked;
    long childNanos;
    long checkNanos;

    @Override
    public String toString() {
      int kills = phases.values().stream().mapToInt(Integer::intValue).sum();
      return String.format(
          "%d kills (%d during a refresh, %d in a transaction; by last marker: %s);"
              + " %d committed units journalled (%d of them transactions), %d rolled back,"
              + " %d unjournalled commits found applied; %d refreshes by the children,"
              + " %d refreshes checked, %d immediate views checked unrefreshed; %.1f s in"
              + " children, %.1f s in checks",
          kills,
          duringRefresh,
          duringTransaction,
          phases,
          committed,
          transactions,
          rolledBack,
          inFlightKept,
          refreshesByChildren,
          refreshesChecked,
          immediateChecked,
          childNanos / 1e9,
          checkNanos / 1e9);
    }
  }

  private static Connection open(String url, String where) {
    try {
      return DriverManager.getConnection(url);
    } catch (SQLException e) {
      throw new AssertionError(where + ": the database does not open again: " + e, e);
    }
  }

  /**
   * Lets {@code child} open the database, kills it with SIGKILL at a moment chosen by {@code
   * random} and returns what it was doing then.
   */
  private static String killAtRandomMoment(Child child, Random random, String where, Stats stats)
      throws Exception {
    Markers markers = child.markers;
    String phase;
    try {
      child.go();
      String mode =
          List.of("any time", "refresh-again", "txn-begin", "commit").get(child.round % 4);
      markers.await("ready", 60, where, child.errors);
      if (mode.equals("any time")) {
        Thread.sleep(50 + random.nextInt(751));
      } else {
        Thread.sleep(random.nextInt(400));
        markers.queue.clear();
        markers.await(mode, 30, where, child.errors);
        // a commit and a refresh of a compiled view take milliseconds
        Thread.sleep(random.nextInt(mode.equals("txn-begin") ? 21 : 4));
      }
      if (!child.process.isAlive()) {
        throw new AssertionError(
            where
                + ": the child ended on its own, exit "
                + child.process.exitValue()
                + tail(child.errors));
      }
      phase = markers.phase();
    } finally {
      child.kill();
    }
    markers.reader.join(10_000);
    if (markers.unexpected != null) {
      throw new AssertionError(
          where + ": the child printed " + markers.unexpected + tail(child.errors));
    }
    assertThat(child.process.exitValue())
        .as(where + ": exit value of a SIGKILL" + tail(child.errors))
        .isEqualTo(SIGKILL_EXIT);
    stats.phases.merge(phase, 1, Integer::sum);
    if (phase.contains("refresh")) {
      stats.duringRefresh++;
    }
    if (phase.contains("transaction") || phase.startsWith("commit")) {
      stats.duringTransaction++;
    }
    stats.refreshesByChildren += markers.refreshes;
    return phase;
  }

  /**
   * A child process ({@link CrashWorkload}). It starts while the parent still has the database
   * open, loads DuckDB and the driver, and opens the database when the parent says "go" on its
   * standard input.
   */
  private static final class Child {
    final int round;
    final Process process;
    final Markers markers;
    final Path journal;
    final Path errors;
    final Path tmp;

    private Child(int round, Process process, Path journal, Path errors, Path tmp) {
      this.round = round;
      this.process = process;
      this.markers = new Markers(process);
      this.journal = journal;
      this.errors = errors;
      this.tmp = tmp;
    }

    static Child start(Path dir, int round, long seed, Path file) throws IOException {
      String java = ProcessHandle.current().info().command().orElse("java");
      Path journal = dir.resolve("journal-" + round + ".txt");
      Path errors = dir.resolve("child-" + round + ".err");
      // DuckDB's driver unpacks its native library (70 MB) into the temporary directory and
      // deletes it at exit, which a killed JVM never reaches: give each child a directory to delete
      Path tmp = Files.createDirectory(dir.resolve("child-" + round + ".tmp"));
      Process process =
          new ProcessBuilder(
                  java,
                  "-XX:TieredStopAtLevel=1",
                  "-XX:+UseSerialGC",
                  "-Xmx512m",
                  "-Djava.io.tmpdir=" + tmp,
                  "-cp",
                  System.getProperty("java.class.path"),
                  CrashWorkload.class.getName(),
                  file.toString(),
                  Long.toString(seed),
                  journal.toString(),
                  Long.toString((round + 1) * 1_000_000L))
              .redirectError(errors.toFile())
              .start();
      return new Child(round, process, journal, errors, tmp);
    }

    /** Lets the child open the database: the parent has closed it. */
    void go() throws IOException {
      process.getOutputStream().write("go\n".getBytes(UTF_8));
      process.getOutputStream().flush();
    }

    /** Sends SIGKILL, waits for the end and deletes the child's temporary directory. */
    void kill() throws Exception {
      process.destroyForcibly();
      assertThat(process.waitFor(30, TimeUnit.SECONDS)).as("the child died").isTrue();
      try (Stream<Path> files = Files.walk(tmp)) {
        for (Path path : files.sorted(Comparator.reverseOrder()).toList()) {
          Files.delete(path);
        }
      }
    }
  }

  private static String tail(Path errors) throws IOException {
    List<String> lines = Files.readAllLines(errors, UTF_8);
    return "\n  child's stderr:\n    "
        + String.join("\n    ", lines.subList(Math.max(0, lines.size() - 40), lines.size()));
  }

  /**
   * Reads the child's markers as they come, keeping track of what it is doing; stdout must be
   * drained anyway, or the child would block on a full pipe.
   */
  private static final class Markers {
    private static final Set<String> KNOWN =
        Set.of(
            "ready",
            "txn-begin",
            "commit",
            "rollback",
            "txn-end",
            "write-begin",
            "write-end",
            "refresh-begin",
            "refresh-again",
            "refresh-end",
            "checkpoint-begin",
            "checkpoint-end");

    final Process child;
    final BlockingQueue<String> queue = new LinkedBlockingQueue<>();
    final Thread reader;
    private boolean inTransaction;
    private boolean ending;
    private boolean refreshing;
    private boolean compiling;
    private boolean writing;
    private boolean checkpointing;
    private boolean ready;
    volatile String unexpected;
    volatile int refreshes;

    Markers(Process child) {
      this.child = child;
      reader =
          new Thread(
              () -> {
                try (BufferedReader lines =
                    new BufferedReader(new InputStreamReader(child.getInputStream(), UTF_8))) {
                  for (String line; (line = lines.readLine()) != null; ) {
                    if (!KNOWN.contains(line)) {
                      unexpected = unexpected == null ? line : unexpected;
                      continue;
                    }
                    seen(line);
                    queue.add(line);
                  }
                } catch (IOException e) {
                  // the child was killed
                }
              },
              "crash-child-markers");
      reader.setDaemon(true);
      reader.start();
    }

    private synchronized void seen(String marker) {
      switch (marker) {
        case "ready" -> ready = true;
        case "txn-begin" -> inTransaction = true;
        case "commit", "rollback" -> ending = true;
        case "txn-end" -> inTransaction = ending = false;
        case "write-begin" -> writing = true;
        case "write-end" -> writing = false;
        case "refresh-begin" -> refreshing = compiling = true;
        case "refresh-again" -> refreshing = true;
        case "refresh-end" -> {
          refreshing = compiling = false;
          refreshes++;
        }
        case "checkpoint-begin" -> checkpointing = true;
        case "checkpoint-end" -> checkpointing = false;
        default -> throw new IllegalArgumentException(marker);
      }
    }

    /** What the child was doing by the last marker read. */
    synchronized String phase() {
      if (refreshing) {
        return (compiling ? "first refresh of a view" : "refresh")
            + (inTransaction ? " in a transaction" : "");
      } else if (ending) {
        return "commit or rollback";
      } else if (inTransaction) {
        return "transaction";
      } else if (writing) {
        return "auto-commit write";
      } else if (checkpointing) {
        return "checkpoint";
      }
      return ready ? "between statements" : "start";
    }

    void await(String marker, int seconds, String where, Path errors) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
      while (System.nanoTime() < deadline) {
        String next = queue.poll(100, TimeUnit.MILLISECONDS);
        if (marker.equals(next)) {
          return;
        }
        if (next == null && !child.isAlive()) {
          throw new AssertionError(
              where + ": the child ended on its own, exit " + child.exitValue() + tail(errors));
        }
      }
      throw new AssertionError(where + ": no '" + marker + "' from the child" + tail(errors));
    }
  }

  /** The lines one child journalled. */
  private record Journal(List<String[]> lines) {
    static Journal read(Path file) throws IOException {
      List<String[]> lines = new ArrayList<>();
      if (Files.exists(file)) {
        String text = Files.readString(file, UTF_8);
        // a line the kill cut short was not journalled
        int end = text.lastIndexOf('\n');
        for (String line : text.substring(0, end + 1).split("\n")) {
          if (!line.isEmpty()) {
            lines.add(line.split(" "));
          }
        }
      }
      return new Journal(lines);
    }
  }

  /**
   * Checks the base tables and {@code log} against one child's journal, given the {@code state} the
   * child started from and the transactions {@code logged} before; returns the state now (and adds
   * the transactions logged now).
   */
  private static String checkCommits(
      Connection c, Journal journal, String state, Set<Long> logged, String where, Stats stats)
      throws SQLException {
    Map<Long, String> committed = new HashMap<>();
    Set<Long> transactions = new HashSet<>();
    Set<Long> rolledBack = new HashSet<>();
    String last = state;
    long inFlight = -1;
    String predicted = null;
    for (String[] line : journal.lines()) {
      long n = Long.parseLong(line[1]);
      switch (line[0]) {
        case "begin" -> {
          inFlight = n;
          predicted = null;
          transactions.add(n);
        }
        case "auto" -> {
          inFlight = n;
          predicted = line[2];
        }
        case "commit" -> {
          committed.put(n, line[2]);
          last = line[2];
          inFlight = -1;
          predicted = null;
        }
        case "rollback" -> {
          rolledBack.add(n);
          transactions.remove(n);
          inFlight = -1;
          predicted = null;
        }
        default -> throw new AssertionError(where + ": journal line " + String.join(" ", line));
      }
    }
    transactions.retainAll(committed.keySet());
    stats.committed += committed.size();
    stats.transactions += transactions.size();
    stats.rolledBack += rolledBack.size();

    Map<Long, String> log = new TreeMap<>();
    try (Statement s = c.createStatement();
        ResultSet rs = s.executeQuery("SELECT txn, state FROM log")) {
      while (rs.next()) {
        log.put(rs.getLong(1), rs.getString(2));
      }
    }
    Set<Long> expected = new TreeSet<>(logged);
    expected.addAll(transactions);
    Set<Long> missing = new TreeSet<>(expected);
    missing.removeAll(log.keySet());
    assertThat(missing).as(where + ": committed transactions missing from log").isEmpty();
    for (long n : transactions) {
      assertThat(log.get(n))
          .as(where + ": log row of transaction " + n)
          .isEqualTo(committed.get(n));
    }
    Set<Long> extra = new TreeSet<>(log.keySet());
    extra.removeAll(expected);
    String now = CrashWorkload.state(c);
    if (extra.isEmpty()) {
      // an auto-commit write the kill interrupted may have committed: then it left what the
      // journal predicted, never anything in between
      if (predicted != null && now.equals(predicted) && !now.equals(last)) {
        stats.inFlightKept++;
      } else {
        String unit = inFlight < 0 ? "" : " (and nothing of " + inFlight + ", which was running)";
        assertThat(now)
            .as(where + ": base tables as the last journalled commit left them" + unit)
            .isEqualTo(last);
      }
    } else {
      // a transaction may have committed without having journalled it: the last one begun
      assertThat(extra)
          .as(where + ": transactions in log that were not journalled as committed")
          .containsExactly(inFlight);
      assertThat(now)
          .as(where + ": base tables after the unjournalled commit of " + inFlight)
          .isEqualTo(log.get(inFlight));
      stats.inFlightKept++;
    }
    logged.clear();
    logged.addAll(log.keySet());
    return now;
  }
}
