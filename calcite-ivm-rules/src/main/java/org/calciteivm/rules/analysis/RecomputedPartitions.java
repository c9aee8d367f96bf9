package org.calciteivm.rules.analysis;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Intersect;
import org.apache.calcite.rel.core.Minus;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.SetOp;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The operator near a view's top (only projections and filters above it) that a refresh maintains
 * by recomputing the partitions of its input that a change touches, and those partitions' keys.
 *
 * <p>Two operators are kept this way, for the same reason: the value of an output row depends only
 * on the input rows of its partition.
 *
 * <ul>
 *   <li>A projection with window functions: a partition is the rows that agree on the columns every
 *       window function partitions by.
 *   <li>{@code INTERSECT ALL} and {@code EXCEPT ALL} (bag semantics, nested in one another): a row
 *       is output {@code min(m, n)} or {@code max(m - n, 0)} times, where {@code m} and {@code n}
 *       count its equal rows in the inputs, so a partition is the rows equal to it (any subset of
 *       the columns partitions as well).
 * </ul>
 *
 * @param operator the window projection, or the outermost {@code INTERSECT ALL} / {@code EXCEPT
 *     ALL}
 * @param inputKeys the partition key columns the view outputs as they are: columns of the window's
 *     input, or of the set operation's rows; empty if there is none, and then a refresh recomputes
 *     the whole view
 * @param viewKeys for each of {@code inputKeys}, the view's output column that holds it
 */
public record RecomputedPartitions(
    RelNode operator, ImmutableList<Integer> inputKeys, ImmutableList<Integer> viewKeys) {

  /**
   * The operator kept by recomputing partitions that has only projections and filters above it, or
   * null: window functions anywhere else are refused where their expression is checked, and set
   * operations elsewhere where they are visited.
   */
  static @Nullable RelNode find(RelNode view) {
    RelNode node = view;
    while (node instanceof Filter
        || node instanceof Project project && !WindowFunctions.hasWindow(project)) {
      node = node.getInput(0);
    }
    return node instanceof Project project && WindowFunctions.hasWindow(project)
            || isBagIntersectOrExcept(node)
        ? node
        : null;
  }

  /** Whether {@code rel} is an {@code INTERSECT ALL} or {@code EXCEPT ALL}. */
  static boolean isBagIntersectOrExcept(RelNode rel) {
    return (rel instanceof Intersect || rel instanceof Minus) && ((SetOp) rel).all;
  }

  /** Whether {@link #operator} is a projection with window functions. */
  public boolean windows() {
    return operator instanceof Project;
  }

  /** What a refusal calls the operator: window functions, INTERSECT ALL or EXCEPT ALL. */
  public String construct() {
    return windows() ? "window functions" : ConstructNames.describe(operator);
  }

  /**
   * The relations whose rows the partitions divide: the window's input, or the inputs of the bag
   * {@code INTERSECT} / {@code EXCEPT}, through the ones nested in it. A change touches the
   * partitions of its rows in these relations.
   */
  public ImmutableList<RelNode> partitionedInputs() {
    ImmutableList.Builder<RelNode> inputs = ImmutableList.builder();
    if (windows()) {
      inputs.add(operator.getInput(0));
    } else {
      addSetOpInputs(operator, inputs);
    }
    return inputs.build();
  }

  /**
   * The bag set operations kept with {@code operator}: itself if it is one, and those nested in it
   * directly (through bag set operations only); their inputs are {@link #partitionedInputs()}.
   */
  static Set<RelNode> setOperations(RelNode operator) {
    Set<RelNode> found = Collections.newSetFromMap(new IdentityHashMap<>());
    if (isBagIntersectOrExcept(operator)) {
      addSetOperations(operator, found);
    }
    return found;
  }

  private static void addSetOperations(RelNode setOp, Set<RelNode> found) {
    found.add(setOp);
    for (RelNode input : setOp.getInputs()) {
      if (isBagIntersectOrExcept(input)) {
        addSetOperations(input, found);
      }
    }
  }

  private static void addSetOpInputs(RelNode rel, ImmutableList.Builder<RelNode> inputs) {
    for (RelNode input : rel.getInputs()) {
      if (isBagIntersectOrExcept(input)) {
        addSetOpInputs(input, inputs);
      } else {
        inputs.add(input);
      }
    }
  }

  /**
   * The partitions of {@code operator} that a refresh of {@code view} recomputes: the columns every
   * window function partitions by, or every column of the set operation, where the view outputs
   * them as they are.
   */
  static RecomputedPartitions of(RelNode view, RelNode operator) {
    Set<Integer> keys = new LinkedHashSet<>();
    if (operator instanceof Project window) {
      Set<Integer> common = null;
      for (RexNode e : window.getProjects()) {
        for (RexOver over : WindowFunctions.overs(e)) {
          Set<Integer> partitionKeys = new LinkedHashSet<>();
          for (RexNode key : over.getWindow().partitionKeys) {
            if (key instanceof RexInputRef ref) {
              partitionKeys.add(ref.getIndex());
            }
          }
          if (common == null) {
            common = partitionKeys;
          } else {
            common.retainAll(partitionKeys);
          }
        }
      }
      keys.addAll(common == null ? Set.of() : common);
    } else {
      for (int c = 0; c < operator.getRowType().getFieldCount(); c++) {
        keys.add(c);
      }
    }
    List<Integer> inputKeys = new ArrayList<>();
    List<Integer> viewKeys = new ArrayList<>();
    for (int key : keys) {
      int column = viewColumnOf(view, operator, key);
      if (column >= 0) {
        inputKeys.add(key);
        viewKeys.add(column);
      }
    }
    return new RecomputedPartitions(
        operator, ImmutableList.copyOf(inputKeys), ImmutableList.copyOf(viewKeys));
  }

  /**
   * The view's output column that holds partition key {@code key} (a column of the window's input,
   * or of the set operation) as it is, or -1.
   */
  private static int viewColumnOf(RelNode view, RelNode operator, int key) {
    if (!(operator instanceof Project window)) {
      return viewColumn(view, operator, key);
    }
    for (int c = 0; c < window.getProjects().size(); c++) {
      if (window.getProjects().get(c) instanceof RexInputRef ref && ref.getIndex() == key) {
        int column = viewColumn(view, operator, c);
        if (column >= 0) {
          return column;
        }
      }
    }
    return -1;
  }

  /** The output column of {@code rel} that is column {@code column} of {@code operator}, or -1. */
  private static int viewColumn(RelNode rel, RelNode operator, int column) {
    if (rel == operator) {
      return column;
    }
    int below = viewColumn(rel.getInput(0), operator, column);
    if (below < 0 || rel instanceof Filter) {
      return below;
    }
    List<RexNode> projects = ((Project) rel).getProjects();
    for (int i = 0; i < projects.size(); i++) {
      if (projects.get(i) instanceof RexInputRef ref && ref.getIndex() == below) {
        return i;
      }
    }
    return -1;
  }
}
