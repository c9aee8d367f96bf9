package org.calciteivm.jdbc.capture;

import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.Optional;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.sql.ObjectName;
import org.calciteivm.jdbc.sql.ParsedStatement.Write;
import org.calciteivm.jdbc.sql.ParsedStatement.WriteKind;
import org.calciteivm.jdbc.sql.WriteFrameParser;

/**
 * Decides how a write is run: unchanged when its target has no materialized view, through a {@link
 * CapturePlan} when it has one, and refused when the driver cannot capture it (a write the driver
 * cannot see the rows of must never run uncaptured) or when it targets calcite-ivm's own tables.
 */
public final class ChangeCapture {
  private ChangeCapture() {}

  /**
   * The capture plan of {@code write}, or empty if it runs unchanged: its target is not tracked, or
   * it is an UPDATE of columns no view reads.
   */
  public static Optional<CapturePlan> plan(CatalogSnapshot catalog, String database, Write write)
      throws SQLException {
    for (ObjectName nested : write.nestedWrites()) {
      // a write inside WITH runs as written: refused on the tables a write must not change
      // uncaptured, as a write of its own that cannot be captured would be
      plan(catalog, database, new Write(WriteKind.UNCAPTURABLE, nested, write.statement()));
    }
    ObjectName target = write.target().inDatabase(database, catalog::hasSchema);
    if (target == null) {
      return Optional.empty(); // a table of another attached database
    }
    Optional<ViewEntry> hidden = catalog.viewByUserView(target.schema(), target.name());
    if (hidden.isPresent() && hidden.get().isHidden()) {
      throw new SQLException(
          hidden.get().describeHidden()
              + ", cannot be written: it changes only by REFRESH MATERIALIZED VIEW \""
              + hidden.get().usersName()
              + "\"",
          "42809");
    }
    if (target.schema().equalsIgnoreCase(IvmNames.SCHEMA)) {
      throw new SQLException(
          "table "
              + write.target()
              + " belongs to calcite-ivm and cannot be written directly;"
              + " use REFRESH or DROP MATERIALIZED VIEW",
          "42501");
    }
    Optional<ViewEntry> view = catalog.view(target.schema(), target.name());
    if (view.isPresent()) {
      throw new SQLException(
          "materialized view \""
              + view.get().displayName()
              + "\" cannot be written: it changes only by REFRESH MATERIALIZED VIEW",
          "42809");
    }
    Optional<TrackedTable> tracked = catalog.trackedTable(target.schema(), target.name());
    if (tracked.isEmpty()) {
      return Optional.empty();
    }
    if (write.kind() == WriteKind.UNCAPTURABLE) {
      throw new SQLFeatureNotSupportedException(
          "this write to "
              + tracked.get().relation().displayName()
              + " cannot be captured, and "
              + ViewEntry.dependents(
                  catalog.viewsReading(tracked.get().id()), "reads the table", "read the table")
              + ": use INSERT (also OR IGNORE, OR REPLACE, ON CONFLICT), UPDATE, DELETE, TRUNCATE"
              + " or MERGE (writes inside WITH, writes prepared by SQL PREPARE, which a JDBC"
              + " PreparedStatement replaces, and EXPLAIN ANALYZE are not captured)",
          "0A000");
    }
    // only now is the frame read: a write to another table goes to DuckDB as written
    return Optional.ofNullable(
        CaptureRewriter.rewrite(WriteFrameParser.parse(write), tracked.get()));
  }
}
