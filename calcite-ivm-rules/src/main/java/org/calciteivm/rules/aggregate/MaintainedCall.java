package org.calciteivm.rules.aggregate;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.core.AggregateCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;

/**
 * One aggregate of a view and its state columns in the view's {@link AggregateState}.
 *
 * @param call the aggregate call
 * @param kind how it is maintained
 * @param prefix the prefix of the names of the state columns it owns ({@code a3})
 * @param columns its state columns, in its kind's order: its own, or a column of the same
 *     {@linkplain StateColumn.Measure measure} an earlier aggregate (or the row count) owns
 * @param owned per column, whether this aggregate owns it, and so computes and names it
 */
public record MaintainedCall(
    AggregateCall call,
    MaintainedAggregate kind,
    String prefix,
    ImmutableList<StateColumn> columns,
    ImmutableList<Boolean> owned) {

  /** The columns it owns, in order. */
  public ImmutableList<StateColumn> ownColumns() {
    return ownedOf(columns);
  }

  /**
   * Of {@code perColumn} (one element per state column, maybe followed by more), those of the
   * columns it owns, and all after the state columns.
   */
  <T> ImmutableList<T> ownedOf(List<T> perColumn) {
    ImmutableList.Builder<T> own = ImmutableList.builder();
    for (int i = 0; i < perColumn.size(); i++) {
      if (i >= owned.size() || owned.get(i)) {
        own.add(perColumn.get(i));
      }
    }
    return own.build();
  }

  /** The names of the columns of its change: its own state columns', then its change-only ones. */
  ImmutableList<String> deltaColumns() {
    List<String> names = new ArrayList<>(names(0, columns.size()));
    names.addAll(kind.deltaOnlyColumns(prefix));
    return ownedOf(names);
  }

  /** The names of the own state columns its first pass computes: all but the counted last ones. */
  List<String> firstPass() {
    return ownedOf(names(0, columns.size() - kind.countedColumns()));
  }

  /** The names of the state columns counted in a second pass (always its own). */
  List<String> counted() {
    return names(columns.size() - kind.countedColumns(), columns.size());
  }

  /** The names of the columns of its change that a change that may delete counts exactly. */
  List<String> countedInDelta() {
    List<String> names = new ArrayList<>(counted());
    List<String> deltaOnly = kind.deltaOnlyColumns(prefix);
    names.addAll(deltaOnly.subList(deltaOnly.size() - kind.countedColumns(), deltaOnly.size()));
    return names;
  }

  /** Its arguments in a row whose input columns start at {@code inputStart}. */
  List<RexNode> arguments(RelBuilder builder, int inputStart) {
    List<RexNode> args = new ArrayList<>();
    call.getArgList().forEach(a -> args.add(builder.field(inputStart + a)));
    return args;
  }

  /**
   * {@code weight} where its FILTER holds in a row whose input columns start at {@code inputStart}
   * (a LEFT join's row of NULLs holds none), else 0; {@code weight} if it has none.
   */
  RexNode filtered(RelBuilder builder, int inputStart, RexNode weight) {
    if (call.filterArg < 0) {
      return weight;
    }
    return builder.call(
        SqlStdOperatorTable.CASE,
        builder.call(SqlStdOperatorTable.IS_TRUE, builder.field(inputStart + call.filterArg)),
        weight,
        builder.getRexBuilder().makeZeroLiteral(weight.getType()));
  }

  private List<String> names(int from, int to) {
    return columns.subList(from, to).stream().map(StateColumn::name).toList();
  }
}
