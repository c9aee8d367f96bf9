package org.calciteivm.jdbc.ddl;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.jdbc.IvmConnection;
import org.calciteivm.jdbc.IvmDatabase;
import org.calciteivm.jdbc.IvmSettings;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.ChangeLogs;
import org.calciteivm.jdbc.catalog.DuckDbCatalog;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;
import org.calciteivm.jdbc.catalog.IvmCatalog;
import org.calciteivm.jdbc.catalog.RefreshTiming;
import org.calciteivm.jdbc.catalog.Relation;
import org.calciteivm.jdbc.catalog.SystemView;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.TrackedTables;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.catalog.ViewSchedules;
import org.calciteivm.jdbc.refresh.GroupingSets;
import org.calciteivm.jdbc.refresh.IntermediateStates;
import org.calciteivm.jdbc.refresh.QueryRewrites;
import org.calciteivm.jdbc.refresh.RefreshProgram;
import org.calciteivm.jdbc.refresh.TopRows;
import org.calciteivm.jdbc.refresh.ViewCompiler;
import org.calciteivm.jdbc.refresh.ViewPrograms;
import org.calciteivm.jdbc.sql.ObjectName;
import org.calciteivm.jdbc.sql.ParsedStatement.CreateMaterializedView;
import org.calciteivm.jdbc.sql.ParsedStatement.DropMaterializedView;
import org.calciteivm.rules.analysis.ViewAnalyzer;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The IVM statements CREATE, DROP and REFRESH MATERIALIZED VIEW ({@link RefreshExplanation} has
 * EXPLAIN).
 *
 * <p>CREATE and DROP change the catalog and the database in one transaction, so a failure leaves
 * both as they were; they run outside user transactions because the catalog they publish to the
 * other connections must be committed.
 */
public final class MaterializedViews {
  private MaterializedViews() {}

  /** {@code CREATE MATERIALIZED VIEW}: plans, creates and populates the view. */
  public static void create(IvmConnection connection, CreateMaterializedView statement)
      throws SQLException {
    ObjectName name = ViewNames.viewName(connection.duckDb(), statement.name(), true);
    requireNoTransaction(connection, "CREATE MATERIALIZED VIEW");
    RefreshTiming timing =
        RefreshTiming.option(connection.duckDb(), statement.options().get("refresh"));
    IvmDatabase database = connection.database();
    Connection duckDb = connection.duckDb();
    // the programs of the views the new one reads that write a change log now
    Map<Integer, RefreshProgram> replanned = new HashMap<>();
    // no refresh runs meanwhile: one that began before a view read by the new one writes its
    // change log would not write the change the new view's first state misses
    database.refreshing(
        () -> {
          createLocked(connection, statement, name, timing, replanned);
          replanned.forEach(database::cacheProgram);
          return null;
        });
  }

  private static void createLocked(
      IvmConnection connection,
      CreateMaterializedView statement,
      ObjectName name,
      RefreshTiming timing,
      Map<Integer, RefreshProgram> replanned)
      throws SQLException {
    IvmDatabase database = connection.database();
    Connection duckDb = connection.duckDb();
    Created created =
        database.changeCatalog(
            () -> {
              CatalogSnapshot catalog = IvmCatalog.load(duckDb);
              if (catalog.view(name.schema(), name.name()).isPresent()) {
                if (statement.ifNotExists()) {
                  return null;
                }
                throw new SQLException(
                    "materialized view \""
                        + ViewEntry.displayName(name.schema(), name.name())
                        + "\" already exists",
                    "42P07");
              }
              Optional<Relation> existing =
                  DuckDbCatalog.read(duckDb).find(name.schema(), name.name());
              if (existing.isPresent()) {
                throw new SQLException(
                    (existing.get().isTable() ? "table" : "view")
                        + " \""
                        + existing.get().name()
                        + "\" already exists",
                    "42P07");
              }
              // the catalog keeps the query every step reads
              String query =
                  QueryRewrites.atCreate(
                      statement.query(),
                      name.name(),
                      duckDb,
                      read -> catalog.viewByUserView(read.get(0), read.get(1)).isPresent());
              String inPlace =
                  statement
                          .queryInPlace()
                          .substring(
                              0, statement.queryInPlace().length() - statement.query().length())
                      + query;
              return connection.atomically(
                  () -> {
                    Created made;
                    try {
                      made =
                          createInTransaction(
                              database,
                              duckDb,
                              new Definition(name.schema(), name.name(), query, inPlace, null),
                              connection.settings(),
                              replanned);
                    } catch (SQLException failure) {
                      throw TopRows.explain(failure, name.name(), statement.query());
                    }
                    if (timing != RefreshTiming.DEFERRED) {
                      ViewSchedules.setTiming(duckDb, made.view().id(), timing);
                    }
                    return made;
                  });
            });
    if (created != null) {
      database.cacheProgram(created.view().id(), created.program());
    }
  }

  /**
   * What CREATE makes: a user's view, or a hidden view that the view {@code owner} keeps for one of
   * its subqueries.
   *
   * @param schema the schema of the view users query ({@link IvmNames#SCHEMA} for a hidden view)
   * @param name the view's name
   * @param query its query, as the catalog keeps it
   * @param planned the same query as planned: given in place in its statement for a user's view, so
   *     that positions in messages are the statement's
   * @param owner the id of the view that owns a hidden view; null for a user's view
   */
  private record Definition(
      String schema, String name, String query, String planned, @Nullable Integer owner) {}

  /** A view just created, and its program. */
  private record Created(ViewEntry view, RefreshProgram program) {}

  /**
   * Creates the view of {@code definition} in the transaction of {@code duckDb}. A query that plans
   * only with its aggregating subqueries split off ({@link IntermediateStates}) gets a hidden view
   * per subquery first, created here too (recursively).
   */
  private static Created createInTransaction(
      IvmDatabase database,
      Connection duckDb,
      Definition requested,
      IvmSettings settings,
      Map<Integer, RefreshProgram> replanned)
      throws SQLException {
    String name = requested.name();
    IvmCatalog.ensureExists(duckDb);
    CatalogSnapshot catalog = IvmCatalog.load(duckDb);
    ViewCompiler compiler =
        GroupingSets.planAsOneAggregate(
            duckDb, name, requested.query(), requested.planned(), catalog.trackedTables());
    // grouping sets that do not plan so become a union of aggregates, kept as hidden views below
    String expanded =
        compiler == null ? GroupingSets.expand(requested.query(), duckDb) : requested.query();
    Definition definition =
        expanded.equals(requested.query())
            ? requested
            : new Definition(requested.schema(), name, expanded, expanded, requested.owner());
    SQLException refusal = null;
    try {
      compiler =
          compiler != null
              ? compiler
              : ViewCompiler.plan(duckDb, name, definition.planned(), catalog.trackedTables());
    } catch (UnsupportedViewException e) {
      if (!ViewAnalyzer.needsIntermediateStates(e)) {
        throw e;
      }
      refusal = e;
    } catch (SQLException e) {
      if (!ViewSqlPlanner.CALCITE_FAILED.equals(e.getSQLState())) {
        throw e;
      }
      // Calcite fails on some whole queries whose pieces it plans (an IN list in an aggregate
      // that a window function orders by): the split below may plan
      refusal = e;
    }
    int id = IvmCatalog.newViewId(duckDb);
    boolean splits = false;
    if (compiler == null) {
      IntermediateStates.Split split =
          IntermediateStates.split(
              definition.query(),
              id,
              name,
              DuckDbFunctions.read(duckDb),
              IntermediateStates.ColumnNames.describedOn(duckDb));
      if (split.nodes().isEmpty()) {
        throw refusal;
      }
      for (IntermediateStates.Node node : split.nodes()) {
        createHidden(database, duckDb, name, node, id, settings, replanned);
      }
      splits = true;
      catalog = IvmCatalog.load(duckDb);
      compiler =
          ViewCompiler.plan(
              duckDb, name, split.query(), definition.planned(), catalog.trackedTables());
    }
    compiler.refuseMixedCollations();
    ViewAnalyzer.Analysis analysis = compiler.analysis();
    DuckDbCatalog duckDbCatalog = DuckDbCatalog.read(duckDb);
    List<TrackedTable> tracked = new ArrayList<>(catalog.trackedTables());
    List<Integer> tableIds = new ArrayList<>();
    List<Long> watermarks = new ArrayList<>();
    List<Set<String>> columnsRead = new ArrayList<>();
    List<ViewEntry> viewsRead = new ArrayList<>();
    ImmutableMap.Builder<Integer, ImmutableSet<String>> read = ImmutableMap.builder();
    for (List<String> qualifiedName : analysis.baseTables()) {
      String schema = qualifiedName.get(qualifiedName.size() - 2);
      String table = qualifiedName.get(qualifiedName.size() - 1);
      Relation relation =
          duckDbCatalog
              .find(schema, table)
              .orElseThrow(() -> new IllegalStateException("planned table vanished: " + table));
      boolean readsView = !relation.isTable();
      SchemaGuard.checkReadable(catalog, name, id, relation);
      Set<String> columns = analysis.usedColumns().get(qualifiedName);
      TrackedTable trackedTable = catalog.trackedTable(schema, table).orElse(null);
      if (trackedTable == null && readsView) {
        // every column: the view's refresh writes whole rows into its change log
        trackedTable = TrackedTables.track(duckDb, relation, relation.columnNames());
        tracked.add(trackedTable);
        // its refresh program must now write its change
        viewsRead.add(catalog.viewByUserView(relation).orElseThrow());
      } else if (trackedTable == null) {
        trackedTable = TrackedTables.track(duckDb, relation, columns);
        tracked.add(trackedTable);
      } else if (!trackedTable.capturedColumns().containsAll(columns)) {
        tracked.remove(trackedTable);
        trackedTable = TrackedTables.captureColumns(duckDb, trackedTable, columns);
        tracked.add(trackedTable);
      }
      compiler.tracked(trackedTable);
      tableIds.add(trackedTable.id());
      columnsRead.add(columns);
      read.put(trackedTable.id(), ImmutableSet.copyOf(columns));
      // changes committed before this transaction are in the view's first state: consume them
      watermarks.add(ChangeLogs.seal(duckDb, trackedTable));
    }
    // their refreshes write their change logs from now on
    for (ViewEntry below : viewsRead) {
      replanned.put(below.id(), ViewPrograms.replan(database, duckDb, below, tracked, settings));
    }
    IvmCatalog.addView(
        duckDb,
        id,
        definition.schema(),
        name,
        definition.query(),
        definition.owner(),
        analysis.strategy(),
        compiler.hiddenColumns(),
        tableIds,
        watermarks,
        columnsRead,
        compiler.uniqueColumns());
    SystemView.replace(duckDb);
    ViewEntry view =
        new ViewEntry(
            id,
            name,
            definition.schema(),
            definition.query(),
            analysis.strategy(),
            ImmutableList.copyOf(tableIds),
            read.build(),
            definition.owner(),
            null,
            splits,
            RefreshTiming.DEFERRED);
    for (TrackedTable input : tracked) {
      if (tableIds.contains(input.id())) {
        // the view's own, and those of the table's other readers, which may share it from now on
        ChangeLogs.createPendingViews(duckDb, input);
      }
    }
    long populating = System.nanoTime();
    try (Statement s = duckDb.createStatement()) {
      for (String sql : compiler.creationSql(view)) {
        s.execute(sql);
      }
    }
    double populationMillis = (System.nanoTime() - populating) / 1e6;
    return new Created(
        view,
        ViewPrograms.create(database, duckDb, view, compiler, tracked, settings, populationMillis));
  }

  /**
   * Creates the hidden view {@code node} of the view {@code owner}, called {@code ownerName}; a
   * failure names the subquery.
   */
  private static void createHidden(
      IvmDatabase database,
      Connection duckDb,
      String ownerName,
      IntermediateStates.Node node,
      int owner,
      IvmSettings settings,
      Map<Integer, RefreshProgram> replanned)
      throws SQLException {
    String query = node.query();
    try {
      // a subquery's ORDER BY ... LIMIT, as the outermost query's is at CREATE
      query = TopRows.rewrite(node.query(), node.name());
      createInTransaction(
          database,
          duckDb,
          new Definition(IvmNames.SCHEMA, node.name(), query, query, owner),
          settings,
          replanned);
    } catch (SQLException failure) {
      SQLException e =
          query.equals(node.query())
              ? failure
              : TopRows.explain(failure, node.name(), node.query());
      throw new SQLException(
          "materialized view \""
              + ownerName
              + "\": its subquery ("
              + node.query().replaceAll("\\s+", " ")
              + ") cannot be kept as a hidden view "
              + IvmNames.qualified(IvmNames.SCHEMA, node.name())
              + ": "
              + e.getMessage(),
          e.getSQLState(),
          e);
    }
  }

  /**
   * {@code DROP MATERIALIZED VIEW}: removes the view, the hidden views it owns, and every artefact
   * no other view needs.
   */
  public static void drop(IvmConnection connection, DropMaterializedView statement)
      throws SQLException {
    ViewNames.refuseHidden(connection, statement.name());
    ObjectName name = ViewNames.viewName(connection.duckDb(), statement.name(), false);
    requireNoTransaction(connection, "DROP MATERIALIZED VIEW");
    Connection duckDb = connection.duckDb();
    IvmDatabase database = connection.database();
    database.changeCatalog(
        () -> {
          CatalogSnapshot catalog = IvmCatalog.load(duckDb);
          Optional<ViewEntry> found = catalog.view(name.schema(), name.name());
          if (found.isEmpty()) {
            if (statement.ifExists()) {
              return null;
            }
            throw ViewNames.notAView(duckDb, name);
          }
          ViewEntry view = found.get();
          List<ViewEntry> readers = ViewRefreshes.readersOf(catalog, view);
          if (!readers.isEmpty()) {
            throw new SQLException(
                "cannot drop materialized view \""
                    + view.displayName()
                    + "\": "
                    + ViewEntry.dependents(readers, "reads it", "read it")
                    + " (drop "
                    + (readers.size() == 1 ? "that view" : "those views")
                    + " first)",
                "2BP01");
          }
          Map<Integer, RefreshProgram> replanned = new HashMap<>();
          List<Integer> dropped =
              connection.atomically(
                  () ->
                      dropInTransaction(database, duckDb, view, connection.settings(), replanned));
          dropped.forEach(database::evictProgram);
          replanned.forEach(database::cacheProgram);
          return null;
        });
  }

  /**
   * Drops {@code view}, which no view reads, then the hidden views it owns (each read by nothing
   * once its owner is gone), in the transaction of {@code duckDb}; returns the ids of the views
   * dropped. A view that {@code view} read alone is planned again, to write no change log (but for
   * the hidden views dropped next).
   */
  private static List<Integer> dropInTransaction(
      IvmDatabase database,
      Connection duckDb,
      ViewEntry view,
      IvmSettings settings,
      Map<Integer, RefreshProgram> replanned)
      throws SQLException {
    CatalogSnapshot catalog = IvmCatalog.load(duckDb);
    try (Statement s = duckDb.createStatement()) {
      s.execute("DROP VIEW " + view.userView());
      s.execute("DROP TABLE " + view.dataTable());
    }
    IvmCatalog.removeView(duckDb, view.id());
    for (int tableId : view.inputTableIds()) {
      TrackedTable table = catalog.trackedTable(tableId);
      ChangeLogs.dropPendingView(duckDb, view.id(), table);
      if (catalog.viewsReading(tableId).size() == 1) {
        TrackedTables.untrack(duckDb, table);
        // a materialized view no other view reads writes no change log any more
        Optional<ViewEntry> read = catalog.viewByUserView(table.relation());
        if (read.isPresent() && !Objects.equals(read.get().ownerViewId(), view.id())) {
          List<TrackedTable> tracked = new ArrayList<>(catalog.trackedTables());
          tracked.removeIf(t -> t.id() == tableId);
          replanned.put(
              read.get().id(),
              ViewPrograms.replan(database, duckDb, read.get(), tracked, settings));
        }
      } else {
        ChangeLogs.collectGarbage(duckDb, table);
        // a reader left alone reads every captured row from now on
        ChangeLogs.createPendingViews(duckDb, table);
      }
    }
    SystemView.replace(duckDb);
    List<Integer> dropped = new ArrayList<>(List.of(view.id()));
    for (ViewEntry hidden : catalog.hiddenViewsOf(view.id())) {
      dropped.addAll(dropInTransaction(database, duckDb, hidden, settings, replanned));
    }
    return dropped;
  }

  static void requireNoTransaction(IvmConnection connection, String statement) throws SQLException {
    if (connection.inTransaction()) {
      throw new SQLException(
          statement + " cannot run inside a transaction: commit or roll back first", "25001");
    }
  }
}
