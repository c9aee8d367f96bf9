package org.calciteivm.rules.frontend;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.logical.LogicalAggregate;
import org.apache.calcite.rel.logical.LogicalProject;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexVisitorImpl;
import org.apache.calcite.sql.SqlAggFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.util.Optionality;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The first or last element of an ordered list aggregate, {@code (array_agg(x ORDER BY y))[1]} or
 * {@code [-1]}, folded into the aggregate {@code first(x ORDER BY y)} or {@code last(x ORDER BY y)}
 * of a database that has them (DuckDB): both give the value of the first or last row in that order,
 * NULL included, but the fold keeps one value per group where the list kept every row's. That is
 * how a view writes DuckDB's {@code first(x ORDER BY y)}, which Calcite's parser does not read.
 *
 * <p>Only a list used for that element alone, by the projection right above its aggregate, is
 * folded; any other use keeps the list.
 */
public final class ListElementAggregates {
  private ListElementAggregates() {}

  /** DuckDB's {@code first}: the value of the first row in the call's order, NULL included. */
  public static final SqlAggFunction FIRST = element("first");

  /** DuckDB's {@code last}: the value of the last row in the call's order, NULL included. */
  public static final SqlAggFunction LAST = element("last");

  private static SqlAggFunction element(String name) {
    return new SqlAggFunction(
        name,
        null,
        SqlKind.OTHER_FUNCTION,
        ReturnTypes.ARG0_FORCE_NULLABLE,
        null,
        OperandTypes.ANY,
        SqlFunctionCategory.SYSTEM,
        false,
        false,
        Optionality.OPTIONAL) {};
  }

  /** {@code rel} with each list aggregate used only for its first or last element folded. */
  public static RelNode fold(RelNode rel) {
    return rel.accept(
        new RelShuttleImpl() {
          @Override
          public RelNode visit(LogicalProject project) {
            RelNode visited = super.visit(project);
            return visited instanceof LogicalProject p
                    && p.getInput() instanceof LogicalAggregate aggregate
                ? folded(p, aggregate)
                : visited;
          }
        });
  }

  private static RelNode folded(LogicalProject project, LogicalAggregate aggregate) {
    int groups = aggregate.getGroupCount();
    List<AggregateCall> calls = new ArrayList<>(aggregate.getAggCallList());
    // (list field, element) -> the field of its folded aggregate
    Map<List<Integer>, Integer> foldedFields = new HashMap<>();
    for (int i = 0; i < aggregate.getAggCallList().size(); i++) {
      AggregateCall call = calls.get(i);
      if (!call.getAggregation().getName().equalsIgnoreCase("ARRAY_AGG")
          || call.isDistinct()
          || call.collation.getFieldCollations().isEmpty()) {
        continue;
      }
      Map<Integer, RexCall> elements = elementsOnly(project.getProjects(), groups + i);
      // first(x ORDER BY y) and last(x ORDER BY y) in one query are one list to Calcite
      for (Map.Entry<Integer, RexCall> element : elements.entrySet()) {
        AggregateCall folded =
            AggregateCall.create(
                element.getKey() == 1 ? FIRST : LAST,
                false,
                call.isApproximate(),
                call.ignoreNulls(),
                call.rexList,
                call.getArgList(),
                call.filterArg,
                call.distinctKeys,
                call.collation,
                element.getValue().getType(),
                call.getName());
        int target = calls.get(i) == call ? groups + i : groups + calls.size();
        if (target == groups + i) {
          calls.set(i, folded);
        } else {
          calls.add(folded);
        }
        foldedFields.put(List.of(groups + i, element.getKey()), target);
      }
    }
    if (foldedFields.isEmpty()) {
      return project;
    }
    LogicalAggregate foldedAggregate =
        aggregate.copy(
            aggregate.getTraitSet(),
            aggregate.getInput(),
            aggregate.getGroupSet(),
            aggregate.getGroupSets(),
            calls);
    RexShuttle elementsToValues =
        new RexShuttle() {
          @Override
          public RexNode visitCall(RexCall call) {
            Integer field =
                call.operands.get(0) instanceof RexInputRef list && elementIndex(call) != null
                    ? foldedFields.get(List.of(list.getIndex(), elementIndex(call)))
                    : null;
            return field != null ? new RexInputRef(field, call.getType()) : super.visitCall(call);
          }
        };
    List<RexNode> projects = elementsToValues.apply(project.getProjects());
    return project.copy(project.getTraitSet(), foldedAggregate, projects, project.getRowType());
  }

  /**
   * The uses of field {@code field} in {@code expressions} by element, {@code [1]} or {@code [-1]},
   * one of each; empty if another use reads the field otherwise.
   */
  private static Map<Integer, RexCall> elementsOnly(List<RexNode> expressions, int field) {
    Map<Integer, RexCall> elements = new TreeMap<>(Comparator.reverseOrder());
    boolean[] otherUse = {false};
    RexVisitorImpl<Void> uses =
        new RexVisitorImpl<Void>(true) {
          @Override
          public Void visitCall(RexCall call) {
            Integer index = elementIndex(call);
            if (index != null
                && call.operands.get(0) instanceof RexInputRef ref
                && ref.getIndex() == field) {
              elements.putIfAbsent(index, call);
              return null;
            }
            return super.visitCall(call);
          }

          @Override
          public Void visitInputRef(RexInputRef ref) {
            otherUse[0] |= ref.getIndex() == field;
            return null;
          }
        };
    expressions.forEach(expression -> expression.accept(uses));
    return otherUse[0] ? Map.of() : elements;
  }

  /** {@code 1} or {@code -1} if {@code call} is {@code list[1]} or {@code list[-1]}, else null. */
  private static @Nullable Integer elementIndex(RexCall call) {
    if (call.getKind() != SqlKind.ITEM) {
      return null;
    }
    RexNode index = call.operands.get(1);
    if (index instanceof RexCall minus
        && minus.getKind() == SqlKind.MINUS_PREFIX
        && minus.operands.get(0) instanceof RexLiteral one
        && one.getValueAs(Integer.class) != null
        && one.getValueAs(Integer.class) == 1) {
      return -1;
    }
    Integer value = index instanceof RexLiteral literal ? literal.getValueAs(Integer.class) : null;
    return value != null && (value == 1 || value == -1) ? value : null;
  }
}
