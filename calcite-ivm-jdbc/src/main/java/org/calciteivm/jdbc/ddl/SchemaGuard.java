package org.calciteivm.jdbc.ddl;

import java.sql.SQLException;
import java.util.Optional;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.Column;
import org.calciteivm.jdbc.catalog.Relation;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.sql.ObjectName;
import org.calciteivm.jdbc.sql.ParsedStatement.SchemaChange;
import org.calciteivm.jdbc.sql.ParsedStatement.SchemaChangeKind;

/**
 * Refuses schema changes that would break a materialized view: dropping, replacing or altering a
 * base table of a view, dropping or altering the relation users query a view by, and touching
 * calcite-ivm's own schema; and relations a new view may not read.
 */
public final class SchemaGuard {
  private SchemaGuard() {}

  /**
   * Fails if {@code change} would break a view of the database DuckDB calls {@code database};
   * returns normally otherwise.
   */
  public static void check(CatalogSnapshot catalog, String database, SchemaChange change)
      throws SQLException {
    for (ObjectName written : change.targets()) {
      if (change.kind() == SchemaChangeKind.DROP_SCHEMA) {
        checkSchema(catalog, written.name());
        continue;
      }
      ObjectName target = written.inDatabase(database, catalog::hasSchema);
      if (target == null) {
        continue; // in another attached database
      }
      refuseOwnedObject(catalog, change.kind(), target);
      Optional<TrackedTable> table = catalog.trackedTable(target.schema(), target.name());
      if (table.isPresent()) {
        throw new SQLException(
            "cannot "
                + change.kind().words()
                + " "
                + target
                + ": "
                + (change.kind().createsTemporary()
                    ? "it would hide table "
                        + table.get().relation().displayName()
                        + ", which "
                        + ViewEntry.dependents(
                            catalog.viewsReading(table.get().id()), "reads", "read")
                    : ViewEntry.dependents(
                            catalog.viewsReading(table.get().id()), "depends", "depend")
                        + " on it; drop the materialized view first"),
            "2BP01");
      }
    }
  }

  /**
   * Fails if {@code target} belongs to calcite-ivm: a table in its schema, the system view {@code
   * ivm_views}, or the relation users query a materialized view by.
   *
   * @param kind the statement
   */
  public static void refuseOwnedObject(
      CatalogSnapshot catalog, SchemaChangeKind kind, ObjectName target) throws SQLException {
    // a user's own table may carry the system view's name (then ivm_views cannot be created)
    if (target.schema().equalsIgnoreCase(IvmNames.SCHEMA)
        || (kind.mayConcernViews()
            && target.schema().equalsIgnoreCase("main")
            && target.name().equalsIgnoreCase(IvmNames.SYSTEM_VIEW))) {
      throw new SQLException(
          "cannot " + kind.words() + " " + target + ": it belongs to calcite-ivm", "42501");
    }
    Optional<ViewEntry> view = catalog.view(target.schema(), target.name());
    if (view.isPresent()) {
      throw new SQLException(
          "cannot "
              + kind.words()
              + " "
              + target
              + (kind.createsTemporary()
                  ? ": it would hide the materialized view of that name"
                  : ": it is a materialized view; use DROP MATERIALIZED VIEW"),
          "42809");
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
                + ": "
                + ViewEntry.dependents(catalog.viewsReading(table.id()), "depends", "depend")
                + " on its table "
                + table.relation().name(),
            "2BP01");
      }
    }
    for (ViewEntry view : catalog.views()) {
      if (!view.isHidden() && view.userViewSchema().equalsIgnoreCase(schema)) {
        throw new SQLException(
            "cannot drop schema "
                + schema
                + ": materialized view \""
                + view.displayName()
                + "\" is in it; drop the materialized view first",
            "2BP01");
      }
    }
  }

  /**
   * Fails unless view {@code viewId}, called {@code name}, may read {@code relation}: a table or a
   * user's materialized view, or a hidden view it owns, without a column named as calcite-ivm names
   * the columns of its change logs.
   */
  static void checkReadable(CatalogSnapshot catalog, String name, int viewId, Relation relation)
      throws SQLException {
    if (!relation.isTable()) {
      checkReadableView(catalog, name, viewId, relation);
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
  }

  private static void checkReadableView(
      CatalogSnapshot catalog, String name, int viewId, Relation relation) throws SQLException {
    Optional<ViewEntry> read = catalog.viewByUserView(relation);
    if (read.isEmpty()) {
      throw UnsupportedViewException.notYet(
          name,
          "reading the view \""
              + relation.name()
              + "\" whose definition, as DuckDB keeps it, calcite-ivm cannot read (read its"
              + " tables, or make it a materialized view)");
    }
    if (read.get().isHidden() && read.get().ownerViewId() != viewId) {
      throw new SQLException(
          "materialized view \""
              + name
              + "\" cannot read the "
              + read.get().describeHidden()
              + "; write the subquery itself, or make it a materialized view",
          "42501");
    }
  }
}
