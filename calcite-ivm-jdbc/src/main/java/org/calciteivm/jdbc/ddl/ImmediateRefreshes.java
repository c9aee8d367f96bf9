package org.calciteivm.jdbc.ddl;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.calciteivm.jdbc.Conflicts;
import org.calciteivm.jdbc.IvmConnection;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;

/**
 * Immediate materialized views ({@code WITH (refresh = 'immediate')}): every captured write to a
 * table such a view reads, directly or through the views below it, refreshes the view in the
 * writer's transaction, right after the write and before the statement returns. A rollback undoes
 * both, and the writer's next query sees the view changed.
 */
public final class ImmediateRefreshes {
  private ImmediateRefreshes() {}

  /**
   * The user's immediate views that a write to tracked table {@code tableId} changes: those that
   * read it, or read a view (a hidden view or a materialized view) that reads it, at any depth.
   */
  public static List<ViewEntry> affectedBy(CatalogSnapshot catalog, int tableId) {
    Map<Integer, ViewEntry> readers = new LinkedHashMap<>();
    addReaders(catalog, tableId, readers);
    List<ViewEntry> immediate = new ArrayList<>();
    for (ViewEntry view : readers.values()) {
      if (!view.isHidden() && view.timing().isImmediate()) {
        immediate.add(view);
      }
    }
    return immediate;
  }

  private static void addReaders(
      CatalogSnapshot catalog, int tableId, Map<Integer, ViewEntry> readers) {
    for (ViewEntry view : catalog.viewsReading(tableId)) {
      if (readers.putIfAbsent(view.id(), view) == null) {
        // the views reading this one change with it
        Optional<TrackedTable> log = catalog.trackedTable(view.userViewSchema(), view.name());
        if (log.isPresent()) {
          addReaders(catalog, log.get().id(), readers);
        }
      }
    }
  }

  /**
   * Refreshes {@code views} in the open transaction, after a write to {@code table} that changed
   * them. A failure names the view; the caller rolls the write back with it.
   */
  public static void refresh(IvmConnection connection, List<ViewEntry> views, String table)
      throws SQLException {
    for (ViewEntry view : views) {
      try {
        ViewRefreshes.refresh(connection, view, false);
      } catch (SQLException e) {
        if (Conflicts.isConflict(e)) {
          throw e; // run again in auto-commit, reported as a conflict in a transaction
        }
        throw new SQLException(
            "the write to "
                + table
                + " was not applied: it changes immediate materialized view \""
                + view.name()
                + "\", whose refresh failed: "
                + e.getMessage(),
            e.getSQLState(),
            e);
      }
    }
  }
}
