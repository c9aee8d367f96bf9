package org.calciteivm.rules.sql;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelShuttleImpl;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.logical.LogicalJoin;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.rules.IvmRelBuilders;
import org.calciteivm.rules.delta.ChangeDistinctRule;

/**
 * Joins with a {@code DISTINCT} (an {@code EXISTS} or {@code IN} subquery) written as semi-joins,
 * for SQL that computes a view from scratch: DuckDB runs a semi-join by probing the subquery's rows
 * against a hash of the outer ones, where a join with a {@code DISTINCT} first hashes every
 * distinct value of the subquery (TPC-H Q4 at SF 1: 216 ms against 32 ms). Not for delta plans,
 * whose terms join changes with the {@code DISTINCT}.
 *
 * <p>Identity: for {@code D} a set and a condition of equalities {@code x_i = d_i} covering {@code
 * D}'s columns, {@code X ⋈ D = π_{X, d_i := x_i}(X ⋉ D)}: each row of {@code X} joins at most one
 * row of {@code D}, whose columns equal the row's {@code x_i}; constants projected above {@code D}
 * stay constants. A semi-join needs no set, so it reads the rows below the {@code DISTINCT}. The
 * subquery's columns are renamed apart, so that in the {@code EXISTS} Calcite writes for the
 * semi-join an unqualified outer column cannot name one of them.
 */
public final class SemiJoins {
  private SemiJoins() {}

  /**
   * {@code rel} with its joins with a {@code DISTINCT} made semi-joins where the identity holds.
   */
  public static RelNode of(RelNode rel) {
    return rel.accept(
        new RelShuttleImpl() {
          @Override
          public RelNode visit(LogicalJoin join) {
            LogicalJoin visited = (LogicalJoin) super.visit(join);
            RelNode semi = semiJoin(visited);
            return semi == null ? visited : semi;
          }
        });
  }

  private static RelNode semiJoin(LogicalJoin join) {
    if (join.getJoinType() != JoinRelType.INNER || filtersAJoin(join.getLeft())) {
      return null;
    }
    RelNode right = join.getRight();
    Project project = right instanceof Project p ? p : null;
    RelNode below = project == null ? right : project.getInput();
    if (!(below instanceof Aggregate distinct) || !ChangeDistinctRule.isDistinct(distinct)) {
      return null;
    }
    int leftColumns = join.getLeft().getRowType().getFieldCount();
    int rightColumns = right.getRowType().getFieldCount();
    // for each column of the DISTINCT, the left column it equals
    int[] equalLeft = new int[distinct.getRowType().getFieldCount()];
    Arrays.fill(equalLeft, -1);
    for (RexNode conjunct : RelOptUtil.conjunctions(join.getCondition())) {
      if (conjunct.getKind() != SqlKind.EQUALS
          || !(conjunct instanceof RexCall call)
          || !(call.getOperands().get(0) instanceof RexInputRef a)
          || !(call.getOperands().get(1) instanceof RexInputRef b)) {
        return null;
      }
      RexInputRef left = a.getIndex() < leftColumns ? a : b;
      RexInputRef other = left == a ? b : a;
      if (left.getIndex() >= leftColumns || other.getIndex() < leftColumns) {
        return null;
      }
      int column = other.getIndex() - leftColumns;
      if (project != null) {
        if (!(project.getProjects().get(column) instanceof RexInputRef ref)) {
          return null;
        }
        column = ref.getIndex();
      }
      equalLeft[column] = left.getIndex();
    }
    for (int left : equalLeft) {
      if (left < 0) {
        return null; // a column of D no equality pins: a row of X may join several rows of D
      }
    }
    RexBuilder rex = join.getCluster().getRexBuilder();
    RelBuilder builder = IvmRelBuilders.create(join.getCluster());
    builder.push(join.getLeft());
    // the rows below the DISTINCT (a semi-join needs no set), D's columns renamed apart from the
    // outer ones
    List<String> names = new ArrayList<>();
    for (int i = 0; i < equalLeft.length; i++) {
      names.add("ivm_semi_" + i);
    }
    builder.push(distinct.getInput());
    builder.project(
        distinct.getGroupSet().asList().stream().map(builder::field).toList(), names, true);
    List<RexNode> condition = new ArrayList<>();
    for (int i = 0; i < equalLeft.length; i++) {
      condition.add(builder.equals(builder.field(2, 0, equalLeft[i]), builder.field(2, 1, i)));
    }
    builder.join(JoinRelType.SEMI, condition);
    List<RexNode> columns = new ArrayList<>(builder.fields());
    for (int i = 0; i < rightColumns; i++) {
      RexNode value;
      if (project == null) {
        value = builder.field(equalLeft[i]);
      } else if (project.getProjects().get(i) instanceof RexInputRef ref) {
        value = builder.field(equalLeft[ref.getIndex()]);
      } else if (project.getProjects().get(i) instanceof RexLiteral literal) {
        value = literal;
      } else {
        return null;
      }
      columns.add(
          rex.makeCast(right.getRowType().getFieldList().get(i).getType(), value, true, false));
    }
    builder.project(columns, join.getRowType().getFieldNames(), true);
    return builder.build();
  }

  /**
   * Whether {@code rel} filters a join, as a {@code WHERE} above an outer join does: Calcite writes
   * a semi-join over it as {@code EXISTS} naming the outer side by an alias the query does not
   * define (a binder error in DuckDB), so such a join keeps its {@code DISTINCT}.
   */
  private static boolean filtersAJoin(RelNode rel) {
    return rel instanceof Filter filter && filter.getInput() instanceof Join;
  }
}
