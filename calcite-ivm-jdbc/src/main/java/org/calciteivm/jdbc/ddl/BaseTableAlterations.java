package org.calciteivm.jdbc.ddl;

import com.google.common.collect.ImmutableList;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.IvmConnection;
import org.calciteivm.jdbc.IvmDatabase;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.ChangeLogs;
import org.calciteivm.jdbc.catalog.IvmCatalog;
import org.calciteivm.jdbc.catalog.StoredPrograms;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.refresh.ViewCompiler;
import org.calciteivm.jdbc.refresh.ViewPrograms;
import org.calciteivm.jdbc.sql.ObjectName;
import org.calciteivm.jdbc.sql.ParsedStatement.AlterTable;
import org.calciteivm.jdbc.sql.ParsedStatement.SchemaChange;
import org.calciteivm.jdbc.sql.ParsedStatement.SchemaChangeKind;
import org.calciteivm.jdbc.sql.ParsedStatement.TableAlteration;

/**
 * {@code ALTER TABLE} of a base table that materialized views read. What the views read must stay
 * as it is; everything else may change:
 *
 * <ul>
 *   <li>adding a column, changing a column's default or nullability, adding a constraint: allowed,
 *       unless a view would read the new column (one that selects {@code *} or joins {@code
 *       NATURAL}ly: its columns were fixed when it was created);
 *   <li>dropping, renaming or retyping a column: refused, naming the views, if a view reads the
 *       column; otherwise allowed, and a column captured for views dropped since stops being
 *       captured;
 *   <li>renaming the table, and anything else: refused, naming the views.
 * </ul>
 *
 * <p>The statement, the change of the delta table and the check that every view still plans to the
 * same columns run in one transaction: a refused change leaves the database as it was.
 */
public final class BaseTableAlterations {
  private BaseTableAlterations() {}

  /**
   * Runs {@code sql}, the statement {@code written}, if its target is a tracked table and the
   * change keeps every view right; returns false, without running it, if the target is not tracked.
   */
  public static boolean alter(IvmConnection connection, AlterTable written, String sql)
      throws SQLException {
    CatalogSnapshot catalog = connection.database().catalog();
    ObjectName target =
        written.target().inDatabase(connection.database().name(), catalog::hasSchema);
    if (target == null) {
      return false; // a table of another attached database
    }
    AlterTable alter = new AlterTable(target, written.alteration(), written.column());
    SchemaGuard.refuseOwnedObject(catalog, SchemaChangeKind.ALTER_TABLE, alter.target());
    Optional<TrackedTable> found =
        catalog.trackedTable(alter.target().schema(), alter.target().name());
    if (found.isEmpty()) {
      return false;
    }
    if (alter.alteration() == TableAlteration.RENAME_TABLE
        || alter.alteration() == TableAlteration.OTHER) {
      SchemaChangeKind kind =
          alter.alteration() == TableAlteration.RENAME_TABLE
              ? SchemaChangeKind.RENAME_TABLE
              : SchemaChangeKind.ALTER_TABLE;
      SchemaGuard.check(
          catalog,
          connection.database().name(),
          new SchemaChange(kind, ImmutableList.of(alter.target())));
    }
    MaterializedViews.requireNoTransaction(connection, "ALTER TABLE of a table views read");
    IvmDatabase database = connection.database();
    Connection duckDb = connection.duckDb();
    Map<ViewEntry, ViewCompiler> replanned =
        database.changeCatalog(
            () ->
                connection.atomically(
                    () -> alterInTransaction(duckDb, IvmCatalog.load(duckDb), alter, sql)));
    // the views' programs were compiled against the table's old columns: the plans that checked
    // the change compile the new ones
    List<TrackedTable> tracked = database.catalog().trackedTables();
    for (Map.Entry<ViewEntry, ViewCompiler> view : replanned.entrySet()) {
      database.evictProgram(view.getKey().id());
      database.cacheProgram(
          view.getKey().id(),
          ViewPrograms.planned(database, duckDb, view.getKey(), view.getValue(), tracked));
    }
    return true;
  }

  /**
   * Runs the ALTER TABLE and its checks; returns, per view reading the table, its plan on the
   * altered table.
   */
  private static Map<ViewEntry, ViewCompiler> alterInTransaction(
      Connection duckDb, CatalogSnapshot catalog, AlterTable alter, String sql)
      throws SQLException {
    TrackedTable table =
        catalog
            .trackedTable(alter.target().schema(), alter.target().name())
            .orElseThrow(() -> new SQLException("table " + alter.target() + " is not tracked"));
    Map<ViewEntry, Set<String>> before = new LinkedHashMap<>();
    for (ViewEntry view : catalog.viewsReading(table.id())) {
      before.put(
          view,
          view.columnsRead() != null
              ? view.columnsRead().get(table.id())
              : columnsRead(plan(duckDb, catalog, view), table));
    }
    String column = alter.column();
    boolean changesColumn =
        alter.alteration() == TableAlteration.DROP_COLUMN
            || alter.alteration() == TableAlteration.RENAME_COLUMN
            || alter.alteration() == TableAlteration.CHANGE_COLUMN_TYPE;
    if (changesColumn) {
      List<ViewEntry> readers =
          before.entrySet().stream()
              .filter(e -> containsIgnoreCase(e.getValue(), column))
              .map(Map.Entry::getKey)
              .collect(Collectors.toList());
      if (!readers.isEmpty()) {
        throw refusal(alter, ViewEntry.dependents(readers, "reads", "read") + " it");
      }
    }
    try (Statement s = duckDb.createStatement()) {
      s.execute(sql);
      Optional<String> captured =
          table.capturedColumns().stream().filter(c -> c.equalsIgnoreCase(column)).findFirst();
      if (changesColumn && captured.isPresent()) {
        // captured for a view dropped since: no view reads it any more
        s.execute(
            "ALTER TABLE " + table.deltaTable() + " DROP COLUMN " + IvmNames.quote(captured.get()));
      }
    }
    CatalogSnapshot altered = IvmCatalog.load(duckDb);
    TrackedTable alteredTable = altered.trackedTable(table.id());
    Map<ViewEntry, ViewCompiler> after = new LinkedHashMap<>();
    try {
      for (ViewEntry view : altered.viewsReading(alteredTable.id())) {
        after.put(view, plan(duckDb, altered, view));
      }
    } catch (SQLException e) {
      throw new SQLException(
          "cannot "
              + describe(alter)
              + ": a materialized view reading "
              + alter.target()
              + " would no longer plan: "
              + e.getMessage(),
          "2BP01",
          e);
    }
    for (Map.Entry<ViewEntry, ViewCompiler> view : after.entrySet()) {
      if (!columnsRead(view.getValue(), alteredTable).equals(before.get(view.getKey()))) {
        throw refusal(
            alter,
            ViewEntry.dependents(List.of(view.getKey()), "would", "would")
                + " read different columns of "
                + alter.target()
                + " (it selects * or joins NATURAL or USING, and its columns were fixed when it"
                + " was created)");
      }
    }
    // the pending views name the table's columns and the delta table's
    ChangeLogs.createPendingViews(duckDb, alteredTable);
    // their programs were compiled against the table's old columns
    StoredPrograms.forget(
        duckDb, altered.viewsReading(table.id()).stream().map(ViewEntry::id).toList());
    return after;
  }

  private static ViewCompiler plan(Connection duckDb, CatalogSnapshot catalog, ViewEntry view)
      throws SQLException {
    return ViewCompiler.plan(duckDb, view, catalog.trackedTables());
  }

  /** The names of the columns of {@code table} the view {@code compiler} planned reads. */
  private static Set<String> columnsRead(ViewCompiler compiler, TrackedTable table) {
    for (Map.Entry<List<String>, ? extends Set<String>> entry :
        compiler.analysis().usedColumns().entrySet()) {
      List<String> name = entry.getKey();
      if (name.get(name.size() - 1).equalsIgnoreCase(table.relation().name())
          && name.get(name.size() - 2).equalsIgnoreCase(table.relation().schema())) {
        return Set.copyOf(entry.getValue());
      }
    }
    return Set.of();
  }

  private static boolean containsIgnoreCase(Set<String> names, String name) {
    return names.stream().anyMatch(n -> n.equalsIgnoreCase(name));
  }

  private static SQLException refusal(AlterTable alter, String reason) {
    return new SQLException(
        "cannot " + describe(alter) + ": " + reason + "; drop the materialized view first",
        "2BP01");
  }

  private static String describe(AlterTable alter) {
    String table = alter.target().toString();
    switch (alter.alteration()) {
      case ADD_COLUMN:
        return "add column \"" + alter.column() + "\" to table " + table;
      case DROP_COLUMN:
        return "drop column \"" + alter.column() + "\" of table " + table;
      case RENAME_COLUMN:
        return "rename column \"" + alter.column() + "\" of table " + table;
      case CHANGE_COLUMN_TYPE:
        return "change the type of column \"" + alter.column() + "\" of table " + table;
      default:
        return "alter table " + table;
    }
  }
}
