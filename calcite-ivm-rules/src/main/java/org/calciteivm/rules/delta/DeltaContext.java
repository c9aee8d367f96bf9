package org.calciteivm.rules.delta;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.calcite.plan.Context;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.TableScan;

/**
 * What the delta rules know about one refresh: which scanned tables have a non-empty change. It
 * travels in the planner's {@link Context}, so that the rules stay stateless constants.
 *
 * <p>Knowing which deltas are empty lets the join rules skip every term that would join an empty
 * delta: an n-way join whose only changed input is one table runs one term.
 *
 * <p>Knowing which changes are insert-only or delete-only lets {@link
 * ChangeJoinForeignKeyPruneRule} use declared foreign keys.
 *
 * @param hasDelta whether a table's delta relation may hold rows in this refresh; a table for which
 *     it is false is read only as a current state
 * @param insertOnly whether every row of a table's delta has a positive weight in this refresh
 * @param deleteOnly whether every row of a table's delta has a negative weight in this refresh
 * @param deltaRelation where a table's delta relation is: its qualified name in the schema the view
 *     is planned in, or empty for a table that never changes
 */
public record DeltaContext(
    Predicate<RelOptTable> hasDelta,
    Predicate<RelOptTable> insertOnly,
    Predicate<RelOptTable> deleteOnly,
    Function<RelOptTable, Optional<List<String>>> deltaRelation) {

  /** The delta relations {@link ChangingTable}s name; other tables never change. */
  public static final Function<RelOptTable, Optional<List<String>>> CHANGING_TABLES =
      table ->
          Optional.ofNullable(table.unwrap(ChangingTable.class)).map(ChangingTable::deltaTableName);

  /**
   * Every {@link ChangingTable} may have changed, none is known to be insert-only; other tables
   * have not changed.
   */
  public static final DeltaContext EVERY_CHANGING_TABLE =
      new DeltaContext(table -> table.unwrap(ChangingTable.class) != null, table -> false);

  /** The tables {@code hasDelta} have changed, none known to be insert-only or delete-only. */
  public DeltaContext(Predicate<RelOptTable> hasDelta) {
    this(hasDelta, table -> false);
  }

  /**
   * The tables {@code hasDelta} have changed, none known to be delete-only; their delta relations
   * are named by {@link ChangingTable}.
   */
  public DeltaContext(Predicate<RelOptTable> hasDelta, Predicate<RelOptTable> insertOnly) {
    this(hasDelta, insertOnly, table -> false, CHANGING_TABLES);
  }

  /** The context of the planner running {@code call}, or {@link #EVERY_CHANGING_TABLE}. */
  public static DeltaContext of(RelOptRuleCall call) {
    return call.getPlanner()
        .getContext()
        .maybeUnwrap(DeltaContext.class)
        .orElse(EVERY_CHANGING_TABLE);
  }

  /** Whether {@code rel} reads a table with a change, so that its own delta may be non-empty. */
  public boolean changes(RelNode rel) {
    RelNode node = rel.stripped();
    if (node instanceof TableScan scan) {
      return hasDelta.test(scan.getTable());
    }
    for (RelNode input : node.getInputs()) {
      if (changes(input)) {
        return true;
      }
    }
    return false;
  }
}
