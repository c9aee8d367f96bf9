package org.calciteivm.rules.analysis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexFieldCollation;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexVisitorImpl;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * Which window functions a view can keep by recomputing their partitions: those whose value depends
 * only on the rows of the partition (not on how rows that tie in its {@code ORDER BY} are ordered),
 * and whose arithmetic DuckDB and Calcite agree on.
 */
final class WindowFunctions {
  private WindowFunctions() {}

  static boolean hasWindow(Project project) {
    return project.getProjects().stream().anyMatch(RexOver::containsOver);
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

  /**
   * Whether the partition and order columns of {@code over} hold columns no two rows of the
   * window's input agree on ({@link RowKeys#distinguishing}), so that none tie.
   */
  static boolean orderedByKey(RexOver over, Project window) {
    List<Integer> key = RowKeys.distinguishing(window.getInput());
    return !key.isEmpty() && keyColumns(over).containsAll(key);
  }

  /**
   * Whether rows that tie in {@code over}'s partition and order cannot be told apart in the result
   * of {@code window}, so that how DuckDB orders them changes no row of it: every column of the
   * input that {@code window} reads is a partition or order column of {@code over} (as in {@code
   * SELECT DISTINCT ON (k) k, t ... ORDER BY k, t}), and no other window function of {@code window}
   * depends on the order of ties (two numberings of the same rows could pair their numbers either
   * way).
   */
  static boolean tiesInvisible(RexOver over, Project window) {
    ImmutableBitSet read = RelOptUtil.InputFinder.bits(window.getProjects(), null);
    if (!keyColumns(over).containsAll(read.asList())) {
      return false;
    }
    List<RexOver> orderDependent =
        window.getProjects().stream()
            .flatMap(e -> overs(e).stream())
            .filter(o -> tieSensitive(o) && !orderedByKey(o, window))
            .toList();
    // SUM(x) OVER w is Calcite's COUNT(x) OVER w and SUM(x) OVER w: one function the user wrote
    return orderDependent.stream().filter(o -> !countOfSum(o, orderDependent)).count() == 1;
  }

  /** Whether {@code over} is the COUNT of Calcite's expansion of a SUM among {@code overs}. */
  private static boolean countOfSum(RexOver over, List<RexOver> overs) {
    return over.getAggOperator().getKind() == SqlKind.COUNT
        && overs.stream()
            .anyMatch(
                o ->
                    (o.getAggOperator().getKind() == SqlKind.SUM
                            || o.getAggOperator().getKind() == SqlKind.SUM0)
                        && o.getWindow().equals(over.getWindow())
                        && o.getOperands().equals(over.getOperands()));
  }

  /** The input columns {@code over} partitions or orders by. */
  private static Set<Integer> keyColumns(RexOver over) {
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
    return columns;
  }

  /**
   * The function the user wrote for each window function of {@code expression} that is part of
   * Calcite's expansion of another ({@link ConstructNames#expandedWindowFunction}): the COUNT of
   * {@code SUM(x) OVER w} is named SUM.
   */
  static Map<RexOver, String> writtenNames(RexNode expression) {
    Map<RexOver, String> written = new HashMap<>();
    expression.accept(
        new RexVisitorImpl<Void>(true) {
          @Override
          public Void visitCall(RexCall call) {
            String expanded = ConstructNames.expandedWindowFunction(call);
            if (expanded != null) {
              overs(call).forEach(over -> written.putIfAbsent(over, expanded));
            }
            return super.visitCall(call);
          }
        });
    return written;
  }
}
