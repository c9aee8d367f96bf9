package org.calciteivm.rules.merge;

import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.calciteivm.core.ZSets;
import org.calciteivm.rules.aggregate.AggregateState;
import org.calciteivm.rules.aggregate.StateColumn;
import org.calciteivm.rules.sql.WithClause;

/**
 * Merge statements in standard SQL, for engines with SQL:2008 {@code MERGE} (conditional {@code
 * WHEN MATCHED} clauses, {@code THEN DELETE}) and {@code IS NOT DISTINCT FROM}: no row identifiers,
 * no temporary tables, no engine functions. Stored rows are matched NULL-safely on their keys, so
 * every stored row must be unique on them: one row per group of an aggregate view, one row per
 * distinct tuple (with its number of copies in {@code _ivm_count}) of a view without aggregate.
 *
 * <p>Identifiers are quoted by the target's {@code quote}. A source query that starts with a WITH
 * clause (DuckDB's shared subplans) has it moved before the MERGE ({@link WithClause}).
 */
public final class StandardMerge {
  private final UnaryOperator<String> quote;

  /** Statements whose identifiers are quoted by {@code quote}. */
  public StandardMerge(UnaryOperator<String> quote) {
    this.quote = quote;
  }

  /**
   * A view without aggregate, stored counted: one MERGE adds each tuple's net weight, from {@code
   * consolidatedSql} (columns {@code c1..cn} and the weight, one row per tuple), to its count,
   * deletes the tuples whose count reaches zero and inserts new tuples of positive weight.
   */
  public String countedBag(String table, List<String> columns, String consolidatedSql) {
    return WithClause.hoisted(consolidatedSql, source -> countedBagMerge(table, columns, source));
  }

  private String countedBagMerge(String table, List<String> columns, String consolidatedSql) {
    String count = quote.apply(AggregateState.COUNT_COLUMN);
    String weight = "v." + quote.apply(ZSets.WEIGHT_COLUMN);
    String match =
        IntStream.range(0, columns.size())
            .mapToObj(
                i ->
                    "d."
                        + quote.apply(columns.get(i))
                        + " IS NOT DISTINCT FROM v."
                        + quote.apply(BagMerge.deltaColumn(i)))
            .collect(Collectors.joining(" AND "));
    List<String> inserted = new ArrayList<>();
    List<String> values = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      inserted.add(quote.apply(columns.get(i)));
      values.add("v." + quote.apply(BagMerge.deltaColumn(i)));
    }
    inserted.add(count);
    values.add(weight);
    return "MERGE INTO "
        + table
        + " AS d USING ("
        + consolidatedSql
        + ") AS v ON "
        + match
        + " WHEN MATCHED AND d."
        + count
        + " + "
        + weight
        + " = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET "
        + count
        + " = d."
        + count
        + " + "
        + weight
        + " WHEN NOT MATCHED AND "
        + weight
        + " > 0 THEN INSERT ("
        + String.join(", ", inserted)
        + ") VALUES ("
        + String.join(", ", values)
        + ")";
  }

  /**
   * An aggregate view: one MERGE adds the change of each touched group's state, from {@code
   * deltaSql}, to the stored state (MIN and MAX take the smaller or larger value, valid only when
   * nothing was deleted); with {@code deleteEmptyGroups} a group whose row count reaches zero is
   * deleted, and new groups are inserted.
   */
  public String groups(
      String table, AggregateState state, String deltaSql, boolean deleteEmptyGroups) {
    return groups(table, state, deltaSql, deleteEmptyGroups, true);
  }

  /**
   * {@link #groups(String, AggregateState, String, boolean)}, new groups inserted only if asked.
   */
  public String groups(
      String table,
      AggregateState state,
      String deltaSql,
      boolean deleteEmptyGroups,
      boolean insertNewGroups) {
    return WithClause.hoisted(
        deltaSql, source -> groupsMerge(table, state, source, deleteEmptyGroups, insertNewGroups));
  }

  private String groupsMerge(
      String table,
      AggregateState state,
      String deltaSql,
      boolean deleteEmptyGroups,
      boolean insertNewGroups) {
    String count = quote.apply(AggregateState.COUNT_COLUMN);
    List<String> sets = new ArrayList<>();
    for (StateColumn column : state.state()) {
      sets.add(quote.apply(column.name()) + " = " + merged(column));
    }
    StringBuilder merge =
        new StringBuilder("MERGE INTO ")
            .append(table)
            .append(" AS d USING (")
            .append(deltaSql)
            .append(") AS v ON ")
            .append(keysMatch(state));
    boolean grouped = !state.keys().isEmpty();
    if (grouped && deleteEmptyGroups) {
      merge.append(" WHEN MATCHED AND d.").append(count).append(" + v.").append(count);
      merge.append(" = 0 THEN DELETE");
    }
    merge.append(" WHEN MATCHED THEN UPDATE SET ").append(String.join(", ", sets));
    if (grouped && insertNewGroups) {
      List<String> values = new ArrayList<>();
      state.keys().forEach(k -> values.add("v." + quote.apply(k)));
      for (StateColumn column : state.state()) {
        values.add(initial(column));
      }
      merge
          .append(" WHEN NOT MATCHED AND v.")
          .append(count)
          .append(" > 0 THEN INSERT (")
          .append(columnList(state))
          .append(") VALUES (")
          .append(String.join(", ", values))
          .append(")");
    }
    return merge.toString();
  }

  /**
   * An aggregate view whose change cannot be folded in (MIN or MAX after a delete, aggregates that
   * are always recomputed): one MERGE replaces the state of each group the change touches by its
   * recompute. {@code recomputedSql} gives one row per touched group: its keys, then its state
   * computed again from the base data, all NULL for a group left without rows (which is deleted).
   * An aggregate without GROUP BY has one row, always replaced.
   */
  public String recompute(String table, AggregateState state, String recomputedSql) {
    return WithClause.hoisted(recomputedSql, source -> recomputeMerge(table, state, source));
  }

  private String recomputeMerge(String table, AggregateState state, String recomputedSql) {
    String count = quote.apply(AggregateState.COUNT_COLUMN);
    List<String> sets = new ArrayList<>();
    for (StateColumn column : state.state()) {
      String name = quote.apply(column.name());
      sets.add(name + " = v." + name);
    }
    StringBuilder merge =
        new StringBuilder("MERGE INTO ")
            .append(table)
            .append(" AS d USING (")
            .append(recomputedSql)
            .append(") AS v ON ")
            .append(keysMatch(state));
    boolean grouped = !state.keys().isEmpty();
    if (grouped) {
      merge.append(" WHEN MATCHED AND v.").append(count).append(" IS NULL THEN DELETE");
    }
    merge.append(" WHEN MATCHED THEN UPDATE SET ").append(String.join(", ", sets));
    if (grouped) {
      List<String> values = new ArrayList<>();
      state.columnNames().forEach(c -> values.add("v." + quote.apply(c)));
      merge
          .append(" WHEN NOT MATCHED AND v.")
          .append(count)
          .append(" IS NOT NULL THEN INSERT (")
          .append(columnList(state))
          .append(") VALUES (")
          .append(String.join(", ", values))
          .append(")");
    }
    return merge.toString();
  }

  /**
   * The state {@link #groups} leaves in each group its change touches, computed without the stored
   * table: a query of the columns of {@code state} over the touched groups' state before the merge,
   * {@code oldStateSql}, and their change, {@code deltaSql}, each value cast to the stored column's
   * type ({@code columnTypes}, in the order of {@link AggregateState#columnNames}) as the MERGE's
   * assignment casts it, so that its rows equal those the MERGE writes. A group the merge deletes
   * (its row count reaches zero) or does not insert has no row.
   */
  public String mergedGroups(
      AggregateState state, String oldStateSql, String deltaSql, List<String> columnTypes) {
    List<String> columns = new ArrayList<>();
    int i = 0;
    for (String key : state.keys()) {
      columns.add(cast("v." + quote.apply(key), columnTypes.get(i++)) + " AS " + quote.apply(key));
    }
    String stored = "d." + quote.apply(AggregateState.COUNT_COLUMN);
    for (StateColumn column : state.state()) {
      String value = "CASE WHEN " + stored + " IS NULL THEN " + initial(column);
      value += " ELSE " + merged(column) + " END";
      columns.add(cast(value, columnTypes.get(i++)) + " AS " + quote.apply(column.name()));
    }
    String change = "v." + quote.apply(AggregateState.COUNT_COLUMN);
    return "SELECT "
        + String.join(", ", columns)
        + " FROM ("
        + deltaSql
        + ") AS v LEFT JOIN ("
        + oldStateSql
        + ") AS d ON "
        + keysMatch(state)
        + (state.keys().isEmpty()
            ? ""
            : " WHERE coalesce(" + stored + ", 0) + coalesce(" + change + ", 0) > 0");
  }

  /**
   * The value a matched group's {@code column} takes: stored {@code d} merged with change {@code
   * v}.
   */
  private String merged(StateColumn column) {
    return column.merged(name -> "d." + quote.apply(name), name -> "v." + quote.apply(name));
  }

  /** The value a new group's {@code column} takes from its change {@code v}. */
  private String initial(StateColumn column) {
    return column.initial(name -> "v." + quote.apply(name));
  }

  private static String cast(String value, String type) {
    return "CAST(" + value + " AS " + type + ")";
  }

  /** Stored group {@code d} and changed group {@code v} have the same keys; TRUE without keys. */
  private String keysMatch(AggregateState state) {
    if (state.keys().isEmpty()) {
      return "1 = 1";
    }
    return state.keys().stream()
        .map(k -> "d." + quote.apply(k) + " IS NOT DISTINCT FROM v." + quote.apply(k))
        .collect(Collectors.joining(" AND "));
  }

  private String columnList(AggregateState state) {
    return state.columnNames().stream().map(quote).collect(Collectors.joining(", "));
  }
}
