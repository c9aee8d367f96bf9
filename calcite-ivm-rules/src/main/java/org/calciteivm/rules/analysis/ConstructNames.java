package org.calciteivm.rules.analysis;

import java.util.List;
import java.util.Locale;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Collect;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.Intersect;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Match;
import org.apache.calcite.rel.core.Minus;
import org.apache.calcite.rel.core.RepeatUnion;
import org.apache.calcite.rel.core.Sample;
import org.apache.calcite.rel.core.Snapshot;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.Spool;
import org.apache.calcite.rel.core.TableFunctionScan;
import org.apache.calcite.rel.core.TableModify;
import org.apache.calcite.rel.core.Uncollect;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The SQL constructs users wrote, named for refusals: the construct an operator comes from, an
 * aggregate's name as written (not Calcite's {@code $SUM0} or its expansion of a windowed {@code
 * SUM} or {@code AVG}), the kind of a subquery.
 */
final class ConstructNames {
  /** A {@code LIMIT}, {@code OFFSET} or {@code FETCH} below the top of a view. */
  static final String LIMIT = "LIMIT/OFFSET";

  private ConstructNames() {}

  /**
   * The SQL construct an operator without a delta rule comes from, as users wrote it (never
   * Calcite's class name, unless no SQL construct is known to produce the operator).
   */
  static String describe(RelNode rel) {
    if (rel instanceof Join join) {
      return join.getJoinType().name().toLowerCase(Locale.ROOT).replace('_', ' ') + " join";
    }
    if (rel instanceof Correlate) {
      return "a correlated subquery or LATERAL";
    }
    if (rel instanceof Sort sort) {
      if (sort.fetch != null || sort.offset != null) {
        return LIMIT;
      }
      return "ORDER BY (a materialized view is a bag; order rows when you query it)";
    }
    if (rel instanceof RepeatUnion || rel instanceof Spool) {
      return "a recursive query (WITH RECURSIVE)";
    }
    if (rel instanceof Union union) {
      return union.all ? "UNION ALL" : "UNION";
    }
    if (rel instanceof Intersect intersect) {
      return intersect.all ? "INTERSECT ALL" : "INTERSECT";
    }
    if (rel instanceof Minus minus) {
      return minus.all ? "EXCEPT ALL" : "EXCEPT";
    }
    if (rel instanceof Values) {
      return "VALUES";
    }
    if (rel instanceof Window window) {
      return window.groups.stream()
          .flatMap(g -> g.aggCalls.stream())
          .map(c -> "window function " + aggregateName(c.getOperator()) + "(...) OVER (...)")
          .findFirst()
          .orElse("a window function");
    }
    if (rel instanceof TableFunctionScan scan) {
      return scan.getCall() instanceof RexCall call
          ? "the table function " + call.getOperator().getName()
          : "a table function";
    }
    if (rel instanceof Uncollect) {
      return "UNNEST";
    }
    if (rel instanceof Collect) {
      return "an ARRAY, MULTISET or MAP subquery";
    }
    if (rel instanceof Sample) {
      return "TABLESAMPLE";
    }
    if (rel instanceof Snapshot) {
      return "FOR SYSTEM_TIME AS OF";
    }
    if (rel instanceof Match) {
      return "MATCH_RECOGNIZE";
    }
    if (rel instanceof TableModify) {
      return "a data change (INSERT, UPDATE, DELETE or MERGE)";
    }
    // not made from SQL by Calcite's converter; a plan given to the library may hold it
    return "the relational operator " + rel.getRelTypeName();
  }

  /**
   * The name of an aggregate as users write it: {@code $SUM0} is Calcite's SUM, and Calcite turns
   * STRING_AGG (and GROUP_CONCAT) into LISTAGG.
   */
  static String aggregateName(SqlOperator aggregate) {
    return switch (aggregate.getKind()) {
      case SUM0 -> "SUM";
      case LISTAGG -> "STRING_AGG/LISTAGG";
      default -> aggregate.getName();
    };
  }

  /**
   * The window function {@code call} is Calcite's expansion of, or null: {@code SUM(x) OVER w}
   * becomes {@code CASE WHEN COUNT(x) OVER w > 0 THEN SUM(x) OVER w ELSE NULL END} and {@code
   * AVG(x) OVER w} that (or the bare SUM) divided by {@code COUNT(x) OVER w}, which would otherwise
   * be reported as the COUNT the user never wrote.
   */
  static @Nullable String expandedWindowFunction(RexCall call) {
    if (call.getKind() == SqlKind.DIVIDE
        && windowedSum(call.getOperands().get(0))
        && windowed(call.getOperands().get(1), SqlKind.COUNT)) {
      return "AVG";
    }
    return windowedSum(call) ? "SUM" : null;
  }

  /** {@code SUM(x) OVER w} or its expansion with a count, possibly cast. */
  static boolean windowedSum(RexNode node) {
    RexNode e = stripCasts(node);
    if (windowed(e, SqlKind.SUM) || windowed(e, SqlKind.SUM0)) {
      return true;
    }
    if (!(e instanceof RexCall when) || when.getKind() != SqlKind.CASE) {
      return false;
    }
    List<RexNode> operands = when.getOperands();
    return operands.size() == 3
        && operands.get(0) instanceof RexCall positive
        && positive.getKind() == SqlKind.GREATER_THAN
        && windowed(positive.getOperands().get(0), SqlKind.COUNT)
        && (windowed(stripCasts(operands.get(1)), SqlKind.SUM)
            || windowed(stripCasts(operands.get(1)), SqlKind.SUM0));
  }

  static boolean windowed(RexNode node, SqlKind aggregate) {
    return stripCasts(node) instanceof RexOver over && over.getAggOperator().getKind() == aggregate;
  }

  static RexNode stripCasts(RexNode node) {
    RexNode e = node;
    while (e instanceof RexCall cast && cast.getKind() == SqlKind.CAST) {
      e = cast.getOperands().get(0);
    }
    return e;
  }

  /** The kind of subquery, as written. */
  static String describe(RexSubQuery subQuery) {
    switch (subQuery.getKind()) {
      case IN:
        return "a subquery (IN)";
      case SOME:
        return "a subquery (ANY/SOME/ALL)";
      case EXISTS:
        return "a subquery (EXISTS)";
      case SCALAR_QUERY:
        return "a scalar subquery";
      case UNIQUE:
        return "a subquery (UNIQUE)";
      case ARRAY_QUERY_CONSTRUCTOR:
      case MULTISET_QUERY_CONSTRUCTOR:
      case MAP_QUERY_CONSTRUCTOR:
        return "a subquery (ARRAY, MULTISET or MAP)";
      default:
        return "a subquery";
    }
  }
}
