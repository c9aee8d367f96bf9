package org.calciteivm.jdbc.ddl;

import java.sql.SQLException;
import java.util.Optional;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.sql.ObjectName;
import org.calciteivm.jdbc.sql.ParsedStatement.SchemaChange;

/**
 * Refuses schema changes that would break a materialized view: dropping, replacing or altering a
 * base table of a view, dropping or altering the relation users query a view by, and touching
 * calcite-ivm's own schema.
 */
public final class SchemaGuard {
  private SchemaGuard() {}

  /** Fails if {@code change} would break a view; returns normally otherwise. */
  public static void check(CatalogSnapshot catalog, SchemaChange change) throws SQLException {
    for (ObjectName target : change.targets()) {
      if (change.what().equals("drop schema")) {
        checkSchema(catalog, target.name());
        continue;
      }
      if (target.schema().equalsIgnoreCase(IvmNames.SCHEMA)) {
        throw new SQLException(
            "cannot " + change.what() + " " + target + ": it belongs to calcite-ivm", "42501");
      }
      Optional<ViewEntry> view = catalog.view(target.name());
      if (view.isPresent() && target.schema().equalsIgnoreCase("main")) {
        throw new SQLException(
            "cannot "
                + change.what()
                + " "
                + target
                + ": it is a materialized view; use DROP MATERIALIZED VIEW",
            "42809");
      }
      Optional<TrackedTable> table = catalog.trackedTable(target.schema(), target.name());
      if (table.isPresent()) {
        throw new SQLException(
            "cannot "
                + change.what()
                + " "
                + target
                + ": materialized view "
                + viewNames(catalog, table.get())
                + " depends on it; drop the materialized view first",
            "2BP01");
      }
    }
  }

  private static void checkSchema(CatalogSnapshot catalog, String schema) throws SQLException {
    if (schema.equalsIgnoreCase(IvmNames.SCHEMA)) {
      throw new SQLException(
          "cannot drop schema " + schema + ": it belongs to calcite-ivm", "42501");
    }
    for (TrackedTable table : catalog.trackedTables()) {
      if (table.relation().schema().equalsIgnoreCase(schema)) {
        throw new SQLException(
            "cannot drop schema "
                + schema
                + ": materialized view "
                + viewNames(catalog, table)
                + " depends on its table "
                + table.relation().name(),
            "2BP01");
      }
    }
  }

  private static String viewNames(CatalogSnapshot catalog, TrackedTable table) {
    return catalog.viewsReading(table.id()).stream()
        .map(v -> '"' + v.name() + '"')
        .collect(Collectors.joining(", "));
  }
}
