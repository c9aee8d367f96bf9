package org.calciteivm.rules.sql;

import java.util.function.UnaryOperator;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;

/**
 * Rewrites a plan node by node, inputs first: the shape of every plan fix before SQL is written.
 */
final class BottomUp {
  private BottomUp() {}

  /** {@code plan} with {@code fix} applied to every node, after the node's inputs were fixed. */
  static RelNode rewrite(RelNode plan, UnaryOperator<RelNode> fix) {
    return plan.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode other) {
            return fix.apply(super.visit(other));
          }
        });
  }
}
