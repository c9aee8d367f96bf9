package org.calciteivm.rules.frontend;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexUtil;
import org.apache.calcite.sql.SqlKind;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Gives IN lists back their shape. Calcite's SQL-to-plan conversion turns {@code x IN (1, 2, 3)}
 * into {@code x = 1 OR x = 2 OR x = 3}; written back for DuckDB as that disjunction, a list of
 * 10,000 values makes every refresh statement take seconds, where DuckDB evaluates the IN list in
 * milliseconds. This pass turns the equalities of a disjunction that compare one expression with
 * literals back into one {@code SEARCH} over their points, which Calcite writes as {@code x IN (1,
 * 2, 3)} (and runs on its own engine as well).
 *
 * <p>Exact: {@code x = a OR x = b} and {@code x IN (a, b)} are the same three-valued predicate
 * (true if x equals one of them, NULL if x is NULL, false otherwise), and disjunction is
 * commutative, so regrouping its terms changes nothing. Only non-NULL literals of the compared
 * expression's type family are grouped; other terms stay as they are.
 */
final class InLists extends RexShuttle {
  private final RexBuilder rexBuilder;

  private InLists(RexBuilder rexBuilder) {
    this.rexBuilder = rexBuilder;
  }

  /** {@code rel} with every disjunction of equalities with literals written as an IN list. */
  static RelNode restore(RelNode rel) {
    InLists inLists = new InLists(rel.getCluster().getRexBuilder());
    return rel.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode other) {
            return super.visit(other).accept(inLists);
          }
        });
  }

  @Override
  public RexNode visitCall(RexCall call) {
    RexNode visited = super.visitCall(call);
    if (visited.getKind() != SqlKind.OR) {
      return visited;
    }
    List<RexNode> terms = RexUtil.flattenOr(((RexCall) visited).getOperands());
    // per compared expression, the literals it is compared with, in order of appearance
    Map<RexNode, List<RexNode>> points = new LinkedHashMap<>();
    for (RexNode term : terms) {
      RexNode compared = comparedWithLiteral(term);
      if (compared != null) {
        points.computeIfAbsent(compared, k -> new ArrayList<>()).add(literalOf(term));
      }
    }
    if (points.values().stream().allMatch(list -> list.size() < 2)) {
      return visited;
    }
    List<RexNode> result = new ArrayList<>();
    Set<RexNode> grouped = new HashSet<>();
    for (RexNode term : terms) {
      RexNode compared = comparedWithLiteral(term);
      if (compared == null || points.get(compared).size() < 2) {
        result.add(term);
      } else if (grouped.add(compared)) {
        // the whole group takes the place of its first term
        result.add(rexBuilder.makeIn(compared, points.get(compared)));
      }
    }
    return result.size() == 1 ? result.get(0) : rexBuilder.makeCall(call.getOperator(), result);
  }

  /** The expression {@code term} compares with a non-NULL literal by {@code =}, or null. */
  private static @Nullable RexNode comparedWithLiteral(RexNode term) {
    if (term.getKind() != SqlKind.EQUALS) {
      return null;
    }
    List<RexNode> operands = ((RexCall) term).getOperands();
    if (isValue(operands.get(1)) && !(operands.get(0) instanceof RexLiteral)) {
      return operands.get(0);
    }
    if (isValue(operands.get(0)) && !(operands.get(1) instanceof RexLiteral)) {
      return operands.get(1);
    }
    return null;
  }

  private static RexNode literalOf(RexNode term) {
    List<RexNode> operands = ((RexCall) term).getOperands();
    return isValue(operands.get(1)) ? operands.get(1) : operands.get(0);
  }

  private static boolean isValue(RexNode node) {
    return node instanceof RexLiteral && !((RexLiteral) node).isNull();
  }
}
