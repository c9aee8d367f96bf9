package org.calciteivm.rules.delta;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.plan.RelOptRuleCall;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.RelRule;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelReferentialConstraint;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.core.Filter;
import org.apache.calcite.rel.core.Join;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.core.TableScan;
import org.apache.calcite.rel.rules.TransformationRule;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.util.mapping.IntPair;
import org.calciteivm.rules.IvmRelBuilders;
import org.calciteivm.rules.delta.ZSetJoins.Side;
import org.immutables.value.Value;

/**
 * Expands the delta of an inner join into the one term left when a declared foreign key proves the
 * other empty; either join expansion may follow it in a program, and applies where it does not.
 *
 * <p>Identities (the two telescoping orders): {@code Δ(Y ⋈ X) = ΔY ⋈ X' + Y⁻ ⋈ ΔX = ΔY ⋈ X⁻ + Y' ⋈
 * ΔX}. So when {@code Y⁻ ⋈ ΔX = ∅}, {@code Δ(Y ⋈ X) = ΔY ⋈ X'}, and when {@code Y' ⋈ ΔX = ∅},
 * {@code Δ(Y ⋈ X) = ΔY ⋈ X⁻}: one term whichever side {@code Y} is on and whichever expansion was
 * asked for. If {@code Y} has no change in this refresh ({@link DeltaContext}), nothing is left.
 *
 * <p>Both are empty terms when the join condition equates every column of a {@code FOREIGN KEY} of
 * a table {@code F} that {@code Y} reads with the referenced key of a table {@code R}, and {@code
 * R} is the only table with a change that {@code X} reads (once):
 *
 * <ul>
 *   <li>{@code Y⁻ ⋈ ΔX = ∅} if {@code R}'s change is insert-only: an inserted row of {@code R} has
 *       a key no previous row of {@code R} had (the referenced key is unique, and a key deleted and
 *       re-inserted would show as a delete), and every previous row of {@code F} references a
 *       previous row of {@code R} or has a NULL, which equals nothing;
 *   <li>{@code Y' ⋈ ΔX = ∅} if {@code R}'s change is delete-only: a deleted row of {@code R} has a
 *       key no current row of {@code R} has (a key deleted and re-inserted would show as an
 *       insert), and every current row of {@code F} references a current row of {@code R} or has a
 *       NULL.
 * </ul>
 *
 * Nothing is pruned without a declared constraint, which DuckDB enforces after every statement.
 *
 * <p>The rule has no side effect: {@link DeltaDerivation} reports the terms it left out ({@link
 * #prunedTerm}) by listening to the planner.
 */
@Value.Enclosing
public class ChangeJoinForeignKeyPruneRule extends RelRule<ChangeJoinForeignKeyPruneRule.Config>
    implements TransformationRule {

  /** Creates the rule from its configuration. */
  protected ChangeJoinForeignKeyPruneRule(Config config) {
    super(config);
  }

  @Override
  public void onMatch(RelOptRuleCall call) {
    ChangeOf change = call.rel(0);
    Join join = call.rel(1);
    DeltaContext context = DeltaContext.of(call);
    Optional<EmptyTerm> empty = emptyTerm(join, context);
    if (empty.isEmpty()) {
      return;
    }
    boolean changeOnRight = empty.get().changeOnRight();
    RelNode x = changeOnRight ? join.getRight() : join.getLeft();
    RelNode y = changeOnRight ? join.getLeft() : join.getRight();
    RelBuilder builder = call.builder();
    List<RelNode> terms = new ArrayList<>();
    if (context.changes(y)) {
      // Y⁻ ⋈ ΔX empty: ΔY ⋈ X'; Y' ⋈ ΔX empty: ΔY ⋈ X⁻
      Side other = empty.get().againstCurrent() ? ZSetJoins.previous(builder, x) : Side.current(x);
      terms.add(
          changeOnRight
              ? ZSetJoins.term(builder, join, Side.delta(y), other, false)
              : ZSetJoins.term(builder, join, other, Side.delta(y), false));
    }
    call.transformTo(ZSetJoins.sum(builder, terms, change));
  }

  /**
   * The term of {@code Δjoin} this rule leaves out in {@code context}, as people read it ({@code
   * left out items⁻ ⋈ Δ(orders): FOREIGN KEY ...}), or nothing if no declared key proves a term
   * empty.
   */
  public static Optional<String> prunedTerm(Join join, DeltaContext context) {
    return emptyTerm(join, context).map(EmptyTerm::reason);
  }

  /**
   * The empty term {@code Y⁻ ⋈ ΔX}, or {@code Y' ⋈ ΔX} if {@code againstCurrent}: {@code X} is the
   * join's right input if {@code changeOnRight}.
   */
  private record EmptyTerm(boolean changeOnRight, boolean againstCurrent, String reason) {}

  /** The term of {@code Δjoin} a declared key proves empty, the right input's change first. */
  private static Optional<EmptyTerm> emptyTerm(Join join, DeltaContext context) {
    for (boolean changeOnRight : new boolean[] {true, false}) {
      RelNode x = changeOnRight ? join.getRight() : join.getLeft();
      List<RelOptTable> changed =
          JoinTerms.scannedTables(x).stream().filter(context.hasDelta()).toList();
      if (changed.size() != 1) {
        continue;
      }
      boolean insertOnly = context.insertOnly().test(changed.get(0));
      if (!insertOnly && !context.deleteOnly().test(changed.get(0))) {
        continue;
      }
      Optional<String> reason = referencedBy(join, changeOnRight, changed.get(0), !insertOnly);
      if (reason.isPresent()) {
        return Optional.of(new EmptyTerm(changeOnRight, !insertOnly, reason.get()));
      }
    }
    return Optional.empty();
  }

  /**
   * Why the term joining {@code Y} with the change of {@code referenced}, the only changed table
   * {@code X} reads, is empty: a foreign key of a table {@code Y} reads that references {@code
   * referenced} and that the join condition equates; nothing if none does. {@code X} is the right
   * input if {@code changeOnRight}; the term joins {@code Y'} if {@code againstCurrent}, else
   * {@code Y⁻}.
   */
  private static Optional<String> referencedBy(
      Join join, boolean changeOnRight, RelOptTable referenced, boolean againstCurrent) {
    RelNode x = changeOnRight ? join.getRight() : join.getLeft();
    RelNode y = changeOnRight ? join.getLeft() : join.getRight();
    List<RelOptTable> xTables = JoinTerms.scannedTables(x);
    if (xTables.stream().filter(t -> sameTable(t, referenced)).count() != 1) {
      return Optional.empty();
    }
    int leftColumns = join.getLeft().getRowType().getFieldCount();
    List<Equality> equalities = new ArrayList<>();
    for (RexNode conjunct : RelOptUtil.conjunctions(join.getCondition())) {
      if (conjunct.getKind() != SqlKind.EQUALS) {
        continue;
      }
      List<RexNode> operands = ((RexCall) conjunct).getOperands();
      if (!(operands.get(0) instanceof RexInputRef a)
          || !(operands.get(1) instanceof RexInputRef b)) {
        continue;
      }
      int leftRef = Math.min(a.getIndex(), b.getIndex());
      int rightRef = Math.max(a.getIndex(), b.getIndex());
      if (leftRef >= leftColumns || rightRef < leftColumns) {
        continue;
      }
      Column left = origin(join.getLeft(), leftRef);
      Column right = origin(join.getRight(), rightRef - leftColumns);
      if (left != null && right != null) {
        equalities.add(changeOnRight ? new Equality(left, right) : new Equality(right, left));
      }
    }
    for (RelOptTable source : JoinTerms.scannedTables(y)) {
      // null, as for most tables (Calcite's AbstractTable, JdbcTable): none declared
      List<RelReferentialConstraint> keys = source.getReferentialConstraints();
      for (RelReferentialConstraint key :
          keys == null ? List.<RelReferentialConstraint>of() : keys) {
        if (key.getTargetQualifiedName().equals(referenced.getQualifiedName())
            && key.getColumnPairs().stream()
                .allMatch(pair -> equated(equalities, source, referenced, pair))) {
          return Optional.of(describe(y, x, source, referenced, key, againstCurrent));
        }
      }
    }
    return Optional.empty();
  }

  /** A column of a base table. */
  private record Column(RelOptTable table, int ordinal) {}

  /** A conjunct {@code y = x} of the join condition, between base-table columns. */
  private record Equality(Column y, Column x) {}

  private static boolean equated(
      List<Equality> equalities, RelOptTable source, RelOptTable target, IntPair pair) {
    return equalities.stream()
        .anyMatch(
            e ->
                sameTable(e.y().table(), source)
                    && e.y().ordinal() == pair.source
                    && sameTable(e.x().table(), target)
                    && e.x().ordinal() == pair.target);
  }

  private static boolean sameTable(RelOptTable a, RelOptTable b) {
    return a.getQualifiedName().equals(b.getQualifiedName());
  }

  /**
   * The base-table column that column {@code i} of {@code rel} is a copy of (through projections,
   * filters, joins and the group keys of aggregates, such as the {@code DISTINCT} an {@code EXISTS}
   * or {@code IN} subquery becomes), or null if it is computed.
   */
  private static Column origin(RelNode rel, int i) {
    RelNode node = rel.stripped();
    if (node instanceof TableScan scan) {
      return new Column(scan.getTable(), i);
    }
    if (node instanceof Filter filter) {
      return origin(filter.getInput(), i);
    }
    if (node instanceof Project project) {
      return project.getProjects().get(i) instanceof RexInputRef ref
          ? origin(project.getInput(), ref.getIndex())
          : null;
    }
    if (node instanceof Join join) {
      int leftColumns = join.getLeft().getRowType().getFieldCount();
      return i < leftColumns ? origin(join.getLeft(), i) : origin(join.getRight(), i - leftColumns);
    }
    if (node instanceof Aggregate aggregate && aggregate.getGroupType() == Aggregate.Group.SIMPLE) {
      // a group key's values are values of its input column, in the rows of the input's state (a
      // group's change, of the rows that changed): what the emptiness arguments need
      return i < aggregate.getGroupCount()
          ? origin(aggregate.getInput(), aggregate.getGroupSet().nth(i))
          : null;
    }
    return null;
  }

  private static String describe(
      RelNode y,
      RelNode x,
      RelOptTable source,
      RelOptTable target,
      RelReferentialConstraint key,
      boolean againstCurrent) {
    List<String> sourceColumns = new ArrayList<>();
    List<String> targetColumns = new ArrayList<>();
    for (IntPair pair : key.getColumnPairs()) {
      sourceColumns.add(source.getRowType().getFieldNames().get(pair.source));
      targetColumns.add(target.getRowType().getFieldNames().get(pair.target));
    }
    String targetName = last(target);
    return "left out "
        + names(y)
        + (againstCurrent ? "' ⋈ Δ(" : "⁻ ⋈ Δ(")
        + names(x)
        + "): FOREIGN KEY "
        + last(source)
        + "("
        + String.join(", ", sourceColumns)
        + ") REFERENCES "
        + targetName
        + "("
        + String.join(", ", targetColumns)
        + ") and "
        + targetName
        + (againstCurrent ? " was only deleted from" : " was only inserted into");
  }

  private static String names(RelNode rel) {
    List<String> names = new ArrayList<>();
    for (RelOptTable table : JoinTerms.scannedTables(rel)) {
      names.add(last(table));
    }
    return names.size() == 1 ? names.get(0) : "(" + String.join(" ⋈ ", names) + ")";
  }

  private static String last(RelOptTable table) {
    List<String> name = table.getQualifiedName();
    return name.get(name.size() - 1);
  }

  /** Rule configuration. */
  @Value.Immutable(singleton = true)
  public interface Config extends RelRule.Config {
    /** Matches a delta directly above an inner join. */
    Config DEFAULT =
        ImmutableChangeJoinForeignKeyPruneRule.Config.of()
            .withRelBuilderFactory(IvmRelBuilders.FACTORY)
            .withOperandSupplier(ZSetJoins.deltaOfInnerJoin());

    @Override
    default ChangeJoinForeignKeyPruneRule toRule() {
      return new ChangeJoinForeignKeyPruneRule(this);
    }
  }
}
