package org.calciteivm.jdbc.ddl;

import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.jdbc.IvmConnection;
import org.calciteivm.jdbc.IvmSetting;
import org.calciteivm.jdbc.IvmSettings;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.ChangeLogs;
import org.calciteivm.jdbc.catalog.RefreshTiming;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.refresh.MergeOrder;
import org.calciteivm.jdbc.refresh.PendingChanges;
import org.calciteivm.jdbc.refresh.RefreshExecutor;
import org.calciteivm.jdbc.refresh.RefreshProgram;
import org.calciteivm.jdbc.sql.ObjectName;

/**
 * {@code EXPLAIN REFRESH MATERIALIZED VIEW} (what a refresh would run: strategy, join terms, delta
 * plan, statements) and {@code EXPLAIN ANALYZE REFRESH MATERIALIZED VIEW} (a refresh, with each
 * statement's time).
 */
public final class RefreshExplanation {
  private RefreshExplanation() {}

  /**
   * {@code EXPLAIN ANALYZE REFRESH MATERIALIZED VIEW}: refreshes the view and reports each
   * statement with its time, and the whole refresh's time (which includes compiling the delta
   * program on first use for a set of changed tables, and the commit).
   */
  public static List<String> explainAnalyze(IvmConnection connection, ObjectName name)
      throws SQLException {
    long start = System.nanoTime();
    RefreshExecutor.Outcome outcome = ViewRefreshes.refresh(connection, name, true);
    long total = System.nanoTime() - start;
    List<String> lines = new ArrayList<>();
    lines.add(
        String.format(
            Locale.ROOT,
            "refresh of %s: %.3f ms, %d change rows consumed%s",
            ViewNames.view(connection, name).displayName(),
            total / 1e6,
            outcome.changeRows(),
            outcome.choice() == null
                ? " (nothing pending)"
                : ", merged with " + outcome.choice().merge()));
    long listed = 0;
    for (RefreshExecutor.Step step : outcome.steps()) {
      lines.add(String.format(Locale.ROOT, "%10.3f ms  %s", step.nanos() / 1e6, step.what()));
      step.sql().lines().forEach(l -> lines.add("              " + l));
      if (!step.what().startsWith(ViewRefreshes.NESTED_STEP)) {
        listed += step.nanos(); // a nested step's time is in its view's line already
      }
    }
    if (!outcome.steps().isEmpty()) {
      // a refresh whose commit checkpoints DuckDB's write-ahead log shows it here
      lines.add(
          String.format(
              Locale.ROOT,
              "%10.3f ms  the commit, and the driver's work between statements",
              Math.max(0, total - listed) / 1e6));
    }
    return lines;
  }

  /**
   * {@code EXPLAIN REFRESH MATERIALIZED VIEW}: the delta plan and the statements a refresh runs.
   */
  public static List<String> explain(IvmConnection connection, ObjectName name)
      throws SQLException {
    ViewEntry view = ViewNames.view(connection, name);
    List<String> lines = explain(connection, view);
    // then each hidden view below it, in the order a refresh brings them up to date
    for (ViewEntry hidden : ViewRefreshes.viewsBelow(connection.database().catalog(), view)) {
      if (hidden.isHidden()) {
        lines.add("hidden view " + hidden.userView() + ", refreshed first:");
        explain(connection, hidden).forEach(l -> lines.add("  " + l));
      }
    }
    return lines;
  }

  /** The explanation of {@code view} alone. */
  private static List<String> explain(IvmConnection connection, ViewEntry view)
      throws SQLException {
    RefreshProgram program = ViewRefreshes.program(connection, view);
    IvmSettings settings = connection.settings();
    ImmutableMap<Integer, Long> pendingRows = PendingChanges.rows(connection, view);
    ImmutableSet<Integer> pending = pendingRows.keySet();
    ImmutableSet<Integer> changed =
        pending.isEmpty() ? ImmutableSet.copyOf(view.inputTableIds()) : pending;
    List<String> lines = new ArrayList<>();
    lines.add("materialized view: " + view.name());
    lines.add("query: " + view.query());
    if (!view.isHidden()) {
      lines.add("refreshed: " + describe(view.timing()));
    }
    CatalogSnapshot catalog = connection.database().catalog();
    List<ViewEntry> below = ViewRefreshes.viewsBelow(catalog, view);
    List<String> visibleBelow =
        below.stream().filter(v -> !v.isHidden()).map(v -> '"' + v.name() + '"').toList();
    if (!visibleBelow.isEmpty()) {
      lines.add(
          "reads materialized views, refreshed first in this order: "
              + String.join(", ", visibleBelow));
    }
    for (ViewEntry hidden : below) {
      if (hidden.isHidden()) {
        lines.add(
            "reads hidden view "
                + hidden.userView()
                + " (an intermediate state, refreshed first): "
                + hidden.query().replaceAll("\\s+", " "));
      }
    }
    List<ViewEntry> readers = ViewRefreshes.readersOf(catalog, view);
    if (!readers.isEmpty()) {
      lines.add(
          ViewEntry.dependents(readers, "reads", "read")
              + " this view, so its refresh also writes its change into a change log (not when"
              + " every view that reads it recomputes in the same refresh)");
    }
    lines.add("strategy: " + program.strategy() + " (" + describe(program.strategy()) + ")");
    RefreshProgram.Choice whenInserts =
        program.incremental(new RefreshProgram.PendingChange(changed, changed), settings);
    RefreshProgram.Choice otherwise =
        program.incremental(new RefreshProgram.PendingChange(changed, ImmutableSet.of()), settings);
    lines.add(
        "a refresh chooses among: "
            + whenInserts.delta().statements().keySet().stream()
                .map(MergeStrategy::name)
                .collect(Collectors.joining(", "))
            + "; with the current settings and an insert-only change: "
            + whenInserts.merge()
            + ", otherwise: "
            + otherwise.merge());
    long rows = pendingRows.values().stream().mapToLong(Long::longValue).sum();
    lines.add(
        refreshMode(
            program, settings, new RefreshProgram.PendingChange(changed, ImmutableSet.of()), rows));
    lines.add(
        "hidden columns: "
            + (program.hiddenColumns().isEmpty()
                ? "none"
                : String.join(", ", program.hiddenColumns())));
    RefreshProgram.Delta delta = otherwise.delta();
    lines.add(
        (pending.isEmpty() ? "no pending change; shown for a change to " : "pending change to ")
            + changed.stream()
                .map(id -> tableName(connection, id))
                .collect(Collectors.joining(", ")));
    List<String> prunedWhenInserts = whenInserts.delta().pruned();
    List<String> prunedWhenDeletes =
        program
            .incremental(
                new RefreshProgram.PendingChange(changed, ImmutableSet.of(), changed), settings)
            .delta()
            .pruned();
    // the terms are listed for inner joins of scans; what a declared key leaves out, for any join
    if (!delta.terms().isEmpty() || !prunedWhenInserts.isEmpty() || !prunedWhenDeletes.isEmpty()) {
      lines.add(
          "join expansion: "
              + delta.joins()
              + " (ivm_join_strategy = "
              + settings.get(IvmSetting.JOIN_STRATEGY)
              + ")"
              + (delta.terms().isEmpty()
                  ? ""
                  : "; terms (Δt change, t current state, t⁻ previous state):"));
      delta.terms().forEach(t -> lines.add("  " + t));
      prunedWhenInserts.forEach(p -> lines.add("  when every change is an insert: " + p));
      prunedWhenDeletes.forEach(p -> lines.add("  when every change is a delete: " + p));
      if (!delta.terms().isEmpty() && delta.negativeWeightsPossible()) {
        lines.add(
            "  an insert-only change can give rows of negative weight here: the append path"
                + " consolidates them first");
      }
    }
    lines.add("delta plan:");
    delta.deltaPlan().lines().forEach(l -> lines.add("  " + l));
    lines.add("refresh statements, in one transaction:");
    List<TrackedTable> inputs = new ArrayList<>();
    view.inputTableIds().forEach(id -> inputs.add(catalog.trackedTable(id)));
    lines.add("  find the pending change:");
    lines.add("    " + ChangeLogs.pendingChangesSql(view.id(), inputs));
    lines.add(
        "    (not run when this process counted every write since the view's last refresh and"
            + " each table they changed is read by this view alone)");
    lines.add("  per changed table that other views read too: seal its captured rows");
    lines.add(
        "  (the merge reads each table's change through the view's pending view of it, created"
            + " with the view, e.g.");
    TrackedTable first = inputs.get(0);
    lines.add(
        "    "
            + ChangeLogs.pendingViewSql(
                view.id(), first, catalog.viewsReading(first.id()).size() == 1)
            + ")");
    for (MergeStrategy strategy : delta.statements().keySet()) {
      lines.add("  merge when " + strategy + ":");
      for (String sql : delta.statementsFor(strategy)) {
        sql.lines().forEach(l -> lines.add("    " + l));
      }
    }
    if (delta.statements().keySet().stream().anyMatch(MergeOrder::applies)) {
      lines.add("  " + MergeOrder.explanation());
    }
    lines.add(
        "  advance the view's watermarks, delete the change rows every reader has consumed, record"
            + " the refresh");
    return lines;
  }

  /** Which mode a refresh of {@code rows} change rows takes, and the estimates it is chosen by. */
  private static String refreshMode(
      RefreshProgram program,
      IvmSettings settings,
      RefreshProgram.PendingChange change,
      long rows) {
    MergeStrategy incremental = program.incrementalMerge(change, settings);
    Double merge = program.costs().estimate(incremental, rows);
    Double full = program.costs().estimate(MergeStrategy.FULL_RECOMPUTE, rows);
    boolean recompute = program.fullRefreshCheaper(change, rows, settings);
    return String.format(
        Locale.ROOT,
        "refresh mode: %s (ivm_refresh_mode = %s); for %d change rows with deletes: %s %s,"
            + " recompute %s; past refreshes: %s",
        recompute ? "full" : "incremental",
        settings.refreshMode().sqlValue(),
        rows,
        incremental,
        merge == null ? "not measured yet" : String.format(Locale.ROOT, "~%.1f ms", merge),
        full == null ? "not measured yet" : String.format(Locale.ROOT, "~%.1f ms", full),
        program.costs());
  }

  private static String describe(MergeStrategy strategy) {
    switch (strategy) {
      case BAG_COUNTED:
        return "bag view: fan out net inserts, delete exactly the net deleted copies;"
            + " BAG_APPEND when every change is an insert and ivm_skip_projection_delete is on";
      case GROUP_MERGE:
        return "aggregate view: one MERGE of each touched group's state change;"
            + " GROUP_APPEND (no empty-group delete) when every change is an insert"
            + " and ivm_skip_aggregate_delete is on";
      case GROUP_RECOMPUTE:
        return "aggregate view with MIN/MAX: one MERGE of each touched group's state change, each"
            + " extreme kept with the number of rows that hold it; a group whose change deletes"
            + " every row holding an extreme is recomputed from the base table; with an"
            + " insert-only change and ivm_minmax_incremental on, one MERGE alone";
      default:
        return strategy.name();
    }
  }

  private static String tableName(IvmConnection connection, int tableId) {
    return connection.database().catalog().trackedTable(tableId).relation().displayName();
  }

  /** When a view of {@code timing} is refreshed, for EXPLAIN. */
  private static String describe(RefreshTiming timing) {
    return switch (timing.kind()) {
      case DEFERRED -> "deferred (by REFRESH MATERIALIZED VIEW)";
      case IMMEDIATE ->
          "immediate (by every write to its tables, in the writer's transaction; the refresh"
              + " below is what each write runs)";
      case SCHEDULED -> timing.text() + " (in the background, by the scheduler)";
    };
  }
}
