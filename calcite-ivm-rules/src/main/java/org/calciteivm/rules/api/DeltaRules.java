package org.calciteivm.rules.api;

import java.util.List;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.rules.delta.DeltaContext;
import org.calciteivm.rules.delta.DeltaDerivation;

/**
 * The delta rules on a plan of your own, without the compiler's analysis: for engines that keep
 * their views as RelNodes and run the delta plan themselves.
 *
 * <pre>{@code
 * RelNode delta = DeltaRules.derive(plan, Change.of(JoinStrategy.AUTO, tables), relations);
 * }</pre>
 *
 * <p>The rules ({@link org.calciteivm.rules.IvmRules}) run as one Hep program ({@link
 * org.calciteivm.rules.IvmPrograms#delta}) on the marker "the change of {@code plan}", which they
 * push down to the scans; the result is checked to hold no marker. Normalize the plan first ({@link
 * org.calciteivm.rules.IvmPrograms#normalize(RelNode)}) so that filters over joins are join
 * conditions; {@link IvmCompiler} does that and also refuses, naming it, a construct no rule
 * maintains.
 */
public final class DeltaRules {
  private DeltaRules() {}

  /**
   * The change of {@code plan} for {@code change}: the plan's columns, then the weight {@code
   * _ivm_weight}; for a plan whose top is an aggregate, the change of its state per group (the
   * group keys, then the change of each hidden column of {@link StateLayout}). The delta relation
   * of each changed table is where {@code relations} says.
   *
   * @throws IllegalStateException if some operator of the plan has no delta rule
   * @throws IllegalArgumentException if a changed table's delta relation is missing or of another
   *     row type than {@link DeltaRelations#rowType}
   */
  public static RelNode derive(RelNode plan, Change change, DeltaRelations relations) {
    DeltaContext context = context(change, relations);
    return DeltaDerivation.of(plan, joins(plan, change), context).plan();
  }

  /**
   * What the rules are told of {@code change}: the changed, insert-only and delete-only tables, by
   * name.
   */
  static DeltaContext context(Change change, DeltaRelations relations) {
    return new DeltaContext(
        table -> change.changedTables().contains(table.getQualifiedName()),
        table -> change.insertOnlyTables().contains(table.getQualifiedName()),
        table -> change.deleteOnlyTables().contains(table.getQualifiedName()),
        relations::of);
  }

  /** The join expansion of {@code change} for {@code plan}, {@code AUTO} resolved. */
  static JoinStrategy joins(RelNode plan, Change change) {
    return change.resolvedJoins(
        RelOptUtil.findAllTables(plan).stream()
            .map(RelOptTable::getQualifiedName)
            .distinct()
            .filter(change.changedTables()::contains)
            .count());
  }

  /** The tables of {@code plan} that {@code change} names and that have no delta relation. */
  static List<List<String>> withoutDelta(RelNode plan, Change change, DeltaRelations relations) {
    return RelOptUtil.findAllTables(plan).stream()
        .filter(t -> change.changedTables().contains(t.getQualifiedName()))
        .filter(t -> relations.of(t).isEmpty())
        .map(RelOptTable::getQualifiedName)
        .distinct()
        .toList();
  }
}
