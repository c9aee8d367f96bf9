package org.calciteivm.jdbc.ddl;

import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.calciteivm.jdbc.Conflicts;
import org.calciteivm.jdbc.IvmConnection;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.ViewEntry;

/**
 * Immediate materialized views ({@code WITH (refresh = 'immediate')}): every captured write to a
 * table such a view reads, directly or through the views below it, refreshes the view in the
 * writer's transaction, right after the write and before the statement returns. A rollback undoes
 * both, and the writer's next query sees the view changed. Which views a write changes the catalog
 * says ({@link org.calciteivm.jdbc.catalog.CatalogSnapshot#immediateViewsChangedBy}).
 */
public final class ImmediateRefreshes {
  private ImmediateRefreshes() {}

  /**
   * The views a write that changes the immediate views {@code views} refreshes: each of them after
   * the views below it, each once.
   */
  public static List<ViewEntry> maintained(CatalogSnapshot catalog, List<ViewEntry> views) {
    Map<Integer, ViewEntry> maintained = new LinkedHashMap<>();
    for (ViewEntry view : views) {
      ViewRefreshes.viewsBelow(catalog, view).forEach(below -> maintained.put(below.id(), below));
      maintained.put(view.id(), view);
    }
    return List.copyOf(maintained.values());
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
