package org.calciteivm.rules.sql;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.prepare.RelOptTableImpl;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.logical.LogicalTableScan;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.schema.impl.ListTransientTable;
import org.apache.calcite.sql.SqlDialect;

/**
 * The subplans a plan reads more than once, to be written once each, as a materialized common table
 * expression that every place reading them names.
 *
 * <p>Delta plans repeat work: the change of a {@code DISTINCT} below a join is read by each term of
 * the join's change, and each time DuckDB would compute it again, scanning the table below the
 * {@code DISTINCT} for the keys the change touches. A subplan is shared when it occurs twice or
 * more (the same operators over the same inputs, by Calcite's text of the plan) and joins or
 * aggregates rows read from a table: cheaper ones are left where they are, since a materialized
 * result has a cost of its own. The outermost such subplans are shared; a repeat inside one is not
 * looked for.
 *
 * <p>Identity: a query over deterministic relations gives the same rows wherever it is evaluated
 * within one statement, so reading its materialized rows in place of each occurrence changes
 * nothing.
 */
final class SharedSubplans {
  private static final String PREFIX = "ivm_shared_";

  /** A shared subplan: the name it is read by and its plan. */
  record Shared(String name, RelNode plan) {}

  /**
   * A plan with its shared subplans replaced by scans of their names.
   *
   * @param plan the plan, reading the shared subplans by name
   * @param shared the shared subplans, in the order they were first met
   */
  record Split(RelNode plan, List<Shared> shared) {}

  private SharedSubplans() {}

  /** {@code plan} with its repeated subplans worth sharing read by name. */
  static Split of(RelNode plan) {
    Map<RelNode, String> texts = new IdentityHashMap<>();
    Map<String, Integer> occurrences = new HashMap<>();
    count(plan, texts, occurrences);
    Map<String, Shared> shared = new LinkedHashMap<>();
    RelNode replaced =
        plan.accept(
            new RelHomogeneousShuttle() {
              @Override
              public RelNode visit(RelNode other) {
                String text = texts.get(other);
                if (text != null
                    && occurrences.get(text) > 1
                    && worthSharing(other)
                    && !projectsConstants(other)) {
                  Shared found =
                      shared.computeIfAbsent(
                          text, t -> new Shared(PREFIX + (shared.size() + 1), other));
                  return scanOf(found.name(), other);
                }
                return super.visit(other);
              }
            });
    return new Split(replaced, List.copyOf(shared.values()));
  }

  /**
   * A scan of the rows named {@code name}, with the columns of {@code subplan} (as a transient
   * table, which Calcite writes as its name).
   */
  private static RelNode scanOf(String name, RelNode subplan) {
    RelOptTable table =
        RelOptTableImpl.create(
            firstScan(subplan).getTable().getRelOptSchema(),
            subplan.getRowType(),
            new ListTransientTable(name, subplan.getRowType()),
            ImmutableList.of(name));
    return LogicalTableScan.create(subplan.getCluster(), table, ImmutableList.of());
  }

  /**
   * Whether {@code rel} projects constants, which must stay constants where it is read (the 0.25 of
   * {@code quantile_cont(x, 0.25)}): its input is shared instead, and it is applied at each read.
   */
  private static boolean projectsConstants(RelNode rel) {
    return rel instanceof Project project
        && project.getProjects().stream().anyMatch(e -> e instanceof RexLiteral);
  }

  private static TableScan firstScan(RelNode rel) {
    if (rel instanceof TableScan scan) {
      return scan;
    }
    for (RelNode input : rel.getInputs()) {
      if (readsTable(input)) {
        return firstScan(input);
      }
    }
    throw new IllegalArgumentException("no table scan in " + rel);
  }

  /** Counts the occurrences of each subplan of {@code rel} by its text; returns {@code rel}'s. */
  private static String count(
      RelNode rel, Map<RelNode, String> texts, Map<String, Integer> occurrences) {
    for (RelNode input : rel.getInputs()) {
      count(input, texts, occurrences);
    }
    String text = texts.computeIfAbsent(rel, RelOptUtil::toString);
    occurrences.merge(text, 1, Integer::sum);
    return text;
  }

  /** Whether {@code rel} joins or aggregates rows it reads from a table. */
  private static boolean worthSharing(RelNode rel) {
    return (rel instanceof Join || rel instanceof Aggregate || joinsOrAggregates(rel))
        && readsTable(rel);
  }

  private static boolean joinsOrAggregates(RelNode rel) {
    for (RelNode input : rel.getInputs()) {
      if (input instanceof Join || input instanceof Aggregate || joinsOrAggregates(input)) {
        return true;
      }
    }
    return false;
  }

  private static boolean readsTable(RelNode rel) {
    if (rel instanceof TableScan) {
      return true;
    }
    for (RelNode input : rel.getInputs()) {
      if (readsTable(input)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code dialect} materializes common table expressions on request (DuckDB's). */
  static boolean supported(SqlDialect dialect) {
    return dialect instanceof IvmDuckDbDialect;
  }

  /** The names of {@code rel}'s columns, for a common table expression's column list. */
  static List<String> columnNames(RelNode rel) {
    return new ArrayList<>(rel.getRowType().getFieldNames());
  }
}
