package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.UnaryOperator;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.jdbc.CaptureLedger;
import org.calciteivm.jdbc.Conflicts;
import org.calciteivm.jdbc.IvmConnection;
import org.calciteivm.jdbc.IvmDatabase;
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
 *       pending views (the rows after its watermark), or from the driver's register of captured
 *       writes where that tells them ({@link PendingChanges#counted}: no statement then, or in a
 *       second attempt, or while a write to its tables is open, one that only takes the
 *       transaction's snapshot);
 *   <li>seal the rows of changed tables that other views read too: give them the next epoch, so
 *       that each view can tell later which rows it has consumed (per table);
 *   <li>apply the view delta with the chosen merge strategy;
 *   <li>move the view's watermarks on the tables it sealed;
 *   <li>delete captured rows every reader has consumed (per table; a table only this view reads
 *       needs no seal and no watermark: every row it sees is consumed here and deleted, and rows
 *       sealed later get later epochs);
 *   <li>record the refresh in the view's catalog row: its time and mode, and its cost where {@code
 *       auto} needs it ({@link RefreshCosts#mustStore}); a hidden view only for the cost. This
 *       rides in the last delete of step 5, as a data-modifying CTE.
 * </ol>
 *
 * A counted change must hold every write the refresh's snapshot sees. Without a statement of its
 * own for the snapshot, the merge's first statement takes it, and the refresh fails with {@link
 * Conflicts.WriteDuringSnapshot} (to run again, taking its snapshot first) if a write was
 * registered between the count and its last statement.
 *
 * <p>Captured rows are not consolidated per base table: a join is linear in each side and the view
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
   * @param changeWriteMillis how long, of those, the statements that write its change took
   * @param steps the statements it ran with their times, if it was asked to time them
   */
  public record Outcome(
      long changeRows,
      RefreshProgram.@Nullable Choice choice,
      double mergeMillis,
      double changeWriteMillis,
      ImmutableList<Step> steps) {

    /** The outcome of a refresh that found nothing to apply. */
    static Outcome nothing(RefreshSteps steps) {
      return new Outcome(0, null, 0, 0, steps.timings());
    }
  }

  /**
   * What a refresh of a graph of materialized views ({@link org.calciteivm.jdbc.ddl.ViewRefreshes})
   * asks of the refresh of one view in it.
   *
   * @param writesChange whether the refresh writes the view's change into its change log (if other
   *     views read it): not when every view that reads it recomputes in the same transaction, and
   *     so reads none of it
   * @param recompute whether it must recompute: a view it reads changed without writing its change
   * @param unwrittenRows the change rows the views below consumed without writing their change for
   *     it: counted among the change rows it consumed
   * @param changeWrittenMillis how long the views below took to write the change only this view
   *     reads: part of what its incremental refresh costs, for {@code auto}
   */
  public record Role(
      boolean writesChange, boolean recompute, long unwrittenRows, double changeWrittenMillis) {
    /** A view refreshed as it is, asked nothing else. */
    public static final Role PLAIN = new Role(true, false, 0, 0);
  }

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
   * registers each with its rows and the signs of its weights ({@link CaptureLedger}). Where those
   * tell the pending change ({@link PendingChanges#counted}), the refresh does not query it either,
   * and its merge's first statement takes its snapshot. Otherwise its first statement finds the
   * change, and a view with no pending change costs that one query.
   *
   * @param timed whether to record each statement and its time in the outcome
   */
  public static Outcome refresh(
      IvmConnection connection, ViewEntry view, RefreshProgram program, boolean timed)
      throws SQLException {
    return refresh(connection, view, program, timed, In.OWN_OR_CLIENT_TRANSACTION, Role.PLAIN);
  }

  /** Where a refresh runs, as far as counting its change goes. */
  public enum In {
    /** Its own transaction, or the client's. */
    OWN_OR_CLIENT_TRANSACTION,
    /**
     * The driver's own transaction of a graph's refresh, which read the marks of each node's base
     * tables before it began and records them after it commits ({@link
     * org.calciteivm.jdbc.ddl.ViewRefreshes}), as its first refresh: its change may be counted.
     */
    GRAPH_TRANSACTION,
    /**
     * The same, after another refresh in it: the transaction's snapshot is taken (by the first
     * refresh's first statement), so a counted change needs no statement to take it.
     */
    GRAPH_TRANSACTION_SNAPSHOT_TAKEN
  }

  /**
   * {@link #refresh(IvmConnection, ViewEntry, RefreshProgram, boolean)}, run where {@code in} says,
   * in the role {@code role} in a refresh of a graph of views.
   */
  public static Outcome refresh(
      IvmConnection connection,
      ViewEntry view,
      RefreshProgram program,
      boolean timed,
      In in,
      Role role)
      throws SQLException {
    IvmDatabase database = connection.database();
    RefreshSteps steps =
        new RefreshSteps(connection.refreshStatements(), database.catalog(), timed);
    // read before the refresh's snapshot: the writes they mark as ended, it consumes
    List<CaptureLedger.Mark> marks = database.captures().marks(view.inputTableIds());
    boolean ownTransaction = !connection.inTransaction();
    if (ownTransaction
        && !role.recompute()
        && database.refreshedSince(view.id(), view.inputTableIds())) {
      return Outcome.nothing(steps);
    }
    PendingChanges.Source pending = PendingChanges.source(connection, view, in);
    Outcome outcome =
        database.refreshing(() -> refreshRetrying(connection, view, program, pending, role, steps));
    if (outcome.choice() != null && role.writesChange()) {
      // what auto chooses from next time (the catalog has it once the transaction commits)
      MergeStrategy merge = outcome.choice().merge();
      program
          .costs()
          .record(
              merge,
              Math.max(1, outcome.changeRows()),
              costedMillis(merge, outcome.mergeMillis(), role));
    }
    if (ownTransaction) {
      database.refreshed(view.id(), marks);
    }
    return outcome;
  }

  private static Outcome refreshRetrying(
      IvmConnection connection,
      ViewEntry view,
      RefreshProgram program,
      PendingChanges.Source pending,
      Role role,
      RefreshSteps steps)
      throws SQLException {
    CatalogSnapshot catalog = connection.database().catalog();
    if (connection.inTransaction()) {
      // the client's transaction cannot start over: its conflict is the client's to handle
      return connection.atomically(
          () -> refreshOnce(connection, view, program, pending, role, steps, catalog, false));
    }
    // a refresh inside a user's transaction that commits later can seal the same change log as
    // this one: start over, in a transaction of its own again. Its first attempt may count its
    // change before its snapshot is taken and check afterwards that no write began meanwhile
    // (Conflicts.WriteDuringSnapshot); the next ones take the snapshot first.
    return Conflicts.retrying(
        attempt ->
            connection.atomically(
                () ->
                    refreshOnce(
                        connection, view, program, pending, role, steps, catalog, attempt == 1)),
        () -> {},
        (attempts, e) -> e);
  }

  private static Outcome refreshOnce(
      IvmConnection connection,
      ViewEntry view,
      RefreshProgram program,
      PendingChanges.Source found,
      Role role,
      RefreshSteps steps,
      CatalogSnapshot catalog,
      boolean snapshotCheckedAfter)
      throws SQLException {
    long started = System.nanoTime();
    IvmSettings settings = connection.settings();
    CaptureLedger ledger = connection.database().captures();
    Map<Integer, PendingChanges.Input> pending = null;
    long @Nullable [] registeredBeforeSnapshot = null;
    if (found.since() != null) {
      if (snapshotCheckedAfter && !found.snapshotTaken()) {
        // one statement less: the merge's first statement takes the snapshot, and the refresh
        // runs again if a write was registered before that. Not while a write is open: its
        // writer, running beside this refresh, would likely make it run again
        registeredBeforeSnapshot = ledger.registrationsIfEnded(view.inputTableIds());
      }
      if (!found.snapshotTaken() && registeredBeforeSnapshot == null) {
        steps.query("take the refresh's snapshot", SNAPSHOT_SQL, rs -> {});
      }
      // every write whose change the snapshot sees is registered by now, or checked afterwards
      pending = PendingChanges.counted(catalog, view, found.since(), ledger);
      afterCounting.run();
    }
    boolean counted = pending != null;
    if (pending == null) {
      registeredBeforeSnapshot = null;
      // queried inside the transaction: what it sees is what it consumes
      pending = steps.pending(found.sql());
    }
    if (pending.isEmpty() && !role.recompute()) {
      return Outcome.nothing(steps);
    }
    // the epoch each shared table is sealed with, up to which the view consumes it; a table only
    // this view reads keeps its watermark: every row of it the refresh sees is consumed and
    // deleted, and rows sealed later get later epochs
    Map<Integer, Long> consumedUpTo = new TreeMap<>();
    List<Integer> shared = new ArrayList<>();
    for (PendingChanges.Input input : pending.values()) {
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
    for (PendingChanges.Input input : pending.values()) {
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
        !role.recompute()
            && !program.fullRefreshCheaper(change, rows, settings)
            && !program.deltas().isCompiled(change, program.joinStrategy(change, settings));
    RefreshProgram.Choice choice =
        role.recompute() ? program.recompute() : program.choose(change, rows, settings);
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
    long writingChange = 0;
    long changeWritten = 0;
    List<MergeOrder.Input> inputs =
        pending.values().stream()
            .map(in -> new MergeOrder.Input(catalog.trackedTable(in.tableId()), in.rows()))
            .toList();
    UnaryOperator<String> order = MergeOrder.of(steps, view, choice, rows, inputs);
    for (String statement : choice.statements()) {
      String sql = order.apply(statement);
      boolean writesChange = ChangeEmission.writesChange(sql);
      if (writesChange && !role.writesChange()) {
        continue;
      }
      long start = System.nanoTime();
      long count =
          steps.execute(
              writesChange ? "write the view's change for the views that read it" : what, sql);
      if (writesChange) {
        writingChange += System.nanoTime() - start;
        changeWritten += ChangeEmission.insertsChange(sql) ? Math.max(0, count) : 0;
      }
    }
    double mergeMillis = (System.nanoTime() - merging) / 1e6;
    // the views that read this one have a change to consume now: registered before the commit
    Optional<TrackedTable> log = catalog.trackedTable(view.userViewSchema(), view.name());
    if (log.isPresent() && role.writesChange()) {
      connection.changeLogWritten(log.get().id());
    }
    if (!consumedUpTo.isEmpty()) {
      steps.execute(
          "advance the view's watermarks",
          ChangeLogs.advanceSql(view.id(), consumedUpTo.keySet()),
          consumedUpTo.values().toArray());
    }
    // the consumed change rows are deleted per table; the last delete also records the refresh
    List<PendingChanges.Input> consumed = new ArrayList<>(pending.values());
    long deleted = 0;
    for (PendingChanges.Input input : consumed.subList(0, Math.max(0, consumed.size() - 1))) {
      deleted +=
          steps.execute(
              "delete consumed change rows of " + displayName(catalog, input),
              consumeSql(catalog, input, shared));
    }
    String mode = choice.merge() == MergeStrategy.FULL_RECOMPUTE ? "full" : "incremental";
    if (writingChange > 0 && choice.merge() != MergeStrategy.FULL_RECOMPUTE) {
      program.costs().changeWritten(rows, changeWritten);
    }
    // a recompute for a change the views below did not write consumed theirs; a cost of no change
    // rows would read as the population by CREATE (RefreshCosts.recomputeCheaper). A counted
    // change is costed by its count, which may exceed the rows consumed (writes rolled back).
    long costedRows = Math.max(1, rows + role.unwrittenRows());
    double remembered =
        program
            .costs()
            .remembered(
                choice.merge(), costedRows, costedMillis(choice.merge(), mergeMillis, role));
    Recorded record;
    double refreshMillis = (System.nanoTime() - started) / 1e6;
    if (role.writesChange() && program.costs().mustStore(choice.merge(), costedRows, remembered)) {
      record =
          new Recorded(
              "record the refresh and its cost in ivm_views",
              RefreshStatistics.recordedSql(view.id()),
              refreshMillis,
              mode,
              mergeMillis,
              choice.merge().name(),
              costedRows,
              remembered);
    } else if (!view.isHidden()) {
      // a hidden view's statistics are nobody's to read (ivm_views lists the user's views), so
      // its refresh writes its catalog row only for auto's costs
      record =
          new Recorded(
              "record the refresh in ivm_views",
              RefreshStatistics.recordedWithoutCostSql(view.id()),
              refreshMillis,
              mode,
              mergeMillis);
    } else {
      record = null;
    }
    if (consumed.isEmpty()) {
      if (record != null) {
        steps.execute(record.what(), record.sql(), record.parameters());
      }
    } else {
      PendingChanges.Input last = consumed.get(consumed.size() - 1);
      String delete = consumeSql(catalog, last, shared);
      String deletes = "delete consumed change rows of " + displayName(catalog, last);
      deleted +=
          record == null
              ? steps.execute(deletes, delete)
              : steps.execute(
                  deletes + ", and " + record.what(),
                  "WITH _ivm_recorded AS (" + record.sql() + ") " + delete,
                  record.parameters());
    }
    // (null if a write is open now: then one was registered since)
    if (registeredBeforeSnapshot != null
        && !Arrays.equals(
            registeredBeforeSnapshot, ledger.registrationsIfEnded(view.inputTableIds()))) {
      throw new Conflicts.WriteDuringSnapshot(view.displayName());
    }
    if (counted) {
      // the counted rows were an estimate; every changed table is this view's alone, and the
      // refresh deleted every row of its log it saw, which are the rows it consumed
      rows = deleted;
      if (rows == 0 && !role.recompute()) {
        // the counted writes rolled back: the merge found nothing, as the query would have
        // (the view's catalog row counts it as a refresh)
        return Outcome.nothing(steps);
      }
    }
    rows += role.unwrittenRows();
    return new Outcome(rows, choice, mergeMillis, writingChange / 1e6, steps.timings());
  }

  /**
   * Runs after a refresh counted its change, before its first statement: where a write that the
   * refresh did not count can commit before its snapshot is taken. Nothing but a test sets it, to
   * write there.
   */
  static volatile Runnable afterCounting = () -> {};

  /** The statement that records a refresh in its view's catalog row, with its parameters. */
  private record Recorded(String what, String sql, Object... parameters) {}

  private static String displayName(CatalogSnapshot catalog, PendingChanges.Input input) {
    return catalog.trackedTable(input.tableId()).relation().displayName();
  }

  /** The statement that deletes the change rows of {@code input} that every reader consumed. */
  private static String consumeSql(
      CatalogSnapshot catalog, PendingChanges.Input input, List<Integer> shared) {
    TrackedTable table = catalog.trackedTable(input.tableId());
    return shared.contains(input.tableId())
        ? ChangeLogs.collectGarbageSql(table)
        : ChangeLogs.consumeAllSql(table);
  }

  /**
   * The time a refresh in {@code role} whose merge took {@code mergeMillis} records as its cost: an
   * incremental one also pays for the change the views below wrote for it alone.
   */
  private static double costedMillis(MergeStrategy merge, double mergeMillis, Role role) {
    return merge == MergeStrategy.FULL_RECOMPUTE
        ? mergeMillis
        : mergeMillis + role.changeWrittenMillis();
  }

  /**
   * A statement that reads a table of the database, so that the transaction it runs in takes its
   * snapshot (DuckDB takes it at the first statement that reads the database, not at {@code SELECT
   * 1}).
   */
  private static final String SNAPSHOT_SQL =
      "SELECT 1 FROM " + IvmNames.qualified(IvmNames.SCHEMA, "views") + " LIMIT 0";
}
