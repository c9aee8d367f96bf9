package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.jdbc.IvmDatabase;
import org.calciteivm.jdbc.IvmSettings;
import org.calciteivm.jdbc.catalog.RefreshStatistics;
import org.calciteivm.jdbc.catalog.StoredPrograms;
import org.calciteivm.jdbc.catalog.StoredPrograms.Variant;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;

/**
 * Where a view's {@link RefreshProgram} comes from: compiled by CREATE MATERIALIZED VIEW, which
 * stores its commonest delta programs in the catalog, and afterwards read back from the catalog, so
 * that a new process refreshes without planning ({@link StoredDeltas}).
 */
public final class ViewPrograms {
  private ViewPrograms() {}

  /**
   * The program of the view {@code compiler} just compiled and CREATE created as {@code view}, in
   * the transaction of {@code duckDb}: its shape is recorded in the catalog, and the programs of
   * the commonest refreshes (each base table changed alone, with and without deletes) are compiled
   * and stored, so that a first refresh does not pay for planning, and a delta that cannot be
   * compiled fails the CREATE instead of a later refresh. Filling the view took {@code
   * populationMillis}: the cost of a recompute until one is measured.
   */
  public static RefreshProgram create(
      IvmDatabase database,
      Connection duckDb,
      ViewEntry view,
      ViewCompiler compiler,
      Collection<TrackedTable> tracked,
      IvmSettings settings,
      double populationMillis)
      throws SQLException {
    RefreshStatistics.recordCreation(duckDb, view.id(), populationMillis);
    return stored(database, duckDb, view, compiler, tracked, settings);
  }

  /**
   * Plans {@code view} again and replaces its stored programs, in the transaction of {@code
   * duckDb}: when other views begin or cease to read it, its refresh begins or ceases to write its
   * change log ({@code tracked} says which). Done in the transaction that changes its readers, so
   * that no refresh can run a program of the other kind, and none plans later inside a client's
   * transaction (where storing the plan would conflict with the refresh's own catalog writes).
   */
  public static RefreshProgram replan(
      IvmDatabase database,
      Connection duckDb,
      ViewEntry view,
      Collection<TrackedTable> tracked,
      IvmSettings settings)
      throws SQLException {
    StoredPrograms.forget(duckDb, List.of(view.id()));
    ViewCompiler compiler = ViewCompiler.plan(duckDb, view, tracked);
    return stored(database, duckDb, view, compiler, tracked, settings);
  }

  /**
   * The program of {@code view} from {@code compiler}: its shape is recorded in the catalog, and
   * the programs of the commonest refreshes (each base table changed alone, with and without
   * deletes) are compiled and stored.
   */
  private static RefreshProgram stored(
      IvmDatabase database,
      Connection duckDb,
      ViewEntry view,
      ViewCompiler compiler,
      Collection<TrackedTable> tracked,
      IvmSettings settings)
      throws SQLException {
    ImmutableList<Integer> scanned = compiler.scannedTableIds(tracked);
    ImmutableList<String> fullRefresh = compiler.fullRefreshSql(view, tracked);
    StoredPrograms.storeShape(duckDb, view.id(), scanned, fullRefresh);
    StoredDeltas deltas =
        new StoredDeltas(database, view, Map.of(), compiler.deltaCompiler(view, tracked));
    RefreshProgram program =
        new RefreshProgram(
            view.name(),
            view.strategy(),
            compiler.hiddenColumns(),
            scanned,
            deltas,
            fullRefresh,
            costs(duckDb, view, tracked));
    List<Variant> common = new ArrayList<>();
    for (int tableId : view.inputTableIds()) {
      ImmutableSet<Integer> changed = ImmutableSet.of(tableId);
      for (ImmutableSet<Integer> insertOnly : List.of(ImmutableSet.<Integer>of(), changed)) {
        RefreshProgram.PendingChange pending =
            new RefreshProgram.PendingChange(changed, insertOnly);
        common.add(Variant.of(pending, program.joinStrategy(pending, settings)));
      }
    }
    deltas.precompile(duckDb, common);
    return program;
  }

  /**
   * The program of {@code view} from the catalog. A view created by a version that did not record
   * its shape is planned now (its shape is then recorded, if the catalog can be written).
   */
  public static RefreshProgram load(IvmDatabase database, Connection duckDb, ViewEntry view)
      throws SQLException {
    StoredPrograms.Shape shape = StoredPrograms.shape(duckDb, view.id());
    Map<Variant, RefreshProgram.Delta> stored = StoredPrograms.load(duckDb, view.id());
    if (shape.complete()) {
      return new RefreshProgram(
          view.name(),
          view.strategy(),
          shape.hiddenColumns(),
          shape.scannedTableIds(),
          new StoredDeltas(database, view, stored, null),
          shape.fullRefresh(),
          costs(duckDb, view, database.catalog().trackedTables()));
    }
    List<TrackedTable> tracked = database.catalog().trackedTables();
    ViewCompiler compiler = ViewCompiler.plan(duckDb, view, tracked);
    RefreshProgram program = planned(database, duckDb, view, compiler, tracked);
    try (Connection own = database.newConnection()) {
      StoredPrograms.storeShape(own, view.id(), program.scannedTableIds(), program.fullRefresh());
    } catch (SQLException e) {
      // only a cache: the next process plans the view again
    }
    return program;
  }

  /**
   * The program of {@code view} from {@code compiler}, its plan made just now (by ALTER TABLE's
   * check, or for a view whose programs were never stored): delta programs compile from that plan
   * when a refresh needs them, and are stored then.
   */
  public static RefreshProgram planned(
      IvmDatabase database,
      Connection duckDb,
      ViewEntry view,
      ViewCompiler compiler,
      Collection<TrackedTable> tracked)
      throws SQLException {
    return new RefreshProgram(
        view.name(),
        view.strategy(),
        compiler.hiddenColumns(),
        compiler.scannedTableIds(tracked),
        new StoredDeltas(database, view, Map.of(), compiler.deltaCompiler(view, tracked)),
        compiler.fullRefreshSql(view, tracked),
        costs(duckDb, view, tracked));
  }

  /** What {@code view}'s past refreshes cost, as {@code auto} may compare them. */
  private static RefreshCosts costs(
      Connection duckDb, ViewEntry view, Collection<TrackedTable> tracked) throws SQLException {
    Map<MergeStrategy, RefreshStatistics.Cost> costs = RefreshStatistics.costs(duckDb, view.id());
    // a view other views read writes its change as it refreshes
    return ViewCompiler.changeLog(view, tracked) != null
        ? RefreshCosts.ofChangeWriter(costs)
        : new RefreshCosts(costs);
  }
}
