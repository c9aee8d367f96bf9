package org.calciteivm.rules;

import org.apache.calcite.plan.hep.HepMatchOrder;
import org.apache.calcite.plan.hep.HepProgram;
import org.apache.calcite.plan.hep.HepProgramBuilder;

/**
 * Named Hep programs, one per stage of the pipeline. Hep rather than Volcano: the rewrites are
 * deterministic and cost-free, and planning time must stay in milliseconds.
 */
public final class IvmPrograms {
  private IvmPrograms() {}

  /**
   * Derives the delta plan: given {@code LogicalDelta(view)}, pushes the delta marker down to the
   * scans and replaces it there by the delta relations of the base tables.
   */
  public static HepProgram delta() {
    return new HepProgramBuilder()
        .addMatchOrder(HepMatchOrder.TOP_DOWN)
        .addRuleCollection(IvmRules.DELTA_RULES)
        .build();
  }
}
