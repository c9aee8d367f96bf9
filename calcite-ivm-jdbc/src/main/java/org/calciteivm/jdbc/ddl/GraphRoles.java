package org.calciteivm.jdbc.ddl;

import com.google.common.collect.ImmutableSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.calciteivm.jdbc.CaptureLedger;
import org.calciteivm.jdbc.CapturedChange;
import org.calciteivm.jdbc.IvmDatabase;
import org.calciteivm.jdbc.IvmSettings;
import org.calciteivm.jdbc.RefreshMode;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.refresh.RefreshExecutor;
import org.calciteivm.jdbc.refresh.RefreshProgram;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The role of each view in one refresh of a graph of materialized views ({@link ViewRefreshes}):
 * which views write their change, and which must recompute.
 *
 * <p>A view that other views read writes its change into its change log for them; a reader that
 * recomputes reads none of it. When every reader of a view recomputes in the same refresh, the
 * view's change is not written at all (at SF 1, writing the change of TPC-H Q3 costs about as much
 * as its merge), and each reader then must recompute, whatever its own change. Which views
 * recompute is decided before any refresh, top-down, from an estimate of each view's change: the
 * captured rows of its base tables since its last refresh (as this process registered them), and
 * for a view below, its own estimate scaled by the rows of change it wrote per change row the last
 * time ({@link org.calciteivm.jdbc.refresh.RefreshCosts#changeWritten(long)}). Where the estimate
 * is unknown, every view writes its change and decides at its refresh, as alone.
 *
 * <p>A view's incremental refresh pays for the change the views below wrote for it alone: that time
 * is counted in its cost, so that {@code auto} compares what each choice costs the graph.
 */
final class GraphRoles {
  private final CatalogSnapshot catalog;
  private final Map<Integer, ViewEntry> graph = new HashMap<>();

  /** The views whose change is not written: every view that reads them recomputes. */
  private final Set<Integer> silent = new HashSet<>();

  /**
   * Plans the roles for {@code graph}, in bottom-up order (the views below first, the refreshed
   * view last), with {@code programs} their programs in the same order.
   */
  GraphRoles(
      IvmDatabase database,
      IvmSettings settings,
      List<ViewEntry> graph,
      List<RefreshProgram> programs) {
    this.catalog = database.catalog();
    graph.forEach(view -> this.graph.put(view.id(), view));
    Map<Integer, Long> changeWritten = new HashMap<>();
    Set<Integer> recomputing = new HashSet<>();
    for (int i = 0; i < graph.size(); i++) {
      ViewEntry view = graph.get(i);
      RefreshProgram program = programs.get(i);
      Estimate estimate = estimate(database, view, changeWritten);
      if (estimate != null) {
        changeWritten.put(view.id(), program.costs().changeWritten(estimate.rows()));
      }
      // with ivm_refresh_mode = full every view recomputes, whatever its change
      boolean recomputes =
          estimate == null
              ? settings.refreshMode() == RefreshMode.FULL
              : estimate.rows() > 0
                  && program.fullRefreshCheaper(estimate.change(), estimate.rows(), settings);
      if (recomputes) {
        recomputing.add(view.id());
      }
    }
    for (ViewEntry view : graph) {
      List<ViewEntry> readers = ViewRefreshes.readersOf(catalog, view);
      if (!readers.isEmpty()
          && readers.stream().allMatch(reader -> recomputing.contains(reader.id()))) {
        silent.add(view.id());
      }
    }
  }

  /**
   * The role of {@code view} in the refresh, given the outcomes of the refreshes of the views below
   * it (by view id).
   */
  RefreshExecutor.Role role(ViewEntry view, Map<Integer, RefreshExecutor.Outcome> below) {
    boolean recompute = false;
    long unwrittenRows = 0;
    double changeWrittenMillis = 0;
    for (int tableId : view.inputTableIds()) {
      ViewEntry read = readView(tableId);
      RefreshExecutor.Outcome outcome = read == null ? null : below.get(read.id());
      if (outcome == null || outcome.choice() == null) {
        continue; // a base table, or a view below that applied nothing
      }
      if (silent.contains(read.id())) {
        recompute = true;
        unwrittenRows += outcome.changeRows();
      } else if (ViewRefreshes.readersOf(catalog, read).size() == 1) {
        changeWrittenMillis += outcome.changeWriteMillis();
      }
    }
    return new RefreshExecutor.Role(
        !silent.contains(view.id()), recompute, unwrittenRows, changeWrittenMillis);
  }

  /** Whether the refresh of {@code view} writes no change: every view that reads it recomputes. */
  boolean silent(ViewEntry view) {
    return silent.contains(view.id());
  }

  /** The view of the graph whose change log is tracked table {@code tableId}, or null. */
  private @Nullable ViewEntry readView(int tableId) {
    Optional<ViewEntry> view = catalog.viewByUserView(catalog.trackedTable(tableId).relation());
    return view.isPresent() && graph.containsKey(view.get().id()) ? view.get() : null;
  }

  /**
   * The estimated change of {@code view}: per input, the captured rows since its last refresh, or
   * for a view below, the change it writes ({@code changeWritten}); null if any is unknown.
   */
  private @Nullable Estimate estimate(
      IvmDatabase database, ViewEntry view, Map<Integer, Long> changeWritten) {
    List<CaptureLedger.Mark> since = database.lastRefreshed(view.id());
    List<Integer> inputs = view.inputTableIds();
    if (since == null || since.size() != inputs.size()) {
      return null;
    }
    long rows = 0;
    ImmutableSet.Builder<Integer> changed = ImmutableSet.builder();
    ImmutableSet.Builder<Integer> insertOnly = ImmutableSet.builder();
    for (int i = 0; i < inputs.size(); i++) {
      int tableId = inputs.get(i);
      ViewEntry below = readView(tableId);
      long tableRows;
      if (below != null) {
        Long written = changeWritten.get(below.id());
        if (written == null) {
          return null;
        }
        tableRows = written;
      } else {
        CapturedChange change = database.captures().since(tableId, since.get(i));
        if (change == null) {
          return null;
        }
        tableRows = change.rows();
        if (!change.deletes()) {
          insertOnly.add(tableId);
        }
      }
      if (tableRows > 0) {
        changed.add(tableId);
        rows += tableRows;
      }
    }
    return new Estimate(
        rows, new RefreshProgram.PendingChange(changed.build(), insertOnly.build()));
  }

  /** The estimated change rows of a view and which of its inputs changed. */
  private record Estimate(long rows, RefreshProgram.PendingChange change) {}
}
