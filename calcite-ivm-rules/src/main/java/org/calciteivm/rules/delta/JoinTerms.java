package org.calciteivm.rules.delta;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.TableScan;
import org.calciteivm.core.JoinStrategy;

/**
 * The terms a join expansion sums, written out for people (EXPLAIN REFRESH): one line per term such
 * as {@code - Δorders ⋈ Δlineitem}. The delta rules expand joins pairwise, which nests the same
 * terms; distributing the joins over the sums gives exactly these.
 */
public final class JoinTerms {
  private JoinTerms() {}

  /** One scan of the view, in the order the join reads its inputs. */
  public record Leaf(String name, boolean changed) {}

  /**
   * The view's scans from left to right, named by table (numbered {@code #1}, {@code #2} when a
   * table is read more than once), each marked with whether it has a change in {@code context}.
   */
  public static List<Leaf> leaves(RelNode view, DeltaContext context) {
    List<RelOptTable> tables = scannedTables(view);
    Map<String, Integer> reads = new HashMap<>();
    for (RelOptTable table : tables) {
      reads.merge(tableName(table), 1, Integer::sum);
    }
    Map<String, Integer> seen = new HashMap<>();
    List<Leaf> leaves = new ArrayList<>();
    for (RelOptTable table : tables) {
      String name = tableName(table);
      if (reads.get(name) > 1) {
        name = name + "#" + seen.merge(name, 1, Integer::sum);
      }
      leaves.add(new Leaf(name, context.hasDelta().test(table)));
    }
    return leaves;
  }

  /** The table of each scan of {@code view}, from left to right, once per scan. */
  public static List<RelOptTable> scannedTables(RelNode view) {
    List<RelOptTable> tables = new ArrayList<>();
    collectScans(view, tables);
    return tables;
  }

  /**
   * Whether the view's delta may hold rows of negative weight even when every change is an insert:
   * with two or more changed scans, inclusion-exclusion subtracts cross terms and telescoping
   * subtracts the change from a current state to rebuild a previous one.
   */
  public static boolean negativeWeightsPossible(List<Leaf> leaves) {
    return leaves.stream().filter(Leaf::changed).count() > 1;
  }

  /**
   * The terms of {@code Δ(view)} under {@code strategy}: {@code Δt} a delta, {@code t} a current
   * state, {@code t⁻} a previous state ({@code t - Δt}).
   */
  public static List<String> describe(List<Leaf> leaves, JoinStrategy strategy) {
    List<Integer> changed = new ArrayList<>();
    for (int i = 0; i < leaves.size(); i++) {
      if (leaves.get(i).changed()) {
        changed.add(i);
      }
    }
    List<String> terms = new ArrayList<>();
    if (strategy == JoinStrategy.TELESCOPING) {
      for (int i : changed) {
        List<String> parts = new ArrayList<>();
        for (int j = 0; j < leaves.size(); j++) {
          Leaf leaf = leaves.get(j);
          parts.add(
              j == i ? "Δ" + leaf.name() : leaf.name() + (j > i && leaf.changed() ? "⁻" : ""));
        }
        terms.add("+ " + String.join(" ⋈ ", parts));
      }
      return terms;
    }
    for (int size = 1; size <= changed.size(); size++) {
      for (int mask = 1; mask < 1 << changed.size(); mask++) {
        if (Integer.bitCount(mask) != size) {
          continue;
        }
        List<String> parts = new ArrayList<>();
        for (Leaf leaf : leaves) {
          parts.add(leaf.name());
        }
        for (int b = 0; b < changed.size(); b++) {
          if ((mask & 1 << b) != 0) {
            int i = changed.get(b);
            parts.set(i, "Δ" + leaves.get(i).name());
          }
        }
        terms.add((size % 2 == 1 ? "+ " : "- ") + String.join(" ⋈ ", parts));
      }
    }
    return terms;
  }

  private static void collectScans(RelNode rel, List<RelOptTable> tables) {
    RelNode node = rel.stripped();
    if (node instanceof TableScan scan) {
      tables.add(scan.getTable());
    }
    for (RelNode input : node.getInputs()) {
      collectScans(input, tables);
    }
  }

  private static String tableName(RelOptTable table) {
    List<String> name = table.getQualifiedName();
    return name.get(name.size() - 1);
  }
}
