package org.calciteivm.rules.sql;

import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;

/**
 * Rewrites a plan node by node, inputs first: the shape of every plan fix before SQL is written. A
 * node the plan reads in several places (a delta plan reads the change of an outer join's input in
 * several terms) is rewritten once and stays one node, so that a plan that is a graph does not
 * become a tree exponentially larger.
 */
final class BottomUp {
  private BottomUp() {}

  /** {@code plan} with {@code fix} applied to every node, after the node's inputs were fixed. */
  static RelNode rewrite(RelNode plan, UnaryOperator<RelNode> fix) {
    Map<RelNode, RelNode> rewritten = new IdentityHashMap<>();
    return plan.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode other) {
            RelNode known = rewritten.get(other);
            if (known == null) {
              known = fix.apply(super.visit(other));
              rewritten.put(other, known);
            }
            return known;
          }
        });
  }
}
