package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.jdbc.CaptureLedger;
import org.calciteivm.jdbc.CapturedChange;
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
 *       pending views (the rows after its watermark), or from the driver's register of captured
 *       writes where that tells them ({@link #countedPending}; the statement then only takes the
 *       transaction's snapshot);
 *   <li>seal the rows of changed tables that other views read too: give them the next epoch, so
 *       that each view can tell later which rows it has consumed (per table);
 *   <li>apply the view delta with the chosen merge strategy;
 *   <li>move the view's watermarks on the tables it sealed;
 *   <li>delete captured rows every reader has consumed (per table; a table only this view reads
 *       needs no seal and no watermark: every row it sees is consumed here and deleted, and rows
 *       sealed later get later epochs);
 *   <li>record the refresh in the view's catalog row: its time and mode, and its cost where {@code
 *       auto} needs it ({@link RefreshCosts#mustStore}); a hidden view only for the cost.
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
   * tell the pending change ({@link #countedPending}), the refresh does not query it either: its
   * first statement only takes its snapshot. Otherwise its first statement finds the change, and a
   * view with no pending change costs that one query.
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
    CatalogSnapshot catalog = database.catalog();
    List<TrackedTable> inputs = new ArrayList<>();
    view.inputTableIds().forEach(id -> inputs.add(catalog.trackedTable(id)));
    String pendingSql = ChangeLogs.pendingChangesSql(view.id(), inputs);
    Pending pending;
    if (ownTransaction || in != In.OWN_OR_CLIENT_TRANSACTION) {
      pending =
          new Pending(
              pendingSql,
              database.lastRefreshed(view.id()),
              in == In.GRAPH_TRANSACTION_SNAPSHOT_TAKEN);
    } else {
      // inside an auto-commit write that maintains the view, whose statement took the snapshot
      List<CaptureLedger.Mark> since = connection.countedSince(view.id());
      pending = new Pending(pendingSql, since, since != null);
    }
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
      Pending pending,
      Role role,
      RefreshSteps steps)
      throws SQLException {
    CatalogSnapshot catalog = connection.database().catalog();
    SqlWork<Outcome> refresh =
        () ->
            connection.atomically(
                () -> refreshOnce(connection, view, program, pending, role, steps, catalog));
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
      Pending found,
      Role role,
      RefreshSteps steps,
      CatalogSnapshot catalog)
      throws SQLException {
    long started = System.nanoTime();
    IvmSettings settings = connection.settings();
    Map<Integer, PendingInput> pending = null;
    if (found.since() != null) {
      // the snapshot first: every write whose change it sees is registered by now
      if (!found.snapshotTaken()) {
        steps.query("take the refresh's snapshot", SNAPSHOT_SQL, rs -> {});
      }
      pending = countedPending(catalog, view, found.since(), connection.database().captures());
    }
    boolean counted = pending != null;
    if (pending == null) {
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
    for (String sql : choice.statements()) {
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
    long deleted = 0;
    for (PendingInput input : pending.values()) {
      TrackedTable table = catalog.trackedTable(input.tableId());
      deleted +=
          steps.execute(
              "delete consumed change rows of " + table.relation().displayName(),
              shared.contains(input.tableId())
                  ? ChangeLogs.collectGarbageSql(table)
                  : ChangeLogs.consumeAllSql(table));
    }
    if (counted) {
      // the counted rows were an estimate; every changed table is this view's alone, and the
      // refresh deleted every row of its log it saw, which are the rows it consumed
      rows = deleted;
      if (rows == 0 && !role.recompute()) {
        // the counted writes rolled back: the merge found nothing, as the query would have
        return Outcome.nothing(steps);
      }
    }
    double refreshMillis = (System.nanoTime() - started) / 1e6;
    String mode = choice.merge() == MergeStrategy.FULL_RECOMPUTE ? "full" : "incremental";
    if (writingChange > 0 && choice.merge() != MergeStrategy.FULL_RECOMPUTE) {
      program.costs().changeWritten(rows, changeWritten);
    }
    // a recompute for a change the views below did not write consumed theirs; a cost of no change
    // rows would read as the population by CREATE (RefreshCosts.recomputeCheaper)
    rows += role.unwrittenRows();
    long costedRows = Math.max(1, rows);
    double remembered =
        program
            .costs()
            .remembered(
                choice.merge(), costedRows, costedMillis(choice.merge(), mergeMillis, role));
    if (role.writesChange() && program.costs().mustStore(choice.merge(), costedRows, remembered)) {
      steps.execute(
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
      steps.execute(
          "record the refresh in ivm_views",
          RefreshStatistics.recordedWithoutCostSql(view.id()),
          refreshMillis,
          mode,
          mergeMillis);
    }
    return new Outcome(rows, choice, mergeMillis, writingChange / 1e6, steps.timings());
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
   * A base table with captured rows the refreshing view has not consumed: a row of {@link
   * ChangeLogs#pendingChangesSql}, or its estimate from this JVM's counts ({@link
   * #countedPending}).
   */
  record PendingInput(int tableId, long rows, long minWeight, long maxWeight) {}

  /**
   * How a refresh finds its pending change.
   *
   * @param sql the query of it, run inside the refresh's transaction
   * @param since the marks the view's last refresh in a transaction of its own began from, if it
   *     had one in this JVM: the change may be counted from them ({@link #countedPending})
   * @param snapshotTaken whether the refresh's transaction has taken its snapshot already
   */
  private record Pending(
      String sql, @Nullable List<CaptureLedger.Mark> since, boolean snapshotTaken) {}

  /**
   * A statement that reads a table of the database, so that the transaction it runs in takes its
   * snapshot (DuckDB takes it at the first statement that reads the database, not at {@code SELECT
   * 1}).
   */
  private static final String SNAPSHOT_SQL =
      "SELECT 1 FROM " + IvmNames.qualified(IvmNames.SCHEMA, "views") + " LIMIT 0";

  /**
   * The pending change of {@code view}, per base table that changed, from the writes registered
   * after {@code since} (the marks its last refresh began from), read once the refresh's snapshot
   * is taken; null where they cannot tell it, and then the refresh queries it.
   *
   * <p>They tell it when every such write's rows are known ({@link CaptureLedger#since}) and each
   * base table that changed is read by this view alone: its refresh deletes every row of that
   * table's change log it sees, so the deletes count what it consumed exactly. The writes may hold
   * more than the snapshot sees (a write still open, or rolled back), with signs its rows do not
   * have, never less: that only costs a merge that finds less to do than planned. A table whose
   * writes captured no row has no change.
   */
  private static @Nullable Map<Integer, PendingInput> countedPending(
      CatalogSnapshot catalog,
      ViewEntry view,
      List<CaptureLedger.Mark> since,
      CaptureLedger ledger) {
    List<Integer> tableIds = view.inputTableIds();
    if (since.size() != tableIds.size()) {
      return null;
    }
    Map<Integer, PendingInput> pending = new LinkedHashMap<>();
    for (int i = 0; i < tableIds.size(); i++) {
      int tableId = tableIds.get(i);
      CapturedChange change = ledger.since(tableId, since.get(i));
      if (change == null) {
        return null;
      }
      if (change.rows() == 0) {
        continue;
      }
      if (catalog.viewsReading(tableId).size() > 1) {
        return null;
      }
      pending.put(
          tableId,
          new PendingInput(
              tableId, change.rows(), change.deletes() ? -1 : 1, change.inserts() ? 1 : -1));
    }
    return pending;
  }

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
    new RefreshSteps(connection.refreshStatements(), catalog, false)
        .pending(ChangeLogs.pendingChangesSql(view.id(), inputs))
        .forEach((table, input) -> rows.put(table, input.rows()));
    return rows.buildOrThrow();
  }
}
