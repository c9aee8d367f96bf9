package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.ZSets;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.rules.merge.BagMerge;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * How a refresh of a materialized view that other materialized views read writes the view's own
 * change into its change log, so that those views consume it as they consume a base table's.
 *
 * <p>The change is of the rows users read (the view's user view), consolidated: a Z-set of rows
 * with weights, whatever the view stores.
 *
 * <ul>
 *   <li>A view without aggregate stores its rows, so its change is its consolidated view delta,
 *       which its merge keeps in the view delta table: it is appended to the log as it is.
 *   <li>An aggregate view stores per group a state its rows are computed from (and HAVING may hide
 *       a group). Its change is, for each group the merge touches, the group's row before the merge
 *       with weight -1 and after it with +1, equal pairs cancelled: the touched groups' rows are
 *       read through the user view's query before and after the merge.
 *   <li>A recompute touches every row: the whole view before with -1 and after with +1,
 *       consolidated.
 * </ul>
 *
 * The log's rows get no epoch: the refreshes of the views that read them seal them, as they seal a
 * base table's captured rows.
 */
final class ChangeEmission {
  private final TrackedTable log;
  private final String userView;
  private final @Nullable String touchedGroupsSql;
  private final String oldRowsTable;
  private final String viewDeltaTable;

  /**
   * @param log the change log the view's refresh writes (the view's user view, tracked)
   * @param userView the user view, quoted and qualified
   * @param touchedGroupsSql for an aggregate view, the query of its user view restricted to the
   *     groups of the view delta kept in {@code viewDeltaTable}; null for a view without aggregate
   * @param viewDeltaTable the name (unquoted) of the temporary table the merge keeps the view delta
   *     in
   */
  ChangeEmission(
      TrackedTable log, String userView, @Nullable String touchedGroupsSql, String viewDeltaTable) {
    this.log = log;
    this.userView = userView;
    this.touchedGroupsSql = touchedGroupsSql;
    this.viewDeltaTable = IvmNames.quote(viewDeltaTable);
    this.oldRowsTable = IvmNames.quote(viewDeltaTable + "_old");
  }

  /**
   * {@code merge}, the statements of an incremental merge that keep the view delta (see {@link
   * org.calciteivm.rules.api.StoredView#keepsDelta}), with the statements that write the change.
   */
  ImmutableList<String> incremental(List<String> merge) {
    ImmutableList.Builder<String> statements = ImmutableList.builder();
    if (touchedGroupsSql == null) {
      int columns = log.capturedColumns().size();
      String tuple =
          IntStream.range(0, columns)
              .mapToObj(i -> IvmNames.quote(BagMerge.deltaColumn(i)) + ", ")
              .collect(Collectors.joining());
      return statements
          .addAll(merge)
          .add(
              insertInto()
                  + "SELECT "
                  + tuple
                  + IvmNames.quote(ZSets.WEIGHT_COLUMN)
                  + " FROM "
                  + viewDeltaTable)
          .build();
    }
    // the first statement keeps the view delta, whose groups are the touched ones
    return statements
        .add(merge.get(0))
        .add(keepOldRows(touchedGroupsSql))
        .addAll(merge.subList(1, merge.size()))
        .add(insertChange(touchedGroupsSql))
        .add("DROP TABLE " + oldRowsTable)
        .add("DROP TABLE " + viewDeltaTable)
        .build();
  }

  /**
   * {@code recompute}, the statements of a full refresh, with the statements that write the change.
   */
  ImmutableList<String> full(List<String> recompute) {
    String everyRow = "SELECT * FROM " + userView;
    return ImmutableList.<String>builder()
        .add(keepOldRows(everyRow))
        .addAll(recompute)
        .add(insertChange(everyRow))
        .add("DROP TABLE " + oldRowsTable)
        .build();
  }

  private String keepOldRows(String rowsSql) {
    return "CREATE OR REPLACE TEMP TABLE " + oldRowsTable + " AS " + rowsSql;
  }

  /** Inserts the rows of {@code rowsSql} with +1 and the kept old rows with -1, consolidated. */
  private String insertChange(String rowsSql) {
    String tuple =
        IntStream.range(0, log.capturedColumns().size())
            .mapToObj(i -> "c" + i)
            .collect(Collectors.joining(", "));
    return insertInto()
        + "SELECT "
        + tuple
        + ", sum(w) FROM (SELECT *, -1 FROM "
        + oldRowsTable
        + " UNION ALL SELECT *, 1 FROM ("
        + rowsSql
        + ")) AS x("
        + tuple
        + ", w) GROUP BY "
        + tuple
        + " HAVING sum(w) <> 0";
  }

  private String insertInto() {
    return "INSERT INTO "
        + log.deltaTable()
        + " ("
        + log.capturedColumnsThenComma("")
        + IvmNames.quote(ZSets.WEIGHT_COLUMN)
        + ") ";
  }
}
