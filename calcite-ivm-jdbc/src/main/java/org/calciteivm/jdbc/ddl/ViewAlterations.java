package org.calciteivm.jdbc.ddl;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import org.calciteivm.jdbc.IvmConnection;
import org.calciteivm.jdbc.IvmDatabase;
import org.calciteivm.jdbc.catalog.IvmCatalog;
import org.calciteivm.jdbc.catalog.RefreshTiming;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.catalog.ViewSchedules;
import org.calciteivm.jdbc.sql.ObjectName;
import org.calciteivm.jdbc.sql.ParsedStatement.AlterMaterializedView;

/** {@code ALTER MATERIALIZED VIEW}: changes a view's options (when it is refreshed). */
public final class ViewAlterations {
  private ViewAlterations() {}

  /**
   * {@code ALTER MATERIALIZED VIEW v SET (refresh = '...')} (or {@code RESET (refresh)}: deferred).
   * A view made immediate is brought up to date in the same transaction, so that it is up to date
   * from then on.
   */
  public static void alter(IvmConnection connection, AlterMaterializedView statement)
      throws SQLException {
    ViewNames.refuseHidden(connection, statement.name());
    ObjectName name = ViewNames.viewName(connection.duckDb(), statement.name(), false);
    MaterializedViews.requireNoTransaction(connection, "ALTER MATERIALIZED VIEW");
    RefreshTiming timing =
        RefreshTiming.option(connection.duckDb(), statement.options().get("refresh"));
    IvmDatabase database = connection.database();
    Connection duckDb = connection.duckDb();
    // the same order of locks as CREATE: refreshes, then the catalog
    database.refreshing(
        () ->
            database.changeCatalog(
                () -> {
                  Optional<ViewEntry> view =
                      IvmCatalog.load(duckDb).view(name.schema(), name.name());
                  if (view.isEmpty()) {
                    throw ViewNames.notAView(duckDb, name);
                  }
                  return connection.atomically(
                      () -> {
                        if (timing.isImmediate()) {
                          ViewRefreshes.refresh(connection, view.get(), false);
                        }
                        ViewSchedules.setTiming(duckDb, view.get().id(), timing);
                        return null;
                      });
                }));
  }
}
