package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.jdbc.Conflicts;
import org.calciteivm.jdbc.IvmConnection;
import org.calciteivm.jdbc.IvmDatabase;
import org.calciteivm.jdbc.IvmDatabase.SqlWork;
import org.calciteivm.jdbc.IvmSettings;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.ChangeLogs;
import org.calciteivm.jdbc.catalog.RefreshStatistics;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Runs one refresh of a view from its compiled {@link RefreshProgram}, in one transaction.
 *
 * <p>The steps, each one statement (per changed base table where it says so):
 *
 * <ol>
 *   <li>find the base tables with captured rows the view has not consumed, with their counts and
 *       smallest weight (which decide the join terms and the merge strategy), from the view's
 *       pending views (the rows after its watermark);
 *   <li>seal the rows of changed tables that other views read too: give them the next epoch, so
 *       that each view can tell later which rows it has consumed (per table);
 *   <li>apply the view delta with the chosen merge strategy;
 *   <li>move the view's watermarks on the tables it sealed;
 *   <li>delete captured rows every reader has consumed (per table; a table only this view reads
 *       needs no seal and no watermark: every row it sees is consumed here and deleted, and rows
 *       sealed later get later epochs).
 * </ol>
 *
 * Captured rows are not consolidated per base table: a join is linear in each side and the view
 * delta is consolidated before it is merged, so consolidating each table's change first would only
 * add a pass over it.
 */
public final class RefreshExecutor {
  private RefreshExecutor() {}

  /**
   * What a refresh did.
   *
   * @param changeRows the captured change rows it consumed, over all base tables
   * @param choice how it applied them, or null if there was nothing to apply
   * @param mergeMillis how long its merge (or recompute) statements took
   * @param steps the statements it ran with their times, if it was asked to time them
   */
  public record Outcome(
      long changeRows,
      RefreshProgram.@Nullable Choice choice,
      double mergeMillis,
      ImmutableList<Step> steps) {}

  /**
   * One statement of a refresh.
   *
   * @param what what the statement does
   * @param sql the statement
   * @param nanos how long it ran
   */
  public record Step(String what, String sql, long nanos) {}

  /**
   * Refreshes {@code view}.
   *
   * <p>A view whose base tables had no captured write since its last refresh returns at once,
   * without touching the database: every captured write of the database runs in this JVM, which
   * counts the transactions that captured changes of each table ({@link
   * IvmDatabase#capturesEnded}). Otherwise a view with no pending change costs one query.
   *
   * @param timed whether to record each statement and its time in the outcome
   */
  public static Outcome refresh(
      IvmConnection connection, ViewEntry view, RefreshProgram program, boolean timed)
      throws SQLException {
    IvmDatabase database = connection.database();
    Steps steps = new Steps(connection.refreshStatements(), database.catalog(), timed);
    // read before the refresh's snapshot: a change counted later is consumed by a later refresh
    List<Long> generations = database.captureGenerations(view.inputTableIds());
    boolean ownTransaction = !connection.inTransaction();
    if (ownTransaction && database.refreshedSince(view.id(), generations)) {
      return new Outcome(0, null, 0, steps.timings());
    }
    CatalogSnapshot catalog = database.catalog();
    List<TrackedTable> inputs = new ArrayList<>();
    view.inputTableIds().forEach(id -> inputs.add(catalog.trackedTable(id)));
    String pendingSql = ChangeLogs.pendingChangesSql(view.id(), inputs);
    Outcome outcome =
        database.refreshing(() -> refreshRetrying(connection, view, program, pendingSql, steps));
    if (outcome.choice() != null) {
      // what auto chooses from next time (the catalog has it once the transaction commits)
      program.costs().record(outcome.choice().merge(), outcome.changeRows(), outcome.mergeMillis());
    }
    if (ownTransaction) {
      database.refreshed(view.id(), generations);
    }
    if (outcome.choice() != null) {
      // the views that read this one have a change to consume now
      Optional<TrackedTable> log = catalog.trackedTable(view.userViewSchema(), view.name());
      if (log.isPresent()) {
        connection.changeLogWritten(log.get().id());
      }
    }
    return outcome;
  }

  private static Outcome refreshRetrying(
      IvmConnection connection,
      ViewEntry view,
      RefreshProgram program,
      String pendingSql,
      Steps steps)
      throws SQLException {
    CatalogSnapshot catalog = connection.database().catalog();
    SqlWork<Outcome> refresh =
        () ->
            connection.atomically(
                () -> refreshOnce(connection, view, program, pendingSql, steps, catalog));
    if (connection.inTransaction()) {
      // the client's transaction cannot start over: its conflict is the client's to handle
      return refresh.run();
    }
    // a refresh inside a user's transaction that commits later can seal the same change log as
    // this one: start over, in a transaction of its own again
    return Conflicts.retrying(attempt -> refresh.run(), () -> {}, (attempts, e) -> e);
  }

  private static Outcome refreshOnce(
      IvmConnection connection,
      ViewEntry view,
      RefreshProgram program,
      String pendingSql,
      Steps steps,
      CatalogSnapshot catalog)
      throws SQLException {
    long started = System.nanoTime();
    IvmSettings settings = connection.settings();
    // inside the transaction: what it sees is what it consumes
    Map<Integer, PendingInput> pending = steps.pending(pendingSql);
    if (pending.isEmpty()) {
      return new Outcome(0, null, 0, steps.timings());
    }
    // the epoch each shared table is sealed with, up to which the view consumes it; a table only
    // this view reads keeps its watermark: every row of it the refresh sees is consumed and
    // deleted, and rows sealed later get later epochs
    Map<Integer, Long> consumedUpTo = new TreeMap<>();
    List<Integer> shared = new ArrayList<>();
    for (PendingInput input : pending.values()) {
      if (catalog.viewsReading(input.tableId()).size() > 1) {
        shared.add(input.tableId());
      }
    }
    if (!shared.isEmpty()) {
      steps.query(
          "next epoch of the tables other views read too",
          ChangeLogs.nextEpochsSql(shared),
          rs -> consumedUpTo.put(rs.getInt(1), rs.getLong(2)));
      for (int tableId : shared) {
        TrackedTable table = catalog.trackedTable(tableId);
        steps.execute(
            "seal the change of " + table.relation().displayName(),
            ChangeLogs.sealSql(table),
            consumedUpTo.get(tableId));
      }
    }
    long rows = 0;
    ImmutableSet.Builder<Integer> insertOnly = ImmutableSet.builder();
    ImmutableSet.Builder<Integer> deleteOnly = ImmutableSet.builder();
    for (PendingInput input : pending.values()) {
      rows += input.rows();
      if (input.minWeight() > 0) {
        insertOnly.add(input.tableId());
      } else if (input.maxWeight() < 0) {
        deleteOnly.add(input.tableId());
      }
    }
    // only a join's terms can be pruned for a delete-only change: a view of one scan keeps the
    // variants CREATE compiled
    RefreshProgram.PendingChange change =
        new RefreshProgram.PendingChange(
            ImmutableSet.copyOf(pending.keySet()),
            insertOnly.build(),
            program.scannedTableIds().size() > 1 ? deleteOnly.build() : ImmutableSet.of());
    long choosing = System.nanoTime();
    boolean compiles =
        !program.fullRefreshCheaper(change, rows, settings)
            && !program.deltas().isCompiled(change, program.joinStrategy(change, settings));
    RefreshProgram.Choice choice = program.choose(change, rows, settings);
    if (compiles) {
      steps.record(
          "compile the delta program for this change (first refresh of its kind; stored for the"
              + " next ones)",
          "",
          choosing);
    }
    long merging = System.nanoTime();
    String what =
        choice.merge() == MergeStrategy.FULL_RECOMPUTE
            ? "recompute the view (" + choice.merge() + ")"
            : "merge (" + choice.merge() + ")";
    for (String sql : choice.statements()) {
      steps.execute(what, sql);
    }
    double mergeMillis = (System.nanoTime() - merging) / 1e6;
    if (!consumedUpTo.isEmpty()) {
      steps.execute(
          "advance the view's watermarks",
          ChangeLogs.advanceSql(view.id(), consumedUpTo.keySet()),
          consumedUpTo.values().toArray());
    }
    for (PendingInput input : pending.values()) {
      TrackedTable table = catalog.trackedTable(input.tableId());
      steps.execute(
          "delete consumed change rows of " + table.relation().displayName(),
          shared.contains(input.tableId())
              ? ChangeLogs.collectGarbageSql(table)
              : ChangeLogs.consumeAllSql(table));
    }
    double refreshMillis = (System.nanoTime() - started) / 1e6;
    String mode = choice.merge() == MergeStrategy.FULL_RECOMPUTE ? "full" : "incremental";
    if (program.costs().mustStore(choice.merge(), rows, mergeMillis)) {
      steps.execute(
          "record the refresh and its cost in ivm_views",
          RefreshStatistics.recordedSql(view.id()),
          refreshMillis,
          mode,
          mergeMillis,
          choice.merge().name(),
          rows,
          mergeMillis);
    } else {
      steps.execute(
          "record the refresh in ivm_views",
          RefreshStatistics.recordedWithoutCostSql(view.id()),
          refreshMillis,
          mode,
          mergeMillis);
    }
    return new Outcome(rows, choice, mergeMillis, steps.timings());
  }

  /**
   * A base table with captured rows the refreshing view has not consumed: a row of {@link
   * ChangeLogs#pendingChangesSql}.
   */
  private record PendingInput(int tableId, long rows, long minWeight, long maxWeight) {}

  /**
   * The base tables of {@code view} with captured rows the view has not consumed, and how many
   * (their changes may still cancel out when consolidated).
   */
  public static ImmutableMap<Integer, Long> pendingRows(IvmConnection connection, ViewEntry view)
      throws SQLException {
    CatalogSnapshot catalog = connection.database().catalog();
    List<TrackedTable> inputs = new ArrayList<>();
    view.inputTableIds().forEach(id -> inputs.add(catalog.trackedTable(id)));
    ImmutableMap.Builder<Integer, Long> rows = ImmutableMap.builder();
    new Steps(connection.refreshStatements(), catalog, false)
        .pending(ChangeLogs.pendingChangesSql(view.id(), inputs))
        .forEach((table, input) -> rows.put(table, input.rows()));
    return rows.buildOrThrow();
  }

  /** Runs a refresh's statements, prepared once per connection, timing them when asked. */
  private static final class Steps {
    private final RefreshStatements statements;
    private final Object catalogVersion;
    private final @Nullable List<Step> timings;

    Steps(RefreshStatements statements, CatalogSnapshot catalog, boolean timed) {
      this.statements = statements;
      this.catalogVersion = catalog;
      this.timings = timed ? new ArrayList<>() : null;
    }

    ImmutableList<Step> timings() {
      return timings == null ? ImmutableList.of() : ImmutableList.copyOf(timings);
    }

    Map<Integer, PendingInput> pending(String sql) throws SQLException {
      Map<Integer, PendingInput> pending = new LinkedHashMap<>();
      query(
          "find the pending change",
          sql,
          rs ->
              pending.put(
                  rs.getInt("table_id"),
                  new PendingInput(
                      rs.getInt("table_id"),
                      rs.getLong("change_rows"),
                      rs.getLong("min_weight"),
                      rs.getLong("max_weight"))));
      return pending;
    }

    void execute(String what, String sql, Object... parameters) throws SQLException {
      long start = System.nanoTime();
      prepared(sql, parameters).execute();
      record(what, sql, start);
    }

    void query(String what, String sql, RowReader reader, Object... parameters)
        throws SQLException {
      long start = System.nanoTime();
      try (ResultSet rs = prepared(sql, parameters).executeQuery()) {
        while (rs.next()) {
          reader.read(rs);
        }
      }
      record(what, sql, start);
    }

    private PreparedStatement prepared(String sql, Object... parameters) throws SQLException {
      PreparedStatement statement = statements.prepared(sql, catalogVersion);
      for (int i = 0; i < parameters.length; i++) {
        statement.setObject(i + 1, parameters[i]);
      }
      return statement;
    }

    void record(String what, String sql, long start) {
      if (timings != null) {
        timings.add(new Step(what, sql, System.nanoTime() - start));
      }
    }
  }

  /** Reads one row of a result. */
  @FunctionalInterface
  private interface RowReader {
    void read(ResultSet rs) throws SQLException;
  }
}
