package org.calciteivm.rules.merge;

import com.google.common.collect.ImmutableList;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;
import org.calciteivm.rules.aggregate.AggregateState;
import org.calciteivm.rules.sql.WithClause;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Merge statements for aggregate views, whose stored table holds one row of {@link AggregateState}
 * per group. Groups are matched NULL-safely on their keys; an aggregate without GROUP BY has
 * exactly one row, which is never deleted.
 */
public final class GroupMerge {
  /** How {@link StandardMerge} ends a MERGE's source and names it. */
  private static final String SOURCE_END = ") AS v ON ";

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

  /**
   * The MERGE {@code merge} of {@link #merge} or {@link #recompute} into {@code dataTable} with its
   * source in the order of the stored rows it updates (DuckDB's {@code rowid}), new groups last; or
   * null if {@code merge} is no such statement of a view with GROUP BY.
   *
   * <p>Why: DuckDB updates rows that reach it out of their stored order one at a time, each one
   * decompressing its vector of every updated column again (duckdb/duckdb#11275), and a MERGE whose
   * source is the probe side of its join updates in the source's order, as DuckDB plans it when it
   * estimates the source at least as large as the stored table. TPC-H SF 1, the MIN/MAX view
   * (10,000 suppliers) after 1% of the orders deleted, 9,772 groups updated: 191 ms for the MERGE,
   * 14.5 ms with its source in this order, measured by hand on plain DuckDB 2.0. For a small source
   * DuckDB probes the stored table, in order already, and the join that orders the source would
   * only read the stored keys once more: {@code org.calciteivm.jdbc.refresh.MergeOrder} decides.
   */
  public static @Nullable String inStoredOrder(String merge, String dataTable) {
    WithClause with = WithClause.of(merge);
    String statement = with == null ? merge : with.query();
    String head = "MERGE INTO " + dataTable + " AS d USING (";
    // StandardMerge writes "USING (source) AS v ON keys WHEN ...", and nothing after the source
    // that reads like its end
    int sourceEnd = statement.lastIndexOf(SOURCE_END);
    int keysEnd = sourceEnd < 0 ? -1 : statement.indexOf(" WHEN ", sourceEnd);
    if (!statement.startsWith(head) || keysEnd < 0) {
      return null;
    }
    String keysMatch = statement.substring(sourceEnd + SOURCE_END.length(), keysEnd);
    if (!keysMatch.contains(" IS NOT DISTINCT FROM ")) {
      return null; // no GROUP BY: one stored row
    }
    String ordered =
        head
            + "SELECT v.* FROM ("
            + statement.substring(head.length(), sourceEnd)
            + ") AS v LEFT JOIN "
            + dataTable
            + " AS d ON "
            + keysMatch
            + " ORDER BY d.rowid"
            + statement.substring(sourceEnd);
    return with == null ? ordered : with.clause() + "\n" + ordered;
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
