package org.calciteivm.jdbc.catalog;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.regex.Pattern;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.MergeStrategy;

/**
 * The counts of the rows at each MIN and MAX extreme that aggregate views keep beside the extreme
 * ({@code a1_min_count} beside {@code a1_min}), added to the stored tables of views an earlier
 * version made without them: NULL, unknown, so that a delete at an extreme recomputes its group as
 * it did then, which counts it. Done when a database is opened, before any refresh plans or reads
 * the tables.
 */
final class ExtremeCounts {
  /** The state column of a MIN or MAX ({@code a3_max}); its count is named with {@code _count}. */
  private static final Pattern EXTREME = Pattern.compile("a[0-9]+_(min|max)");

  private ExtremeCounts() {}

  /** Adds the counts the views of {@code catalog} with MIN or MAX lack, in the open transaction. */
  static void addMissing(Connection connection, CatalogSnapshot catalog) throws SQLException {
    try (Statement s = connection.createStatement()) {
      for (ViewEntry view : catalog.views()) {
        if (view.strategy() != MergeStrategy.GROUP_RECOMPUTE) {
          continue; // only an aggregate view with MIN or MAX has the columns
        }
        List<String> columns =
            DuckDbCatalog.columnNames(
                connection, IvmNames.SCHEMA, IvmNames.viewDataTable(view.id(), view.name()));
        for (String column : columns) {
          if (EXTREME.matcher(column).matches() && !columns.contains(column + "_count")) {
            s.execute(
                "ALTER TABLE "
                    + view.dataTable()
                    + " ADD COLUMN "
                    + IvmNames.quote(column + "_count")
                    + " HUGEINT");
          }
        }
      }
    }
  }
}
