package org.calciteivm.rules.analysis;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexFieldCollation;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.rex.RexSubQuery;
import org.apache.calcite.rex.RexVisitorImpl;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.util.Optionality;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.rules.aggregate.MaintainedAggregates;
import org.calciteivm.rules.delta.ChangeDistinctRule;
import org.calciteivm.rules.delta.ChangeRowExpansionRule;
import org.calciteivm.rules.delta.ChangeValuesRule;
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

  /** The construct refused for an aggregate or DISTINCT in a branch of a set operation. */
  public static final String AGGREGATE_BELOW_UNION = "an aggregate or DISTINCT below UNION ALL";

  /** The construct refused for a window function below another operator: its start and end. */
  private static final String WINDOW_FUNCTION = "window function ";

  private static final String WINDOW_FUNCTION_END = "(...) OVER (...)";

  /** The construct refused for a window function over an aggregate or DISTINCT. */
  public static final String WINDOW_OVER_AGGREGATE =
      "a window function over an aggregate or DISTINCT";

  /**
   * The construct refused for an aggregate or DISTINCT below {@code INTERSECT ALL} or {@code EXCEPT
   * ALL}, followed by the operator's name.
   */
  public static final String AGGREGATE_BELOW_RECOMPUTED = "an aggregate or DISTINCT below ";

  /**
   * The construct refused for an aggregate over several grouping sets, which CREATE writes out as a
   * union of aggregates (in a FROM subquery, once the subquery is a view of its own).
   */
  public static final String GROUPING_SETS = "GROUPING SETS, ROLLUP or CUBE";

  /**
   * The construct refused for a plan that reads no table: constant rows, or what Calcite folds an
   * aggregate over a one-row aggregate into (a count of one row), which reads a table once the
   * subquery is a view of its own.
   */
  public static final String NO_BASE_TABLE = "a query without a base table";

  /** How the construct refused for an aggregate of DISTINCT values ends. */
  private static final String DISTINCT_ARGUMENT = "(DISTINCT ...)";

  /**
   * Whether {@code refusal} names a construct that a view can have when it is kept as several
   * stored relations (intermediate states): an aggregate or DISTINCT below a join, a union or
   * another aggregate, grouping sets (a union of aggregates), an aggregate of DISTINCT values, a
   * window function, {@code INTERSECT ALL}, {@code EXCEPT ALL} or {@code LIMIT} anywhere but at the
   * top, or an aggregate below those. These rules maintain one relation at a time.
   */
  public static boolean needsIntermediateStates(UnsupportedViewException refusal) {
    return refusal.construct().equals(AGGREGATE_BELOW_JOIN)
        || refusal.construct().equals(AGGREGATE_OVER_AGGREGATE)
        || refusal.construct().equals(AGGREGATE_BELOW_UNION)
        || refusal.construct().equals(WINDOW_OVER_AGGREGATE)
        || refusal.construct().startsWith(AGGREGATE_BELOW_RECOMPUTED)
        // window functions and bag set operations below another operator (a join, an aggregate)
        || refusal.construct().startsWith(WINDOW_FUNCTION)
            && refusal.construct().endsWith(WINDOW_FUNCTION_END)
        || refusal.construct().equals("INTERSECT ALL")
        || refusal.construct().equals("EXCEPT ALL")
        || refusal.construct().equals(GROUPING_SETS)
        || refusal.construct().equals(NO_BASE_TABLE)
        // top rows of a subquery: TopRows writes them as a window filter in a view of their own
        || refusal.construct().equals(ConstructNames.LIMIT)
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

  /**
   * The operator near the view's top kept by recomputing partitions (its window projection, or its
   * {@code INTERSECT ALL} / {@code EXCEPT ALL}); null if it has none.
   */
  private @Nullable RelNode recomputed;

  /** The bag set operations {@link #recomputed} keeps: itself and those nested directly in it. */
  private Set<RelNode> recomputedSetOperations = Set.of();

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
   *     into the other input removes, window functions, or a bag {@code INTERSECT} or {@code
   *     EXCEPT}
   * @param partitions the view's operator kept by recomputing partitions (window functions, {@code
   *     INTERSECT ALL}, {@code EXCEPT ALL}) and the partitions a refresh recomputes, or null for a
   *     view without
   */
  public record Analysis(
      ImmutableList<List<String>> baseTables,
      ImmutableMap<List<String>, ImmutableSet<String>> usedColumns,
      MergeStrategy strategy,
      @Nullable Aggregate aggregate,
      boolean monotone,
      @Nullable RecomputedPartitions partitions) {}

  /**
   * Analyzes {@code view}, the logical plan of the materialized view {@code viewName}.
   *
   * @throws UnsupportedViewException naming the first construct that cannot be maintained
   */
  public static Analysis analyze(String viewName, RelNode view) throws UnsupportedViewException {
    ViewAnalyzer analyzer = new ViewAnalyzer(viewName);
    analyzer.recomputed = RecomputedPartitions.find(view);
    if (analyzer.recomputed != null) {
      analyzer.recomputedSetOperations = RecomputedPartitions.setOperations(analyzer.recomputed);
    }
    analyzer.visit(view);
    if (analyzer.baseTables.isEmpty()) {
      throw UnsupportedViewException.notYet(viewName, NO_BASE_TABLE);
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
        !analyzer.outerJoin && analyzer.recomputed == null,
        analyzer.recomputed == null ? null : RecomputedPartitions.of(view, analyzer.recomputed));
  }

  private void visit(RelNode rel) throws UnsupportedViewException {
    if (rel instanceof Correlate correlate && ChangeRowExpansionRule.isRowExpansion(correlate)) {
      // each left row expands on its own (unnest of its list): the right side reads only that row
      visit(correlate.getLeft());
      return;
    }
    if (rel instanceof TableScan scan) {
      baseTables.add(scan.getTable().getQualifiedName());
    } else if (ChangeValuesRule.isConstant(rel)) {
      // constant rows (or none: Calcite's form of a filter that can never hold), or the elements of
      // a constant list: no change
      return;
    } else if (rel instanceof Join join && maintainedJoin(join.getJoinType())) {
      // the condition refers to the inputs' fields, named as in the inputs (not made unique)
      List<String> fields = new ArrayList<>(join.getLeft().getRowType().getFieldNames());
      fields.addAll(join.getRight().getRowType().getFieldNames());
      checkExpression(join.getCondition(), fields);
      if (join.getJoinType() != JoinRelType.INNER) {
        // any condition is maintained (ChangeOuterJoinRule); an insert can remove padded rows
        outerJoin = true;
      }
      joins++;
    } else if (rel instanceof Filter filter) {
      checkExpression(filter.getCondition(), filter.getInput().getRowType().getFieldNames());
    } else if (rel instanceof Project project && project == recomputed) {
      for (RexNode e : project.getProjects()) {
        checkWindowExpression(e, project);
      }
    } else if (rel instanceof Project project) {
      for (RexNode e : project.getProjects()) {
        checkExpression(e, project.getInput().getRowType().getFieldNames());
      }
    } else if (rel instanceof Union union && union.all) {
      unions++;
    } else if (recomputedSetOperations.contains(rel)) {
      // the outermost bag INTERSECT or EXCEPT, or one nested directly in it: recomputed with it
    } else if (rel instanceof Aggregate && unions > 0) {
      throw UnsupportedViewException.notYet(
          viewName,
          AGGREGATE_BELOW_UNION,
          "aggregate after the union instead, or make each branch a materialized view");
    } else if (rel instanceof Aggregate distinct
        && joins > 0
        && ChangeDistinctRule.isDistinct(distinct)) {
      // a set of rows, whose change the rules derive from its input's (ChangeDistinctRule)
    } else if (rel instanceof Aggregate && joins > 0) {
      throw UnsupportedViewException.notYet(
          viewName, AGGREGATE_BELOW_JOIN, "aggregate after joining instead");
    } else if (rel instanceof Aggregate && recomputed instanceof Project) {
      // CREATE keeps an aggregating FROM subquery as a hidden view
      throw UnsupportedViewException.notYet(
          viewName,
          WINDOW_OVER_AGGREGATE,
          "compute the aggregate in a subquery in FROM and the window function over it");
    } else if (rel instanceof Aggregate && recomputed != null) {
      throw UnsupportedViewException.notYet(
          viewName, AGGREGATE_BELOW_RECOMPUTED + ConstructNames.describe(recomputed));
    } else if (rel instanceof Aggregate found && aggregate == null) {
      checkAggregate(found);
      aggregate = found;
    } else if (rel instanceof Aggregate) {
      throw UnsupportedViewException.notYet(viewName, AGGREGATE_OVER_AGGREGATE);
    } else {
      throw UnsupportedViewException.notYet(viewName, ConstructNames.describe(rel));
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

  /**
   * Checks an expression of the window projection: each window function must have a value that
   * depends only on the rows of its partition, not on how rows that tie in its {@code ORDER BY} are
   * ordered (unless its partition and order columns hold a key of the input, so nothing ties, or
   * rows that tie are alike in every column the projection reads); its arguments and the rest of
   * the expression are checked as any expression.
   */
  private void checkWindowExpression(RexNode expression, Project window)
      throws UnsupportedViewException {
    List<String> input = window.getInput().getRowType().getFieldNames();
    if (WindowFunctions.exactQuotient(expression)) {
      throw UnsupportedViewException.notYet(
          viewName,
          "window function AVG, STDDEV or VARIANCE(...) OVER (...) of exact numbers, or a"
              + " division of exact numbers by or of a window function",
          "Calcite computes it as a quotient of exact numbers where DuckDB divides in DOUBLE;"
              + " cast to DOUBLE: AVG(CAST(x AS DOUBLE)) OVER (...),"
              + " CAST(SUM(x) AS DOUBLE) / SUM(SUM(x)) OVER ()");
    }
    Map<RexOver, String> written = WindowFunctions.writtenNames(expression);
    for (RexOver over : WindowFunctions.overs(expression)) {
      String name =
          "window function "
              + written.getOrDefault(over, ConstructNames.aggregateName(over.getAggOperator()))
              + "(...) OVER (...)";
      if (WindowFunctions.tieSensitive(over)
          && !WindowFunctions.orderedByKey(over, window)
          && !WindowFunctions.tiesInvisible(over, window)) {
        throw UnsupportedViewException.notYet(
            viewName,
            name + " whose ORDER BY can tie",
            "its value depends on how DuckDB orders rows that tie; order by columns that"
                + " include a declared primary key of the input, or use RANK or DENSE_RANK");
      }
      for (RexNode operand : over.getOperands()) {
        checkExpression(operand, input);
      }
      for (RexNode key : over.getWindow().partitionKeys) {
        checkExpression(key, input);
      }
      for (RexFieldCollation key : over.getWindow().orderKeys) {
        checkExpression(key.left, input);
      }
    }
    // the rest of the expression, each window function standing as a NULL of its type
    RexBuilder rex = window.getCluster().getRexBuilder();
    checkExpression(
        expression.accept(
            new RexShuttle() {
              @Override
              public RexNode visitOver(RexOver over) {
                return rex.makeNullLiteral(over.getType());
              }
            }),
        input);
  }

  private static boolean maintainedJoin(JoinRelType type) {
    return type == JoinRelType.INNER
        || type == JoinRelType.LEFT
        || type == JoinRelType.RIGHT
        || type == JoinRelType.FULL;
  }

  private void checkAggregate(Aggregate found) throws UnsupportedViewException {
    if (found.getGroupType() != Aggregate.Group.SIMPLE) {
      throw UnsupportedViewException.notYet(viewName, GROUPING_SETS);
    }
    for (AggregateCall call : found.getAggCallList()) {
      String name = ConstructNames.aggregateName(call.getAggregation());
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
      if (MaintainedAggregates.ordered(call)) {
        OrderedAggregates.check(viewName, name, call, found.getInput());
      } else if (!call.collation.getFieldCollations().isEmpty()
          && call.getAggregation().requiresGroupOrder() != Optionality.MANDATORY) {
        // a percentile's group order is the values it ranks, not an order of the rows
        throw UnsupportedViewException.notYet(viewName, "aggregate " + name + " WITHIN GROUP");
      }
    }
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
            String window = ConstructNames.expandedWindowFunction(call);
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
              problems.add(windowFunction(ConstructNames.aggregateName(over.getAggOperator())));
            }
            return null;
          }

          @Override
          public Void visitSubQuery(RexSubQuery subQuery) {
            if (problems.isEmpty()) {
              problems.add(
                  UnsupportedViewException.notYet(viewName, ConstructNames.describe(subQuery)));
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
    if (call.getKind() == SqlKind.MOD
        && call.getOperands().stream().anyMatch(ViewAnalyzer::approximateMadeExact)) {
      // Calcite's MOD takes exact numbers and casts a DOUBLE to DECIMAL; an engine whose type
      // system says it computes it in DOUBLE has the remainder planned as its own
      // (ApproximateRemainders), and other engines' remainders are refused
      return List.of(
          UnsupportedViewException.notYet(
              viewName,
              "% or MOD of DOUBLE or REAL values",
              "Calcite computes it in DECIMAL, where the engine computes it in DOUBLE; cast the"
                  + " operands to DECIMAL"));
    }
    return List.of();
  }

  /** Whether {@code e} is a cast of a DOUBLE or REAL to an exact type. */
  private static boolean approximateMadeExact(RexNode e) {
    return e instanceof RexCall cast
        && cast.getKind() == SqlKind.CAST
        && SqlTypeUtil.isApproximateNumeric(cast.getOperands().get(0).getType())
        && SqlTypeUtil.isExactNumeric(cast.getType());
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
    return UnsupportedViewException.notYet(viewName, WINDOW_FUNCTION + name + WINDOW_FUNCTION_END);
  }
}
