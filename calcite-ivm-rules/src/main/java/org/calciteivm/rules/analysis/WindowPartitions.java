package org.calciteivm.rules.analysis;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexFieldCollation;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexVisitorImpl;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The window functions of a view, all in one projection {@code window} near its top (only
 * projections and filters above it), and the partitions of their input a refresh recomputes: a
 * change to a row of the input changes the window values of its partition only, so a refresh
 * recomputes the rows of the partitions the input's change touches and replaces the view's rows of
 * those partitions.
 *
 * @param window the projection that computes the window functions
 * @param inputKeys the columns of {@code window}'s input that every window function partitions by
 *     and that the view outputs as they are; empty if there is none, and then a refresh recomputes
 *     the whole view
 * @param viewKeys for each of {@code inputKeys}, the view's output column that holds it
 */
public record WindowPartitions(
    Project window, ImmutableList<Integer> inputKeys, ImmutableList<Integer> viewKeys) {

  /**
   * The projection with window functions that has only projections and filters above it, or null:
   * window functions anywhere else are refused where their expression is checked.
   */
  static @Nullable Project find(RelNode view) {
    RelNode node = view;
    while (node instanceof Filter || node instanceof Project project && !hasWindow(project)) {
      node = node.getInput(0);
    }
    return node instanceof Project project && hasWindow(project) ? project : null;
  }

  static boolean hasWindow(Project project) {
    return project.getProjects().stream().anyMatch(RexOver::containsOver);
  }

  /**
   * The partitions of {@code window}'s input that a refresh of {@code view} recomputes: the input
   * columns every window function partitions by, where the view outputs them as they are.
   */
  static WindowPartitions of(RelNode view, Project window) {
    Set<Integer> common = null;
    for (RexNode e : window.getProjects()) {
      for (RexOver over : overs(e)) {
        Set<Integer> keys = new LinkedHashSet<>();
        for (RexNode key : over.getWindow().partitionKeys) {
          if (key instanceof RexInputRef ref) {
            keys.add(ref.getIndex());
          }
        }
        if (common == null) {
          common = keys;
        } else {
          common.retainAll(keys);
        }
      }
    }
    ImmutableList.Builder<Integer> inputKeys = ImmutableList.builder();
    ImmutableList.Builder<Integer> viewKeys = ImmutableList.builder();
    for (int key : common == null ? Set.<Integer>of() : common) {
      for (int c = 0; c < window.getProjects().size(); c++) {
        if (window.getProjects().get(c) instanceof RexInputRef ref && ref.getIndex() == key) {
          int column = viewColumn(view, window, c);
          if (column >= 0) {
            inputKeys.add(key);
            viewKeys.add(column);
            break;
          }
        }
      }
    }
    return new WindowPartitions(window, inputKeys.build(), viewKeys.build());
  }

  /** The output column of {@code rel} that is column {@code column} of {@code window}, or -1. */
  static int viewColumn(RelNode rel, Project window, int column) {
    if (rel == window) {
      return column;
    }
    int below = viewColumn(rel.getInput(0), window, column);
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

  static List<RexOver> overs(RexNode expression) {
    List<RexOver> found = new ArrayList<>();
    expression.accept(
        new RexVisitorImpl<Void>(true) {
          @Override
          public Void visitOver(RexOver over) {
            found.add(over);
            return super.visitOver(over);
          }
        });
    return found;
  }

  /** Window functions whose value depends on how rows that tie in {@code ORDER BY} are ordered. */
  private static final Set<SqlKind> ORDER_OF_TIES =
      Set.of(
          SqlKind.ROW_NUMBER,
          SqlKind.NTILE,
          SqlKind.LAG,
          SqlKind.LEAD,
          SqlKind.FIRST_VALUE,
          SqlKind.LAST_VALUE,
          SqlKind.NTH_VALUE);

  /**
   * Whether the value of {@code over} depends on how rows that tie in its {@code ORDER BY} are
   * ordered: a function of the row's position, or a {@code ROWS} frame over ordered rows.
   */
  static boolean tieSensitive(RexOver over) {
    return ORDER_OF_TIES.contains(over.getAggOperator().getKind())
        || over.getWindow().isRows() && !over.getWindow().orderKeys.isEmpty();
  }

  /**
   * Whether {@code expression} divides window functions in exact arithmetic: Calcite's expansion of
   * {@code AVG}, {@code STDDEV} and {@code VARIANCE} over a window of exact numbers, whose value
   * (an exact quotient, cast) differs from DuckDB's.
   */
  static boolean exactQuotient(RexNode expression) {
    boolean[] found = {false};
    expression.accept(
        new RexVisitorImpl<Void>(true) {
          @Override
          public Void visitCall(RexCall call) {
            if (call.getKind() == SqlKind.DIVIDE
                && RexOver.containsOver(call)
                && !SqlTypeUtil.isApproximateNumeric(call.getType())) {
              found[0] = true;
            }
            return super.visitCall(call);
          }
        });
    return found[0];
  }

  /** Whether the partition and order columns of {@code over} hold a key of the window's input. */
  static boolean orderedByKey(RexOver over, Project window) {
    List<Integer> key = RowKeys.of(window.getInput());
    if (key.isEmpty()) {
      return false;
    }
    Set<Integer> columns = new HashSet<>();
    for (RexNode e : over.getWindow().partitionKeys) {
      if (e instanceof RexInputRef ref) {
        columns.add(ref.getIndex());
      }
    }
    for (RexFieldCollation e : over.getWindow().orderKeys) {
      if (e.left instanceof RexInputRef ref) {
        columns.add(ref.getIndex());
      }
    }
    return columns.containsAll(key);
  }
}
