package org.calciteivm.rules.frontend;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.externalize.RelWriterImpl;
import org.apache.calcite.sql.SqlExplainLevel;
import org.apache.calcite.util.Pair;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A plan as Calcite explains it, one operator per line, with a large subplan that the plan reads in
 * several places written out once. A delta plan is a graph: the change of an outer join's input is
 * read by several terms, and so on down a chain of outer joins, so written as a tree its text would
 * grow exponentially with the chain's length. A repeated subplan of at least {@link #LARGE}
 * operators is written again as one line: its operator, and the line of the plan it was first
 * written at.
 */
public final class PlanText extends RelWriterImpl {
  /** The fewest operators of a subplan that is written once: smaller ones are written in full. */
  static final int LARGE = 8;

  private final StringWriter text;
  private final boolean withInputs;
  private final Map<RelNode, Integer> writtenAt = new IdentityHashMap<>();
  private final Map<RelNode, Integer> sizes = new IdentityHashMap<>();
  private int lines;

  private PlanText(StringWriter text, boolean withInputs) {
    super(new PrintWriter(text), SqlExplainLevel.EXPPLAN_ATTRIBUTES, false);
    this.text = text;
    this.withInputs = withInputs;
  }

  /** The text of {@code rel}. */
  public static String of(RelNode rel) {
    return write(rel, true);
  }

  /**
   * The line of {@code rel}'s own operator and attributes, without its inputs: two subplans are
   * written alike when their operators' lines are equal and so are their inputs'.
   */
  public static String ownLine(RelNode rel) {
    return write(rel, false);
  }

  private static String write(RelNode rel, boolean withInputs) {
    PlanText writer = new PlanText(new StringWriter(), withInputs);
    rel.explain(writer);
    writer.pw.flush();
    return writer.text.toString();
  }

  @Override
  protected void explain_(RelNode rel, List<Pair<String, @Nullable Object>> values) {
    if (!withInputs) {
      StringBuilder own = new StringBuilder(rel.getRelTypeName()).append('(');
      for (Pair<String, @Nullable Object> value : values) {
        if (!(value.right instanceof RelNode)) {
          own.append(value.left).append("=[").append(value.right).append("], ");
        }
      }
      pw.print(own.append(')'));
      return;
    }
    Integer line = writtenAt.get(rel);
    lines++;
    if (line != null && size(rel) >= LARGE) {
      pw.println(spacer + rel.getRelTypeName() + " (as written at line " + line + " of this plan)");
      return;
    }
    writtenAt.putIfAbsent(rel, lines);
    super.explain_(rel, values);
  }

  /** The operators of {@code rel}'s subplan, each counted once, up to {@link #LARGE}. */
  private int size(RelNode rel) {
    Integer known = sizes.get(rel);
    if (known != null) {
      return known;
    }
    int size = 1;
    for (RelNode input : rel.getInputs()) {
      size = Math.min(LARGE, size + size(input));
    }
    sizes.put(rel, size);
    return size;
  }
}
