package org.calciteivm.rules.sql;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.prepare.RelOptTableImpl;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.logical.LogicalTableScan;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.schema.impl.ListTransientTable;
import org.apache.calcite.sql.SqlDialect;
import org.calciteivm.rules.frontend.PlanText;

/**
 * The subplans a plan reads more than once, to be written once each, as a materialized common table
 * expression that every place reading them names.
 *
 * <p>Delta plans repeat work: the change of a {@code DISTINCT} below a join is read by each term of
 * the join's change, and each time DuckDB would compute it again, scanning the table below the
 * {@code DISTINCT} for the keys the change touches. A subplan is shared when it occurs twice or
 * more (the same operators over the same inputs, by Calcite's text of the plan) and joins or
 * aggregates rows read from a table: cheaper ones are left where they are, since a materialized
 * result has a cost of its own. A repeat inside a shared subplan is shared too when that subplan
 * itself reads it more than once (see {@link #of}).
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

  /**
   * {@code plan} with its subplans worth sharing that would be read more than once read by name.
   *
   * <p>A subplan is read as often as the subplans that contain it are written: once for a shared
   * one, as often as it is read for one written in place. Counting that way, over the distinct
   * subplans from the outermost down (a subplan is taller than any it contains), shares the
   * outermost repeats and also the repeats inside them. A chain of outer joins needs the latter:
   * the change of each join's preserved input is read by several terms, and so is the change of
   * that input's own input inside it, which written in place would make the text exponential in the
   * chain's length. A repeat only because the subplan around it repeats is read once, from the
   * shared subplan, and stays in place.
   */
  static Split of(RelNode plan) {
    Map<RelNode, String> keys = new IdentityHashMap<>();
    Map<String, Subplan> subplans = new HashMap<>();
    String root = describe(plan, keys, subplans);
    List<Subplan> outermostFirst = new ArrayList<>(subplans.values());
    outermostFirst.sort(Comparator.comparingInt((Subplan s) -> s.height).reversed());
    subplans.get(root).reads = 1;
    for (Subplan subplan : outermostFirst) {
      subplan.shared =
          !subplan.key.equals(root)
              && subplan.reads > 1
              && worthSharing(subplan.rel)
              && !projectsConstants(subplan.rel);
      long writes = subplan.shared ? 1 : subplan.reads;
      for (String input : subplan.inputs) {
        subplans.get(input).reads += writes;
      }
    }
    Map<String, Shared> shared = new LinkedHashMap<>();
    RelNode replaced = replaceShared(plan, keys, subplans, shared);
    return new Split(replaced, List.copyOf(shared.values()));
  }

  /**
   * A distinct subplan: one of its occurrences, the keys of its inputs, its height (longer than any
   * of its inputs') and how often it is read.
   */
  private static final class Subplan {
    final String key;
    final RelNode rel;
    final List<String> inputs;
    final int height;
    final int number;
    long reads;
    boolean shared;

    Subplan(String key, RelNode rel, List<String> inputs, int height, int number) {
      this.key = key;
      this.rel = rel;
      this.inputs = inputs;
      this.height = height;
      this.number = number;
    }
  }

  /**
   * Records {@code rel}'s distinct subplans by key; returns {@code rel}'s. A key is the operator's
   * own line of Calcite's text of a plan followed by its inputs' keys, numbered: equal keys are
   * equal texts, and a key's length does not grow with the plan below it.
   */
  private static String describe(
      RelNode rel, Map<RelNode, String> keys, Map<String, Subplan> subplans) {
    String known = keys.get(rel);
    if (known != null) {
      return known;
    }
    List<String> inputs = new ArrayList<>();
    StringBuilder key = new StringBuilder(PlanText.ownLine(rel));
    int height = 0;
    for (RelNode input : rel.getInputs()) {
      String inputKey = describe(input, keys, subplans);
      Subplan described = subplans.get(inputKey);
      inputs.add(inputKey);
      height = Math.max(height, described.height);
      key.append(" #").append(described.number);
    }
    String result = key.toString();
    keys.put(rel, result);
    subplans.putIfAbsent(result, new Subplan(result, rel, inputs, height + 1, subplans.size()));
    return result;
  }

  /**
   * {@code rel} with its shared subplans replaced by scans of their names; adds each to {@code
   * shared} once, after the shared subplans it reads.
   */
  private static RelNode replaceShared(
      RelNode rel,
      Map<RelNode, String> keys,
      Map<String, Subplan> subplans,
      Map<String, Shared> shared) {
    Subplan subplan = subplans.get(keys.get(rel));
    Shared known = shared.get(subplan.key);
    if (known != null) {
      return scanOf(known.name(), rel);
    }
    List<RelNode> inputs = new ArrayList<>();
    boolean changed = false;
    for (RelNode input : rel.getInputs()) {
      RelNode replaced = replaceShared(input, keys, subplans, shared);
      inputs.add(replaced);
      changed |= replaced != input;
    }
    RelNode result = changed ? rel.copy(rel.getTraitSet(), inputs) : rel;
    if (!subplan.shared) {
      return result;
    }
    Shared added = new Shared(PREFIX + (shared.size() + 1), result);
    shared.put(subplan.key, added);
    return scanOf(added.name(), rel);
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
