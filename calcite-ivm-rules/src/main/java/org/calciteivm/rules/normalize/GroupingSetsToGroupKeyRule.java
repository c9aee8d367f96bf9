package org.calciteivm.rules.normalize;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.Union;
import org.apache.calcite.rel.core.Values;
import org.apache.calcite.rel.rules.TransformationRule;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.ImmutableBitSet;
import org.calciteivm.rules.IvmRelBuilders;
import org.checkerframework.checker.nullness.qual.Nullable;
import org.immutables.value.Value;

/**
 * Writes an aggregate over grouping sets ({@code GROUPING SETS}, {@code ROLLUP}, {@code CUBE}) as
 * one ordinary aggregate whose groups are also keyed by the number of their grouping set, so that
 * the view keeps one state table and one merge, however many sets it has.
 *
 * <p>Identity, for sets {@code S_0, ..., S_{k-1}} over keys {@code K}: {@code γ_{S_0..S_{k-1};
 * f}(R) = π(γ_{M, s; f'}((R × {0..k-1}) ∪all φ))}, where {@code s} is the set a row is aggregated
 * for, key {@code M_j} is {@code K_j} if {@code S_s} groups by it and NULL otherwise, and {@code
 * GROUPING(...)} is the constant bit mask of the keys {@code S_s} leaves out.
 *
 * <p>{@code φ} is there when a set is empty: one row for that set whose columns are all NULL. SQL
 * gives the empty set a row (the grand total) even over no input; {@code φ} keeps that group, whose
 * aggregates then see no row, as over an empty input. {@code φ} is constant, so it never changes
 * and the group is never deleted. {@code f'} is {@code f} made blind to {@code φ}: {@code COUNT(*)}
 * counts a column {@code real}, TRUE in every other row and NULL in {@code φ}; aggregates that
 * ignore NULL arguments (SUM, AVG, MIN, MAX, COUNT(x), ...) see nothing of {@code φ}'s NULLs; every
 * other aggregate, and every aggregate of a constant (which is not NULL in {@code φ}), is filtered
 * to the rows where {@code real} is not NULL (a filter costs DuckDB more than a NULL argument).
 *
 * <p>Not rewritten (left for the planner to refuse, or to the caller's other plan): {@code
 * GROUP_ID()} and aggregates with {@code WITHIN DISTINCT}.
 */
@Value.Enclosing
public class GroupingSetsToGroupKeyRule extends RelRule<GroupingSetsToGroupKeyRule.Config>
    implements TransformationRule {

  /** The column that numbers the grouping sets. */
  static final String SET_COLUMN = "_ivm_grouping_set";

  /** The column that tells real rows (TRUE) from the empty set's constant row (NULL). */
  static final String REAL_COLUMN = "_ivm_real";

  /**
   * Aggregates whose value ignores rows in which their arguments are NULL, so that {@code φ}, whose
   * arguments are all NULL, needs no filter.
   */
  private static final Set<SqlKind> IGNORES_NULLS =
      EnumSet.of(
          SqlKind.SUM,
          SqlKind.SUM0,
          SqlKind.AVG,
          SqlKind.MIN,
          SqlKind.MAX,
          SqlKind.COUNT,
          SqlKind.STDDEV_POP,
          SqlKind.STDDEV_SAMP,
          SqlKind.VAR_POP,
          SqlKind.VAR_SAMP,
          SqlKind.BIT_AND,
          SqlKind.BIT_OR,
          SqlKind.BIT_XOR);

  /** Creates the rule from its configuration. */
  protected GroupingSetsToGroupKeyRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    Aggregate aggregate = call.rel(0);
    for (AggregateCall aggregateCall : aggregate.getAggCallList()) {
      if (aggregateCall.getAggregation().getKind() == SqlKind.GROUP_ID
          || aggregateCall.distinctKeys != null) {
        return;
      }
    }
    List<ImmutableBitSet> sets = aggregate.getGroupSets();
    List<Integer> keys = aggregate.getGroupSet().asList();
    RelNode input = aggregate.getInput();
    int width = input.getRowType().getFieldCount();
    RelBuilder builder = call.builder();
    RexBuilder rex = builder.getRexBuilder();
    RelDataTypeFactory types = builder.getTypeFactory();
    RelDataType setType = types.createSqlType(SqlTypeName.INTEGER);

    // every input row once per grouping set, real
    Object[] setNumbers = new Object[sets.size()];
    for (int s = 0; s < sets.size(); s++) {
      setNumbers[s] = s;
    }
    builder.push(input).values(new String[] {SET_COLUMN}, setNumbers);
    builder.join(JoinRelType.INNER, rex.makeLiteral(true));
    List<RexNode> marked = new ArrayList<>(builder.fields());
    marked.add(rex.makeLiteral(true));
    List<String> names = new ArrayList<>(input.getRowType().getFieldNames());
    names.add(SET_COLUMN);
    names.add(REAL_COLUMN);
    builder.project(marked, names, true);
    int emptySet = sets.indexOf(ImmutableBitSet.of());
    if (emptySet >= 0) {
      // the empty set's constant row, which keeps its group when no row is left
      List<RexLiteral> phantom = new ArrayList<>();
      for (RelDataTypeField field : input.getRowType().getFieldList()) {
        phantom.add(rex.makeNullLiteral(types.createTypeWithNullability(field.getType(), true)));
      }
      phantom.add((RexLiteral) rex.makeExactLiteral(BigDecimal.valueOf(emptySet), setType));
      phantom.add(rex.makeNullLiteral(types.createSqlType(SqlTypeName.BOOLEAN)));
      RelDataType phantomType =
          types.createStructType(
              phantom.stream().map(RexLiteral::getType).toList(), List.copyOf(names));
      builder.values(List.of(phantom), phantomType).union(true, 2);
    }

    // the keys each row is grouped by in its set, the set number, then the input's columns
    RexNode set = builder.field(width);
    List<RexNode> grouped = new ArrayList<>();
    for (int key : keys) {
      List<RexNode> lacking = new ArrayList<>();
      for (int s = 0; s < sets.size(); s++) {
        if (!sets.get(s).get(key)) {
          lacking.add(builder.equals(set, rex.makeExactLiteral(BigDecimal.valueOf(s), setType)));
        }
      }
      RexNode column = builder.field(key);
      grouped.add(
          lacking.isEmpty()
              ? column
              : builder.call(
                  SqlStdOperatorTable.CASE,
                  builder.or(lacking),
                  rex.makeNullLiteral(types.createTypeWithNullability(column.getType(), true)),
                  column));
    }
    grouped.add(set);
    int shift = grouped.size();
    int realColumn = shift + width + 1;
    ImmutableBitSet.Builder constants = ImmutableBitSet.builder();
    for (int i = 0; i < width + 2; i++) {
      if (i >= width) {
        grouped.add(builder.field(i)); // the set's number, real
      } else if (input.stripped() instanceof Project project
          && project.getProjects().get(i) instanceof RexLiteral constant) {
        // constants stay constants: an argument such as the 0.25 of quantile_cont(x, 0.25) must be
        // a constant in DuckDB; they are not NULL in φ
        grouped.add(constant);
        constants.set(i + shift);
      } else {
        grouped.add(builder.field(i));
      }
    }
    ImmutableBitSet constantColumns = constants.build();
    List<AggregateCall> calls = new ArrayList<>();
    for (AggregateCall aggregateCall : aggregate.getAggCallList()) {
      if (isGrouping(aggregateCall)) {
        continue;
      }
      List<Integer> arguments = aggregateCall.getArgList().stream().map(a -> a + shift).toList();
      SqlKind kind = aggregateCall.getAggregation().getKind();
      List<RexNode> conditions = new ArrayList<>();
      if (aggregateCall.filterArg >= 0) {
        // NULL in φ, so no longer NOT NULL
        conditions.add(
            builder.call(SqlStdOperatorTable.IS_TRUE, builder.field(aggregateCall.filterArg)));
      }
      if (emptySet < 0) {
        // no φ: every row is real
      } else if (kind == SqlKind.COUNT && arguments.isEmpty() && !aggregateCall.isDistinct()) {
        arguments = List.of(realColumn); // COUNT(*) counts the real rows: real is NULL in φ
      } else if (!IGNORES_NULLS.contains(kind)
          || arguments.isEmpty()
          || arguments.stream().anyMatch(constantColumns::get)) {
        // φ's arguments are NULL, which these aggregates may not ignore, or constant: filter φ out
        conditions.add(builder.isNotNull(builder.field(realColumn - shift)));
      }
      int filter = -1;
      if (!conditions.isEmpty()) {
        filter = grouped.size();
        grouped.add(builder.and(conditions));
      }
      calls.add(
          aggregateCall.copy(
              arguments, filter, null, RelCollations.shift(aggregateCall.getCollation(), shift)));
    }
    builder.project(grouped);
    builder.aggregate(builder.groupKey(ImmutableBitSet.range(shift)), calls);

    // the original columns: the keys, each aggregate, GROUPING(...) from the set number
    List<RexNode> columns = new ArrayList<>(builder.fields().subList(0, keys.size()));
    RexNode setOfGroup = builder.field(keys.size());
    int next = shift;
    List<RelDataTypeField> fields = aggregate.getRowType().getFieldList();
    for (AggregateCall aggregateCall : aggregate.getAggCallList()) {
      RelDataType type = fields.get(columns.size()).getType();
      if (!isGrouping(aggregateCall)) {
        columns.add(builder.field(next++));
        continue;
      }
      List<RexNode> cases = new ArrayList<>();
      for (int s = 0; s < sets.size(); s++) {
        long mask = 0;
        for (int argument : aggregateCall.getArgList()) {
          mask = (mask << 1) | (sets.get(s).get(argument) ? 0 : 1);
        }
        cases.add(builder.equals(setOfGroup, rex.makeExactLiteral(BigDecimal.valueOf(s), setType)));
        cases.add(rex.makeExactLiteral(BigDecimal.valueOf(mask), type));
      }
      cases.add(rex.makeExactLiteral(BigDecimal.ZERO, type));
      columns.add(builder.call(SqlStdOperatorTable.CASE, cases));
    }
    for (int i = 0; i < columns.size(); i++) {
      RelDataType type = fields.get(i).getType();
      if (!columns.get(i).getType().equals(type)) {
        columns.set(i, rex.makeCast(type, columns.get(i), true, false));
      }
    }
    builder.project(columns, aggregate.getRowType().getFieldNames(), true);
    call.transformTo(builder.build());
  }

  /**
   * The grouping sets of {@code aggregate} if this rule wrote it, with what a recompute of its
   * state needs; null for any other aggregate.
   */
  public static @Nullable KeyedSets keyedSets(Aggregate aggregate) {
    if (!(aggregate.getInput().stripped() instanceof Project keyed)
        || !keyed.getRowType().getFieldNames().contains(SET_COLUMN)) {
      return null;
    }
    RelNode marked = keyed.getInput().stripped();
    RelNode real = marked instanceof Union union ? union.getInput(0).stripped() : marked;
    if (!(real instanceof Project project)
        || !(project.getInput().stripped() instanceof Join join)
        || !(join.getRight().stripped() instanceof Values setNumbers)) {
      return null;
    }
    KeyedSets found = new KeyedSets(join.getLeft().stripped(), keyed, new ArrayList<>());
    // set s groups by key j unless key j is CASE WHEN <set = s OR ...> THEN NULL ELSE key END
    List<ImmutableBitSet.Builder> sets = new ArrayList<>();
    setNumbers.getTuples().forEach(t -> sets.add(ImmutableBitSet.builder()));
    for (int key = 0; key < found.keyCount(); key++) {
      RexNode column = keyed.getProjects().get(key);
      List<Integer> lacking = new ArrayList<>();
      if (column instanceof RexCall masked && column.getKind() == SqlKind.CASE) {
        RexNode condition = masked.getOperands().get(0);
        List<RexNode> terms =
            condition.getKind() == SqlKind.OR
                ? ((RexCall) condition).getOperands()
                : List.of(condition);
        for (RexNode term : terms) {
          RexLiteral number = (RexLiteral) ((RexCall) term).getOperands().get(1);
          lacking.add(number.getValueAs(Integer.class));
        }
      }
      for (int s = 0; s < sets.size(); s++) {
        if (!lacking.contains(s)) {
          sets.get(s).set(key);
        }
      }
    }
    sets.forEach(set -> found.sets().add(set.build()));
    return found;
  }

  /**
   * An aggregate this rule wrote: its original input, the projection below it (keys grouped by set,
   * the set's number, the input's columns and filters), and its grouping sets as positions among
   * its keys.
   */
  public record KeyedSets(RelNode original, Project keyed, List<ImmutableBitSet> sets) {
    /** The number of keys before the set's number (the first column that is the set's number). */
    public int keyCount() {
      int width = original.getRowType().getFieldCount();
      List<RexNode> projects = keyed.getProjects();
      for (int i = 0; i < projects.size(); i++) {
        if (projects.get(i) instanceof RexInputRef ref && ref.getIndex() == width) {
          return i;
        }
      }
      throw new IllegalStateException("no set number in " + keyed);
    }

    /** The position of the empty set among {@link #sets}, or -1. */
    public int emptySet() {
      return sets.indexOf(ImmutableBitSet.of());
    }

    /**
     * The projection below the aggregate over {@code input}, a form of the original input with its
     * columns: every row once, real, its keys as they are (grouping sets then group them).
     */
    public RelNode keyedOver(RelBuilder builder, RelNode input) {
      int width = original.getRowType().getFieldCount();
      RexBuilder rex = builder.getRexBuilder();
      RexShuttle once =
          new RexShuttle() {
            @Override
            public RexNode visitInputRef(RexInputRef ref) {
              if (ref.getIndex() < width) {
                return rex.makeInputRef(input, ref.getIndex());
              }
              if (ref.getIndex() == width) {
                return rex.makeExactLiteral(BigDecimal.valueOf(-1), ref.getType());
              }
              return rex.makeLiteral(true);
            }
          };
      List<RexNode> columns = new ArrayList<>();
      int keys = keyCount();
      for (RexNode column : keyed.getProjects()) {
        // a key as it is: CASE WHEN <set lacks it> THEN NULL ELSE key END is the key
        boolean masked = columns.size() < keys && column.getKind() == SqlKind.CASE;
        columns.add(once.apply(masked ? ((RexCall) column).getOperands().get(2) : column));
      }
      builder.push(input);
      return builder.project(columns, keyed.getRowType().getFieldNames(), true).build();
    }
  }

  private static boolean isGrouping(AggregateCall call) {
    SqlKind kind = call.getAggregation().getKind();
    return kind == SqlKind.GROUPING || kind == SqlKind.GROUPING_ID;
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches an aggregate over more than one grouping set. */
    Config DEFAULT =
        ImmutableGroupingSetsToGroupKeyRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(
                b ->
                    b.operand(Aggregate.class)
                        .predicate(a -> a.getGroupType() != Aggregate.Group.SIMPLE)
                        .anyInputs());

    @Override
    default GroupingSetsToGroupKeyRule toRule() {
      return new GroupingSetsToGroupKeyRule(this);
    }
  }
}
