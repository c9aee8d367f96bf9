package org.calciteivm.rules.merge;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.ZSets;

/**
 * Merge statements for bag views (projections and filters), whose stored table holds one row per
 * copy of a tuple and no hidden state.
 *
 * <p>The view delta's columns are named {@code c1..cn} followed by the weight column.
 */
public final class BagMerge {
  private BagMerge() {}

  /** The name of the {@code i}-th (0-based) tuple column of a view delta. */
  public static String deltaColumn(int i) {
    return "c" + (i + 1);
  }

  /**
   * {@code BAG_COUNTED}: consolidate the view delta into {@code viewDeltaTable}, delete exactly
   * {@code -w} copies of each tuple with a negative net weight {@code w}, then insert {@code w}
   * copies of each tuple with a positive one.
   *
   * <p>Without a {@code key}, deleted tuples are matched NULL-safely on every column. With one (the
   * positions, 0-based, of columns that identify the view's rows, see {@link
   * org.calciteivm.rules.analysis.RowKeys}) every stored row is unique, so a tuple of weight -1 is
   * deleted by its key: only the key columns of the stored view are read, and the first one's
   * values filter the scan before the join.
   */
  public static ImmutableList<String> counted(
      String dataTable,
      List<String> dataColumns,
      String viewDeltaTable,
      String consolidatedSql,
      List<Integer> key) {
    String weight = IvmNames.quote(ZSets.WEIGHT_COLUMN);
    return ImmutableList.of(
        "CREATE OR REPLACE TEMP TABLE " + viewDeltaTable + " AS " + consolidatedSql,
        key.isEmpty()
            ? deleteTuples(dataTable, dataColumns, viewDeltaTable)
            : deleteByKey(dataTable, dataColumns, viewDeltaTable, key),
        fanOut(
            dataTable,
            dataColumns.size(),
            viewDeltaTable + " AS v",
            " WHERE v." + weight + " > 0"));
  }

  /** Deletes {@code -w} copies of each tuple of negative weight, matching every column. */
  private static String deleteTuples(
      String dataTable, List<String> dataColumns, String viewDeltaTable) {
    String weight = IvmNames.quote(ZSets.WEIGHT_COLUMN);
    String match =
        IntStream.range(0, dataColumns.size())
            .mapToObj(
                i ->
                    "d."
                        + IvmNames.quote(dataColumns.get(i))
                        + " IS NOT DISTINCT FROM v."
                        + IvmNames.quote(deltaColumn(i)))
            .collect(Collectors.joining(" AND "));
    // row_number() picks which copies go; any |w| copies of equal tuples are the same bag
    return "DELETE FROM "
        + dataTable
        + " WHERE rowid IN (SELECT rid FROM (SELECT d.rowid AS rid, v."
        + weight
        + " AS w, row_number() OVER (PARTITION BY v.rowid) AS rn FROM "
        + dataTable
        + " AS d JOIN "
        + viewDeltaTable
        + " AS v ON "
        + match
        + " WHERE v."
        + weight
        + " < 0) WHERE rn <= -w)";
  }

  /** Deletes the row of each tuple of negative weight by its {@code key}. */
  private static String deleteByKey(
      String dataTable, List<String> dataColumns, String viewDeltaTable, List<Integer> key) {
    String weight = IvmNames.quote(ZSets.WEIGHT_COLUMN);
    String keyColumns =
        key.stream().map(i -> IvmNames.quote(dataColumns.get(i))).collect(Collectors.joining(", "));
    String keyMatch =
        key.stream()
            .map(
                i ->
                    "d."
                        + IvmNames.quote(dataColumns.get(i))
                        + " = v."
                        + IvmNames.quote(deltaColumn(i)))
            .collect(Collectors.joining(" AND "));
    return "DELETE FROM "
        + dataTable
        + " WHERE rowid IN (SELECT d.rid FROM (SELECT rowid AS rid, "
        + keyColumns
        + " FROM "
        + dataTable
        + " WHERE "
        + IvmNames.quote(dataColumns.get(key.get(0)))
        + " IN (SELECT "
        + IvmNames.quote(deltaColumn(key.get(0)))
        + " FROM "
        + viewDeltaTable
        + " WHERE "
        + weight
        + " < 0)) AS d JOIN "
        + viewDeltaTable
        + " AS v ON "
        + keyMatch
        + " WHERE v."
        + weight
        + " < 0)";
  }

  /**
   * {@code BAG_APPEND}: every pending change is an insert, so the view delta has only positive
   * weights; append {@code w} copies of each of its rows, without consolidating or deleting.
   */
  public static ImmutableList<String> append(String dataTable, int columns, String deltaSql) {
    return ImmutableList.of(fanOut(dataTable, columns, "(" + deltaSql + ") AS v", ""));
  }

  /**
   * {@code BAG_APPEND} for a view delta that may hold rows of negative weight although every change
   * is an insert (a join with several changed scans): consolidated into {@code viewDeltaTable}, it
   * has only positive weights (the view only gains rows), which are appended without a delete.
   */
  public static ImmutableList<String> appendConsolidated(
      String dataTable, int columns, String viewDeltaTable, String consolidatedSql) {
    return ImmutableList.of(
        "CREATE OR REPLACE TEMP TABLE " + viewDeltaTable + " AS " + consolidatedSql,
        fanOut(dataTable, columns, viewDeltaTable + " AS v", ""));
  }

  private static String fanOut(String dataTable, int columns, String source, String where) {
    String tuple =
        IntStream.range(0, columns)
            .mapToObj(i -> "v." + IvmNames.quote(deltaColumn(i)))
            .collect(Collectors.joining(", "));
    return "INSERT INTO "
        + dataTable
        + " SELECT "
        + tuple
        + " FROM "
        + source
        + ", generate_series(1, v."
        + IvmNames.quote(ZSets.WEIGHT_COLUMN)
        + ")"
        + where;
  }
}
