package org.calciteivm.jdbc.ddl;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.jdbc.IvmConnection;
import org.calciteivm.jdbc.IvmDatabase;
import org.calciteivm.jdbc.IvmSettings;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.ChangeLogs;
import org.calciteivm.jdbc.catalog.Column;
import org.calciteivm.jdbc.catalog.DuckDbCatalog;
import org.calciteivm.jdbc.catalog.IvmCatalog;
import org.calciteivm.jdbc.catalog.Relation;
import org.calciteivm.jdbc.catalog.SystemView;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.refresh.RefreshExecutor;
import org.calciteivm.jdbc.refresh.RefreshProgram;
import org.calciteivm.jdbc.refresh.ViewCompiler;
import org.calciteivm.jdbc.refresh.ViewPrograms;
import org.calciteivm.jdbc.sql.ObjectName;
import org.calciteivm.jdbc.sql.ParsedStatement.CreateMaterializedView;
import org.calciteivm.jdbc.sql.ParsedStatement.DropMaterializedView;
import org.calciteivm.rules.analysis.ViewAnalyzer;

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
    String name = viewName(statement.name());
    requireNoTransaction(connection, "CREATE MATERIALIZED VIEW");
    IvmDatabase database = connection.database();
    Connection duckDb = connection.duckDb();
    RefreshProgram program =
        database.changeCatalog(
            () -> {
              CatalogSnapshot catalog = IvmCatalog.load(duckDb);
              if (catalog.view(name).isPresent()) {
                if (statement.ifNotExists()) {
                  return null;
                }
                throw new SQLException(
                    "materialized view \"" + name + "\" already exists", "42P07");
              }
              Optional<Relation> existing = DuckDbCatalog.read(duckDb).find("main", name);
              if (existing.isPresent()) {
                throw new SQLException(
                    (existing.get().isTable() ? "table" : "view")
                        + " \""
                        + existing.get().name()
                        + "\" already exists",
                    "42P07");
              }
              return connection.atomically(
                  () ->
                      createInTransaction(
                          database, duckDb, catalog, name, statement, connection.settings()));
            });
    if (program != null) {
      database.cacheProgram(database.catalog().view(name).orElseThrow().id(), program);
    }
  }

  private static RefreshProgram createInTransaction(
      IvmDatabase database,
      Connection duckDb,
      CatalogSnapshot catalog,
      String name,
      CreateMaterializedView statement,
      IvmSettings settings)
      throws SQLException {
    String query = statement.query();
    // planned in place, so that positions in messages are the statement's
    ViewCompiler compiler =
        ViewCompiler.plan(duckDb, name, statement.queryInPlace(), catalog.trackedTables());
    ViewAnalyzer.Analysis analysis = compiler.analysis();
    IvmCatalog.ensureExists(duckDb);
    DuckDbCatalog duckDbCatalog = DuckDbCatalog.read(duckDb);
    List<TrackedTable> tracked = new ArrayList<>(catalog.trackedTables());
    List<Integer> tableIds = new ArrayList<>();
    List<Long> watermarks = new ArrayList<>();
    List<Set<String>> columnsRead = new ArrayList<>();
    ImmutableMap.Builder<Integer, ImmutableSet<String>> read = ImmutableMap.builder();
    for (List<String> qualifiedName : analysis.baseTables()) {
      String schema = qualifiedName.get(qualifiedName.size() - 2);
      String table = qualifiedName.get(qualifiedName.size() - 1);
      Relation relation =
          duckDbCatalog
              .find(schema, table)
              .orElseThrow(() -> new IllegalStateException("planned table vanished: " + table));
      if (!relation.isTable()) {
        String what = catalog.view(table).isPresent() ? "materialized view " : "view ";
        throw UnsupportedViewException.notYet(
            name, "reading the " + what + "\"" + relation.name() + "\" (read its tables instead)");
      }
      for (Column column : relation.columns()) {
        if (IvmNames.isReservedColumn(column.name())) {
          throw new SQLException(
              "cannot create materialized view \""
                  + name
                  + "\": column \""
                  + column.name()
                  + "\" of table "
                  + relation.displayName()
                  + " has a name calcite-ivm reserves for its change logs; rename the column",
              "42939");
        }
      }
      Set<String> columns = analysis.usedColumns().get(qualifiedName);
      TrackedTable trackedTable = catalog.trackedTable(schema, table).orElse(null);
      if (trackedTable == null) {
        trackedTable = IvmCatalog.track(duckDb, relation, columns);
        tracked.add(trackedTable);
      } else if (!trackedTable.capturedColumns().containsAll(columns)) {
        tracked.remove(trackedTable);
        trackedTable = IvmCatalog.captureColumns(duckDb, trackedTable, columns);
        tracked.add(trackedTable);
      }
      compiler.tracked(trackedTable);
      tableIds.add(trackedTable.id());
      columnsRead.add(columns);
      read.put(trackedTable.id(), ImmutableSet.copyOf(columns));
      // changes committed before this transaction are in the view's first state: consume them
      watermarks.add(ChangeLogs.seal(duckDb, trackedTable));
    }
    int id =
        IvmCatalog.addView(
            duckDb,
            name,
            query,
            analysis.strategy(),
            compiler.hiddenColumns(),
            tableIds,
            watermarks,
            columnsRead);
    SystemView.replace(duckDb);
    ViewEntry view =
        new ViewEntry(
            id, name, query, analysis.strategy(), ImmutableList.copyOf(tableIds), read.build());
    for (TrackedTable input : tracked) {
      if (tableIds.contains(input.id())) {
        ChangeLogs.createPendingViews(duckDb, input, List.of(id));
      }
    }
    long populating = System.nanoTime();
    try (Statement s = duckDb.createStatement()) {
      for (String sql : compiler.creationSql(view)) {
        s.execute(sql);
      }
    }
    double populationMillis = (System.nanoTime() - populating) / 1e6;
    RefreshProgram program =
        ViewPrograms.create(database, duckDb, view, compiler, tracked, settings, populationMillis);
    return program;
  }

  /** {@code DROP MATERIALIZED VIEW}: removes the view and every artefact no other view needs. */
  public static void drop(IvmConnection connection, DropMaterializedView statement)
      throws SQLException {
    String name = viewName(statement.name());
    requireNoTransaction(connection, "DROP MATERIALIZED VIEW");
    Connection duckDb = connection.duckDb();
    IvmDatabase database = connection.database();
    database.changeCatalog(
        () -> {
          CatalogSnapshot catalog = IvmCatalog.load(duckDb);
          Optional<ViewEntry> found = catalog.view(name);
          if (found.isEmpty()) {
            if (statement.ifExists()) {
              return null;
            }
            throw notAView(duckDb, name);
          }
          ViewEntry view = found.get();
          connection.atomically(
              () -> {
                try (Statement s = duckDb.createStatement()) {
                  s.execute("DROP VIEW " + view.userView());
                  s.execute("DROP TABLE " + view.dataTable());
                }
                IvmCatalog.removeView(duckDb, view.id());
                for (int tableId : view.inputTableIds()) {
                  TrackedTable table = catalog.trackedTable(tableId);
                  ChangeLogs.dropPendingView(duckDb, view.id(), table);
                  if (catalog.viewsReading(tableId).size() == 1) {
                    IvmCatalog.untrack(duckDb, table);
                  } else {
                    ChangeLogs.collectGarbage(duckDb, table);
                  }
                }
                SystemView.replace(duckDb);
                return null;
              });
          database.evictProgram(view.id());
          return null;
        });
  }

  /**
   * {@code REFRESH MATERIALIZED VIEW}: applies the pending changes incrementally.
   *
   * @param timed whether the outcome lists the statements run with their times
   */
  public static RefreshExecutor.Outcome refresh(
      IvmConnection connection, ObjectName name, boolean timed) throws SQLException {
    ViewEntry view = view(connection, name);
    boolean loads = connection.database().cachedProgram(view.id()) == null;
    long loading = System.nanoTime();
    RefreshProgram program = program(connection, view);
    long loaded = System.nanoTime();
    RefreshExecutor.Outcome outcome = RefreshExecutor.refresh(connection, view, program, timed);
    if (!loads || !timed) {
      return outcome;
    }
    List<RefreshExecutor.Step> steps = new ArrayList<>();
    steps.add(
        new RefreshExecutor.Step(
            "read the view's refresh program from the catalog (first use in this process)",
            "",
            loaded - loading));
    steps.addAll(outcome.steps());
    return new RefreshExecutor.Outcome(
        outcome.changeRows(), outcome.choice(), outcome.mergeMillis(), ImmutableList.copyOf(steps));
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

  static ViewEntry view(IvmConnection connection, ObjectName name) throws SQLException {
    String viewName = viewName(name);
    Optional<ViewEntry> view = connection.database().catalog().view(viewName);
    if (view.isEmpty()) {
      throw notAView(connection.duckDb(), viewName);
    }
    return view.get();
  }

  private static SQLException notAView(Connection duckDb, String name) throws SQLException {
    Optional<Relation> relation = DuckDbCatalog.read(duckDb).find("main", name);
    String what =
        relation
            .map(r -> r.isTable() ? "it is a table" : "it is a view")
            .orElse("nothing has that name");
    return new SQLException("\"" + name + "\" is not a materialized view (" + what + ")", "42809");
  }

  static String viewName(ObjectName name) throws SQLException {
    if (name.parts().size() > 2
        || (name.isQualified() && !name.schema().equalsIgnoreCase("main"))) {
      throw new SQLSyntaxErrorException(
          "materialized views live in the main schema; cannot use " + name, "0A000");
    }
    return name.name();
  }

  static void requireNoTransaction(IvmConnection connection, String statement) throws SQLException {
    if (connection.inTransaction()) {
      throw new SQLException(
          statement + " cannot run inside a transaction: commit or roll back first", "25001");
    }
  }
}
