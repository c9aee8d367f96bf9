package org.calciteivm.rules.merge;

import com.google.common.collect.ImmutableList;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;
import org.calciteivm.rules.aggregate.AggregateState;

/**
 * Merge statements for aggregate views, whose stored table holds one row of {@link AggregateState}
 * per group. Groups are matched NULL-safely on their keys; an aggregate without GROUP BY has
 * exactly one row, which is never deleted.
 */
public final class GroupMerge {
  private GroupMerge() {}

  /**
   * {@code GROUP_MERGE} and {@code GROUP_APPEND}: the change of each touched group's state, from
   * {@code deltaSql}, is added to the stored state by one MERGE (MIN and MAX fold with LEAST and
   * GREATEST, valid only when nothing was deleted). With {@code deleteEmptyGroups} a group whose
   * row count reaches zero is deleted in the same MERGE.
   */
  public static ImmutableList<String> merge(
      String dataTable, AggregateState state, String deltaSql, boolean deleteEmptyGroups) {
    return ImmutableList.of(mergeStatement(dataTable, state, deltaSql, deleteEmptyGroups, true));
  }

  /**
   * The MERGE of {@link #merge}; new groups are inserted only with {@code insertNewGroups}. DuckDB
   * runs the standard statement ({@link StandardMerge}) as it is.
   */
  private static String mergeStatement(
      String dataTable,
      AggregateState state,
      String deltaSql,
      boolean deleteEmptyGroups,
      boolean insertNewGroups) {
    return new StandardMerge(IvmNames::quote)
        .groups(dataTable, state, deltaSql, deleteEmptyGroups, insertNewGroups);
  }

  /** The statement that keeps the view delta {@code deltaSql} in the temporary table. */
  public static String createDeltaTable(String viewDeltaTable, String deltaSql) {
    return "CREATE OR REPLACE TEMP TABLE " + viewDeltaTable + " AS " + deltaSql;
  }

  /**
   * {@code GROUP_RECOMPUTE}: a change with deletes to a view with MIN or MAX. The change of each
   * touched group's state, from {@code deltaSql}, is kept in {@code viewDeltaTable}; a group whose
   * change deletes its stored extreme ({@link AggregateState#stateLost}) is deleted, the others
   * take their change by one MERGE as in {@code GROUP_MERGE} (their extremes fold with LEAST and
   * GREATEST), and then every touched group that is not stored (lost, or new) is computed from the
   * base data by {@code recomputeSql}, which reads only the rows of the groups kept in {@code
   * recomputedTable}; a group left without rows is not re-created. An aggregate without GROUP BY is
   * recomputed whole. With {@code dropDeltaTable} the last statement drops the kept delta.
   */
  public static ImmutableList<String> recompute(
      String dataTable,
      AggregateState state,
      String viewDeltaTable,
      String recomputedTable,
      String deltaSql,
      String recomputeSql,
      boolean dropDeltaTable) {
    ImmutableList.Builder<String> statements =
        ImmutableList.<String>builder().add(createDeltaTable(viewDeltaTable, deltaSql));
    String insertRecomputed =
        "INSERT INTO " + dataTable + " (" + columnList(state) + ") " + recomputeSql;
    if (state.keys().isEmpty()) {
      statements.add("DELETE FROM " + dataTable).add(insertRecomputed);
    } else {
      statements
          .add(
              "DELETE FROM "
                  + dataTable
                  + " AS d USING "
                  + viewDeltaTable
                  + " AS v WHERE "
                  + keysMatch(state)
                  + " AND ("
                  + state.stateLost("d", "v")
                  + ")")
          .add(mergeStatement(dataTable, state, "SELECT * FROM " + viewDeltaTable, true, false))
          // DuckDB's ANTI JOIN: a correlated NOT EXISTS took 3.7 ms against 2.0 ms (1,500 groups
          // against 11,515)
          .add(
              "CREATE OR REPLACE TEMP TABLE "
                  + recomputedTable
                  + " AS SELECT v.* FROM "
                  + viewDeltaTable
                  + " AS v ANTI JOIN "
                  + dataTable
                  + " AS d ON "
                  + keysMatch(state))
          .add(insertRecomputed)
          .add("DROP TABLE " + recomputedTable);
    }
    if (dropDeltaTable) {
      statements.add("DROP TABLE " + viewDeltaTable);
    }
    return statements.build();
  }

  /**
   * The condition that a stored group {@code d} and a group {@code v} of the view delta have the
   * same keys (NULL-safe); TRUE for an aggregate without GROUP BY.
   */
  public static String keysMatch(AggregateState state) {
    if (state.keys().isEmpty()) {
      return "TRUE";
    }
    return state.keys().stream()
        .map(k -> "d." + IvmNames.quote(k) + " IS NOT DISTINCT FROM v." + IvmNames.quote(k))
        .collect(Collectors.joining(" AND "));
  }

  private static String columnList(AggregateState state) {
    return state.columnNames().stream().map(IvmNames::quote).collect(Collectors.joining(", "));
  }
}
