package org.calciteivm.rules.analysis;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Collect;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Intersect;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Match;
import org.apache.calcite.rel.core.Minus;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.RepeatUnion;
import org.apache.calcite.rel.core.Sample;
import org.apache.calcite.rel.core.Snapshot;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.core.Spool;
import org.apache.calcite.rel.core.TableFunctionScan;
import org.apache.calcite.rel.core.TableModify;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.core.Uncollect;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.core.Window;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexVisitorImpl;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlOperator;
import org.apache.calcite.sql.SqlSyntax;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.rules.aggregate.MaintainedAggregates;
import org.calciteivm.rules.delta.OuterJoinCondition;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Decides whether a view's logical plan can be maintained and how: it names the first construct
 * that cannot, and otherwise returns the view's base tables and merge strategy.
 */
public final class ViewAnalyzer {
  /** The construct refused for an aggregate or DISTINCT with a join above it. */
  public static final String AGGREGATE_BELOW_JOIN = "an aggregate or DISTINCT below a join";

  /** The construct refused for an aggregate or DISTINCT with another one above it. */
  public static final String AGGREGATE_OVER_AGGREGATE = "an aggregate over an aggregate";

  /** How the construct refused for an aggregate of DISTINCT values ends. */
  private static final String DISTINCT_ARGUMENT = "(DISTINCT ...)";

  /**
   * Whether {@code refusal} names a construct that a view can have when it is kept as several
   * stored relations (intermediate states): an aggregate or DISTINCT below a join or below another
   * aggregate, or an aggregate of DISTINCT values. These rules maintain one relation at a time.
   */
  public static boolean needsIntermediateStates(UnsupportedViewException refusal) {
    return refusal.construct().equals(AGGREGATE_BELOW_JOIN)
        || refusal.construct().equals(AGGREGATE_OVER_AGGREGATE)
        || refusal.construct().endsWith(DISTINCT_ARGUMENT);
  }

  private final String viewName;
  private final Set<List<String>> baseTables = new LinkedHashSet<>();
  private @Nullable Aggregate aggregate;

  /** How many joins are above the operator being visited. */
  private int joins;

  /** How many unions are above the operator being visited. */
  private int unions;

  /** Whether the view has an outer join, which an insert into its null-generating input changes. */
  private boolean outerJoin;

  private ViewAnalyzer(String viewName) {
    this.viewName = viewName;
  }

  /**
   * The outcome of a successful analysis.
   *
   * @param baseTables the qualified names of the tables the view reads
   * @param usedColumns per base table, the names of the columns the view reads ({@link
   *     UsedColumns})
   * @param strategy the merge strategy the view's shape needs
   * @param aggregate the view's aggregate, or null for a view without one; above it there are only
   *     projections and filters (evaluated when the view is read), below it only projections,
   *     filters, joins, unions and scans
   * @param monotone whether a change of inserts only can only add rows to the view (and only grow
   *     an aggregate's groups): true unless the view has an outer join, whose padded rows an insert
   *     into the other input removes
   */
  public record Analysis(
      ImmutableList<List<String>> baseTables,
      ImmutableMap<List<String>, ImmutableSet<String>> usedColumns,
      MergeStrategy strategy,
      @Nullable Aggregate aggregate,
      boolean monotone) {}

  /**
   * Analyzes {@code view}, the logical plan of the materialized view {@code viewName}.
   *
   * @throws UnsupportedViewException naming the first construct that cannot be maintained
   */
  public static Analysis analyze(String viewName, RelNode view) throws UnsupportedViewException {
    ViewAnalyzer analyzer = new ViewAnalyzer(viewName);
    analyzer.visit(view);
    if (analyzer.baseTables.isEmpty()) {
      throw UnsupportedViewException.notYet(viewName, "a query without a base table");
    }
    Aggregate aggregate = analyzer.aggregate;
    MergeStrategy strategy;
    if (aggregate == null) {
      strategy = MergeStrategy.BAG_COUNTED;
    } else if (aggregate.getAggCallList().stream()
        .anyMatch(c -> !MaintainedAggregates.of(c).orElseThrow().invertible())) {
      strategy = MergeStrategy.GROUP_RECOMPUTE;
    } else {
      strategy = MergeStrategy.GROUP_MERGE;
    }
    return new Analysis(
        ImmutableList.copyOf(analyzer.baseTables),
        UsedColumns.of(view),
        strategy,
        aggregate,
        !analyzer.outerJoin);
  }

  private void visit(RelNode rel) throws UnsupportedViewException {
    if (rel instanceof TableScan scan) {
      baseTables.add(scan.getTable().getQualifiedName());
    } else if (rel instanceof Join join && maintainedJoin(join.getJoinType())) {
      // the condition refers to the inputs' fields, named as in the inputs (not made unique)
      List<String> fields = new ArrayList<>(join.getLeft().getRowType().getFieldNames());
      fields.addAll(join.getRight().getRowType().getFieldNames());
      checkExpression(join.getCondition(), fields);
      if (join.getJoinType() != JoinRelType.INNER) {
        checkOuterJoin(join);
      }
      joins++;
    } else if (rel instanceof Filter filter) {
      checkExpression(filter.getCondition(), filter.getInput().getRowType().getFieldNames());
    } else if (rel instanceof Project project) {
      for (RexNode e : project.getProjects()) {
        checkExpression(e, project.getInput().getRowType().getFieldNames());
      }
    } else if (rel instanceof Union union && union.all) {
      unions++;
    } else if (rel instanceof Aggregate && unions > 0) {
      throw UnsupportedViewException.notYet(
          viewName,
          "an aggregate or DISTINCT below UNION ALL",
          "aggregate after the union instead, or make each branch a materialized view");
    } else if (rel instanceof Aggregate distinct && joins > 0 && distinctRows(distinct)) {
      // a set of rows, whose change the rules derive from its input's (ChangeDistinctRule)
    } else if (rel instanceof Aggregate && joins > 0) {
      throw UnsupportedViewException.notYet(
          viewName, AGGREGATE_BELOW_JOIN, "aggregate after joining instead");
    } else if (rel instanceof Aggregate found && aggregate == null) {
      checkAggregate(found);
      aggregate = found;
    } else if (rel instanceof Aggregate) {
      throw UnsupportedViewException.notYet(viewName, AGGREGATE_OVER_AGGREGATE);
    } else {
      throw UnsupportedViewException.notYet(viewName, describe(rel));
    }
    for (RelNode input : rel.getInputs()) {
      visit(input);
    }
    if (rel instanceof Join) {
      joins--;
    }
    if (rel instanceof Union) {
      unions--;
    }
  }

  /** Whether {@code aggregate} is a {@code DISTINCT}: grouped, without aggregate calls. */
  private static boolean distinctRows(Aggregate aggregate) {
    return aggregate.getAggCallList().isEmpty()
        && aggregate.getGroupType() == Aggregate.Group.SIMPLE
        && !aggregate.getGroupSet().isEmpty();
  }

  private static boolean maintainedJoin(JoinRelType type) {
    return type == JoinRelType.INNER
        || type == JoinRelType.LEFT
        || type == JoinRelType.RIGHT
        || type == JoinRelType.FULL;
  }

  /** Refuses an outer join whose matches the rules cannot derive ({@link OuterJoinCondition}). */
  private void checkOuterJoin(Join join) throws UnsupportedViewException {
    outerJoin = true;
    if (OuterJoinCondition.of(join).isEmpty()) {
      throw UnsupportedViewException.notYet(
          viewName,
          describe(join)
              + " whose ON condition is not equalities between its sides"
              + " and conditions on one side",
          "write the condition as l.x = r.y AND ... with conditions on one input each");
    }
  }

  private void checkAggregate(Aggregate found) throws UnsupportedViewException {
    if (found.getGroupType() != Aggregate.Group.SIMPLE) {
      throw UnsupportedViewException.notYet(viewName, "GROUPING SETS, ROLLUP or CUBE");
    }
    for (AggregateCall call : found.getAggCallList()) {
      String name = aggregateName(call.getAggregation());
      if (call.isDistinct() && !call.isApproximate()) {
        throw UnsupportedViewException.notYet(
            viewName,
            "aggregate " + name + DISTINCT_ARGUMENT,
            "count over a DISTINCT subquery instead: SELECT k, COUNT(x) FROM"
                + " (SELECT DISTINCT k, x FROM ...) d GROUP BY k");
      }
      String never = MaintainedAggregates.neverMaintained(call);
      if (never != null && call.collation.getFieldCollations().isEmpty()) {
        throw UnsupportedViewException.never(viewName, "aggregate " + name, "its value " + never);
      }
      if (MaintainedAggregates.of(call).isEmpty()) {
        throw UnsupportedViewException.notYet(
            viewName, "aggregate " + name, "maintained: " + MaintainedAggregates.NAMES);
      }
      List<RelDataType> argumentTypes = new ArrayList<>();
      call.getArgList()
          .forEach(
              i ->
                  argumentTypes.add(found.getInput().getRowType().getFieldList().get(i).getType()));
      String refusal = MaintainedAggregates.of(call).orElseThrow().refusal(argumentTypes);
      if (refusal != null) {
        throw UnsupportedViewException.notYet(viewName, "aggregate " + name + " " + refusal);
      }
      if (!call.collation.getFieldCollations().isEmpty()) {
        throw UnsupportedViewException.notYet(viewName, "aggregate " + name + " WITHIN GROUP");
      }
    }
  }

  /**
   * The SQL construct an operator without a delta rule comes from, as users wrote it (never
   * Calcite's class name, unless no SQL construct is known to produce the operator).
   */
  private static String describe(RelNode rel) {
    if (rel instanceof Join join) {
      return join.getJoinType().name().toLowerCase(Locale.ROOT).replace('_', ' ') + " join";
    }
    if (rel instanceof Correlate) {
      return "a correlated subquery or LATERAL";
    }
    if (rel instanceof Sort sort) {
      if (sort.fetch != null || sort.offset != null) {
        return "LIMIT/OFFSET";
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
   * Refuses the first construct of {@code expression} that cannot be maintained; {@code input}
   * names the fields its references point at, for the message.
   */
  private void checkExpression(RexNode expression, List<String> input)
      throws UnsupportedViewException {
    List<UnsupportedViewException> problems = new ArrayList<>();
    expression.accept(
        new RexVisitorImpl<Void>(true) {
          @Override
          public Void visitCall(RexCall call) {
            if (!problems.isEmpty()) {
              return null;
            }
            String window = expandedWindowFunction(call);
            if (window != null) {
              problems.add(windowFunction(window));
              return null;
            }
            problems.addAll(problemsOf(call, input));
            return super.visitCall(call);
          }

          @Override
          public Void visitOver(RexOver over) {
            if (problems.isEmpty()) {
              problems.add(windowFunction(aggregateName(over.getAggOperator())));
            }
            return null;
          }

          @Override
          public Void visitSubQuery(RexSubQuery subQuery) {
            if (problems.isEmpty()) {
              problems.add(UnsupportedViewException.notYet(viewName, describe(subQuery)));
            }
            return null;
          }

          @Override
          public Void visitLiteral(RexLiteral literal) {
            if (problems.isEmpty() && SessionTimeZone.zonedLiteral(literal)) {
              problems.add(timeZoneDependent(ExpressionText.of(literal, input)));
            }
            return null;
          }
        });
    if (!problems.isEmpty()) {
      throw problems.get(0);
    }
  }

  private List<UnsupportedViewException> problemsOf(RexCall call, List<String> input) {
    if (call.getOperator().isDynamicFunction() || !call.getOperator().isDeterministic()) {
      return List.of(
          UnsupportedViewException.never(
              viewName,
              "non-deterministic function "
                  + call.getOperator().getName()
                  + (call.getOperator().getSyntax() == SqlSyntax.FUNCTION_ID ? "" : "()"),
              "its value changes without any change to the base tables"));
    }
    if (SessionTimeZone.dependsOnTimeZone(call)) {
      return List.of(timeZoneDependent(ExpressionText.of(call, input)));
    }
    return List.of();
  }

  private UnsupportedViewException timeZoneDependent(String expression) {
    return UnsupportedViewException.never(
        viewName,
        "the expression " + expression,
        "its value depends on the session's TimeZone setting, which can differ from one refresh"
            + " to the next; select, compare or group TIMESTAMP WITH TIME ZONE values as they"
            + " are, or name the zone, as in timezone('UTC', tz)");
  }

  private UnsupportedViewException windowFunction(String name) {
    return UnsupportedViewException.notYet(
        viewName, "window function " + name + "(...) OVER (...)");
  }

  /**
   * The name of an aggregate as users write it: {@code $SUM0} is Calcite's SUM, and Calcite turns
   * STRING_AGG (and GROUP_CONCAT) into LISTAGG.
   */
  private static String aggregateName(SqlOperator aggregate) {
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
  private static @Nullable String expandedWindowFunction(RexCall call) {
    if (call.getKind() == SqlKind.DIVIDE
        && windowedSum(call.getOperands().get(0))
        && windowed(call.getOperands().get(1), SqlKind.COUNT)) {
      return "AVG";
    }
    return windowedSum(call) ? "SUM" : null;
  }

  /** {@code SUM(x) OVER w} or its expansion with a count, possibly cast. */
  private static boolean windowedSum(RexNode node) {
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

  private static boolean windowed(RexNode node, SqlKind aggregate) {
    return stripCasts(node) instanceof RexOver over && over.getAggOperator().getKind() == aggregate;
  }

  private static RexNode stripCasts(RexNode node) {
    RexNode e = node;
    while (e instanceof RexCall cast && cast.getKind() == SqlKind.CAST) {
      e = cast.getOperands().get(0);
    }
    return e;
  }

  /** The kind of subquery, as written. */
  private static String describe(RexSubQuery subQuery) {
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
