package org.calciteivm.jdbc.ddl;

import com.google.common.collect.ImmutableList;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.calciteivm.jdbc.CaptureLedger;
import org.calciteivm.jdbc.Conflicts;
import org.calciteivm.jdbc.IvmConnection;
import org.calciteivm.jdbc.IvmDatabase;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.refresh.RefreshExecutor;
import org.calciteivm.jdbc.refresh.RefreshProgram;
import org.calciteivm.jdbc.refresh.ViewPrograms;
import org.calciteivm.jdbc.sql.ObjectName;

/**
 * {@code REFRESH MATERIALIZED VIEW} over the graph of materialized views: a view is refreshed after
 * the views it reads (its hidden views and the materialized views in its query), bottom-up, each
 * with its program, read from the catalog at its first use in the process; the whole graph in one
 * transaction (the client's, or one of its own that a conflict runs again whole).
 */
public final class ViewRefreshes {
  /** How the step of a view below starts, listed under that view's own line. */
  static final String NESTED_STEP = "  | ";

  private ViewRefreshes() {}

  /** The materialized views that read materialized view {@code view}. */
  static List<ViewEntry> readersOf(CatalogSnapshot catalog, ViewEntry view) {
    return catalog
        .trackedTable(view.userViewSchema(), view.name())
        .map(log -> (List<ViewEntry>) catalog.viewsReading(log.id()))
        .orElse(List.of());
  }

  /**
   * The materialized views {@code view} reads, in the order a refresh of {@code view} brings them
   * up to date: every view before the views that read it.
   */
  static List<ViewEntry> viewsBelow(CatalogSnapshot catalog, ViewEntry view) {
    List<ViewEntry> order = new ArrayList<>();
    addViewsBelow(catalog, view, order);
    return order;
  }

  private static void addViewsBelow(
      CatalogSnapshot catalog, ViewEntry view, List<ViewEntry> order) {
    for (int tableId : view.inputTableIds()) {
      Optional<ViewEntry> read = catalog.viewByUserView(catalog.trackedTable(tableId).relation());
      if (read.isPresent() && order.stream().noneMatch(v -> v.id() == read.get().id())) {
        addViewsBelow(catalog, read.get(), order);
        order.add(read.get());
      }
    }
  }

  /**
   * {@code REFRESH MATERIALIZED VIEW}: applies the pending changes incrementally.
   *
   * @param timed whether the outcome lists the statements run with their times
   */
  public static RefreshExecutor.Outcome refresh(
      IvmConnection connection, ObjectName name, boolean timed) throws SQLException {
    return refresh(connection, ViewNames.view(connection, name), timed);
  }

  /**
   * Refreshes {@code view} of the catalog, after the views it reads; inside the open transaction if
   * there is one.
   *
   * @param timed whether the outcome lists the statements run with their times
   */
  public static RefreshExecutor.Outcome refresh(
      IvmConnection connection, ViewEntry view, boolean timed) throws SQLException {
    IvmDatabase database = connection.database();
    List<ViewEntry> below = viewsBelow(database.catalog(), view);
    if (below.isEmpty() || connection.inTransaction()) {
      return refreshGraph(connection, view, below, timed, false);
    }
    // the graph in one transaction of its own: one commit, and readers of the view never see
    // the nodes below it ahead of it. Each node's marks are read before it begins
    // (a change counted later is consumed by a later refresh), as a refresh of one view does.
    List<ViewEntry> graph = new ArrayList<>(below);
    graph.add(view);
    List<List<CaptureLedger.Mark>> marks = new ArrayList<>();
    boolean pending = false;
    for (ViewEntry node : graph) {
      marks.add(database.captures().marks(node.inputTableIds()));
      pending |= !database.refreshedSince(node.id(), node.inputTableIds());
    }
    if (!pending) {
      return refreshGraph(connection, view, below, timed, false); // each node returns at once
    }
    return database.refreshing(
        () -> {
          RefreshExecutor.Outcome outcome =
              Conflicts.retrying(
                  attempt ->
                      connection.atomically(
                          () -> refreshGraph(connection, view, below, timed, true)),
                  () -> {},
                  (attempts, e) -> e);
          // the change logs of the nodes below moved on with what the nodes above consumed in the
          // same transaction; only refreshes write them, and this one still holds the refresh lock
          Set<Integer> logs = new HashSet<>();
          for (ViewEntry node : below) {
            database
                .catalog()
                .trackedTable(node.userViewSchema(), node.name())
                .ifPresent(log -> logs.add(log.id()));
          }
          for (int i = 0; i < graph.size(); i++) {
            List<Integer> inputs = graph.get(i).inputTableIds();
            List<CaptureLedger.Mark> now = database.captures().marks(inputs);
            List<CaptureLedger.Mark> consumed = new ArrayList<>(marks.get(i));
            for (int j = 0; j < inputs.size(); j++) {
              if (logs.contains(inputs.get(j))) {
                consumed.set(j, now.get(j));
              }
            }
            database.refreshed(graph.get(i).id(), consumed);
          }
          return outcome;
        });
  }

  /**
   * Refreshes {@code below}, the views {@code view} reads in bottom-up order, then {@code view}:
   * each in the open transaction, or in one of its own if none is open. {@code graphTransaction}
   * says that the open transaction is the driver's own for the whole graph, begun after each node's
   * marks were read ({@link RefreshExecutor.In}).
   */
  private static RefreshExecutor.Outcome refreshGraph(
      IvmConnection connection,
      ViewEntry view,
      List<ViewEntry> viewsBelow,
      boolean timed,
      boolean graphTransaction)
      throws SQLException {
    List<RefreshExecutor.Step> steps = new ArrayList<>();
    List<ViewEntry> graph = new ArrayList<>(viewsBelow);
    graph.add(view);
    // every node's program first: the roles are decided from their costs before any refresh
    Map<Integer, Loaded> loaded = new HashMap<>();
    List<RefreshProgram> programs = new ArrayList<>();
    for (ViewEntry node : graph) {
      Loaded program = Loaded.of(connection, node);
      loaded.put(node.id(), program);
      programs.add(program.program());
    }
    GraphRoles roles =
        new GraphRoles(connection.database(), connection.settings(), graph, programs);
    Map<Integer, RefreshExecutor.Outcome> outcomes = new HashMap<>();
    // the views it reads first: a view's change log keeps what the views reading it have not
    // consumed
    // in the graph's transaction, the first refresh's first statement takes its snapshot
    RefreshExecutor.In in =
        graphTransaction
            ? RefreshExecutor.In.GRAPH_TRANSACTION
            : RefreshExecutor.In.OWN_OR_CLIENT_TRANSACTION;
    for (ViewEntry below : viewsBelow) {
      long started = System.nanoTime();
      RefreshExecutor.Outcome outcome =
          refreshOne(
              connection, below, loaded.get(below.id()), timed, in, roles.role(below, outcomes));
      outcomes.put(below.id(), outcome);
      if (graphTransaction) {
        in = RefreshExecutor.In.GRAPH_TRANSACTION_SNAPSHOT_TAKEN;
      }
      steps.add(
          new RefreshExecutor.Step(
              (below.isHidden()
                      ? "refresh hidden view " + below.userView() + ", a subquery this view reads ("
                      : "refresh materialized view \""
                          + below.name()
                          + "\", which this view reads (")
                  + outcome.changeRows()
                  + " change rows"
                  + (roles.silent(below)
                      ? "; its change is not written: the views that read it recompute"
                      : "")
                  + ")",
              "",
              System.nanoTime() - started));
      // its own steps, indented under it
      for (RefreshExecutor.Step step : outcome.steps()) {
        steps.add(new RefreshExecutor.Step(NESTED_STEP + step.what(), step.sql(), step.nanos()));
      }
    }
    RefreshExecutor.Outcome outcome =
        refreshOne(connection, view, loaded.get(view.id()), timed, in, roles.role(view, outcomes));
    return timed ? withStepsBefore(steps, outcome) : outcome;
  }

  /**
   * A view's program, and how long reading it from the catalog took if this was its first use in
   * the process ({@code -1} if it was at hand).
   */
  private record Loaded(RefreshProgram program, long loadNanos) {
    static Loaded of(IvmConnection connection, ViewEntry view) throws SQLException {
      boolean loads = connection.database().cachedProgram(view.id()) == null;
      long loading = System.nanoTime();
      RefreshProgram program = ViewRefreshes.program(connection, view);
      return new Loaded(program, loads ? System.nanoTime() - loading : -1);
    }
  }

  private static RefreshExecutor.Outcome refreshOne(
      IvmConnection connection,
      ViewEntry view,
      Loaded loaded,
      boolean timed,
      RefreshExecutor.In in,
      RefreshExecutor.Role role)
      throws SQLException {
    RefreshExecutor.Outcome outcome =
        RefreshExecutor.refresh(connection, view, loaded.program(), timed, in, role);
    if (loaded.loadNanos() < 0 || !timed) {
      return outcome;
    }
    return withStepsBefore(
        List.of(
            new RefreshExecutor.Step(
                "read the view's refresh program from the catalog (first use in this process)",
                "",
                loaded.loadNanos())),
        outcome);
  }

  /** {@code outcome} with {@code before} listed ahead of its own steps. */
  private static RefreshExecutor.Outcome withStepsBefore(
      List<RefreshExecutor.Step> before, RefreshExecutor.Outcome outcome) {
    if (before.isEmpty()) {
      return outcome;
    }
    return new RefreshExecutor.Outcome(
        outcome.changeRows(),
        outcome.choice(),
        outcome.mergeMillis(),
        outcome.changeWriteMillis(),
        ImmutableList.<RefreshExecutor.Step>builder()
            .addAll(before)
            .addAll(outcome.steps())
            .build());
  }

  static RefreshProgram program(IvmConnection connection, ViewEntry view) throws SQLException {
    IvmDatabase database = connection.database();
    RefreshProgram program = database.cachedProgram(view.id());
    if (program == null) {
      program = ViewPrograms.load(database, connection.duckDb(), view);
      database.cacheProgram(view.id(), program);
    }
    return program;
  }
}
