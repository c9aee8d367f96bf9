package org.calciteivm.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.rules.api.Change;
import org.calciteivm.rules.api.DeltaProgram;
import org.calciteivm.rules.api.IvmCompiler;
import org.calciteivm.rules.api.MaintainedView;
import org.calciteivm.rules.api.StateLayout;
import org.calciteivm.rules.api.StateLayout.Kind;

/**
 * The equation of incremental view maintenance, checked on Calcite's enumerable engine: for a view
 * {@code V}, tables with previous contents and a change each, {@code V(old) + ΔV = V(new)} as bags,
 * where {@code ΔV} is the delta plan of the rules run on the new contents and the changes, and
 * {@code V(old)}, {@code V(new)} are the view's own plan run on the old and the new contents.
 *
 * <p>For an aggregate view the delta plan gives the change of each touched group's state ({@link
 * StateLayout}), so the equation is checked on the state: the stored content on the old contents,
 * plus the delta added per group (counts and sums; a sum over no non-null value is NULL, a group
 * whose row count reaches zero disappears), equals the stored content on the new contents.
 *
 * <p>Only the library's public API is used ({@code org.calciteivm.rules.api}): the view is compiled
 * by {@link IvmCompiler}, its plans ({@link MaintainedView#plan()}, {@link
 * MaintainedView#storedContentPlan()}, {@link DeltaProgram#plan()}) run on the enumerable engine.
 * Plans are compiled once per view, join expansion and change, and then rerun on other contents.
 */
final class IvmEquation {
  private final InMemoryTables tables;
  private final IvmCompiler compiler;
  private final Map<String, View> views = new HashMap<>();
  private final Map<String, Delta> deltas = new HashMap<>();
  private final Map<String, PreparedStatement> compiled = new HashMap<>();

  /** A view: its compiled form, its recompute, and its state layout if aggregate. */
  private record View(MaintainedView compiled, PreparedStatement recompute, StateLayout state) {}

  /** A compiled delta plan and the join terms its derivation left out by foreign keys. */
  private record Delta(RelNode plan, PreparedStatement statement, List<String> prunedTerms) {}

  IvmEquation(InMemoryTables tables) {
    this.tables = tables;
    this.compiler = tables.compiler();
  }

  /**
   * Checks the equation for the view {@code sql}.
   *
   * @param changed the tables the {@link Change} names; it must hold every table whose change has
   *     rows, and may hold others (those the view does not read are left out)
   * @param old each table's previous rows (a table not named is empty)
   * @param changes each table's change: its columns and a weight (a table not named is unchanged)
   * @return the join terms a foreign key left out of the delta plan
   */
  List<String> check(
      String sql,
      JoinStrategy strategy,
      Set<String> changed,
      Map<String, List<List<Object>>> old,
      Map<String, List<List<Object>>> changes)
      throws SQLException {
    View view = view(sql);
    Set<String> insertOnly = new TreeSet<>();
    changes.forEach(
        (table, rows) -> {
          if (!rows.isEmpty() && rows.stream().allMatch(r -> weight(r) > 0)) {
            insertOnly.add(table);
          }
        });
    Delta delta = delta(sql, view, strategy, changed, insertOnly);
    String description =
        String.format(
            "view %s%nstrategy %s, changed %s, insert-only %s%nold %s%nchanges %s%ndelta plan:%n%s",
            sql,
            strategy,
            new TreeSet<>(changed),
            insertOnly,
            old,
            changes,
            RelOptUtil.toString(delta.plan()));

    for (String table : tables.tableNames()) {
      tables.setRows(table, old.getOrDefault(table, List.of()));
      tables.setDelta(table, List.of());
    }
    List<List<Object>> oldResult = InMemoryTables.run(view.recompute());
    for (String table : tables.tableNames()) {
      List<List<Object>> change = changes.getOrDefault(table, List.of());
      tables.setRows(table, applied(old.getOrDefault(table, List.of()), change));
      tables.setDelta(table, change);
    }
    List<List<Object>> deltaRows = InMemoryTables.run(delta.statement());
    List<List<Object>> newResult = InMemoryTables.run(view.recompute());

    if (view.state() == null) {
      Bag maintained = Bag.of(oldResult);
      maintained.addWeighted(deltaRows);
      assertThat(maintained.negativeRows()).as(description).isEmpty();
      assertThat(maintained).as(description).isEqualTo(Bag.of(newResult));
    } else {
      StateLayout state = view.state();
      Map<List<Object>, List<Object>> groups = groups(state, oldResult);
      applyStateChange(state, groups, deltaRows, description);
      assertThat(Bag.of(new ArrayList<>(groups.values())))
          .as(description)
          .isEqualTo(Bag.of(new ArrayList<>(groups(state, newResult).values())));
    }
    return delta.prunedTerms();
  }

  private View view(String sql) throws SQLException {
    View view = views.get(sql);
    if (view == null) {
      MaintainedView compiled = compiler.compile("v", sql);
      if (compiled.aggregate() == null) {
        view = new View(compiled, tables.prepare(compiled.plan()), null);
      } else {
        StateLayout state = compiled.stateLayout();
        requireNoMinMax(state, sql);
        view = new View(compiled, tables.prepare(compiled.storedContentPlan()), state);
      }
      views.put(sql, view);
    }
    return view;
  }

  private Delta delta(
      String sql, View view, JoinStrategy strategy, Set<String> changed, Set<String> insertOnly)
      throws SQLException {
    String key = sql + "|" + strategy + "|" + new TreeSet<>(changed) + "|" + insertOnly;
    Delta delta = deltas.get(key);
    if (delta == null) {
      List<List<String>> read = view.compiled().baseTables();
      DeltaProgram program =
          view.compiled()
              .delta(new Change(qualified(changed, read), qualified(insertOnly, read), strategy));
      RelNode plan = program.plan();
      // the plan run here is the one the driver writes for DuckDB: one query, whose subplans read
      // twice are written once first (SharedSubplans)
      assertThat(program.sql()).matches("(?s)(SELECT|WITH \"ivm_shared_1\").*");
      // compiling costs far more than deriving: equal plans share one compiled statement
      PreparedStatement statement =
          compiled.computeIfAbsent(RelOptUtil.toString(plan), text -> prepare(plan));
      delta = new Delta(plan, statement, program.pruned());
      deltas.put(key, delta);
    }
    return delta;
  }

  /** The qualified names of the tables {@code names} among those the view {@code read}s. */
  private static Set<List<String>> qualified(Set<String> names, List<List<String>> read) {
    Set<List<String>> tables = new HashSet<>();
    for (String name : names) {
      if (read.contains(List.of("main", name))) {
        tables.add(List.of("main", name));
      }
    }
    return tables;
  }

  private PreparedStatement prepare(RelNode plan) {
    try {
      return tables.prepare(plan);
    } catch (SQLException e) {
      throw new IllegalStateException("cannot compile " + RelOptUtil.toString(plan), e);
    }
  }

  /** {@code rows} after {@code change}: inserted copies first, so that a row may come and go. */
  static List<List<Object>> applied(List<List<Object>> rows, List<List<Object>> change) {
    List<List<Object>> result = new ArrayList<>(rows);
    for (List<Object> row : change) {
      for (long i = 0; i < weight(row); i++) {
        result.add(row.subList(0, row.size() - 1));
      }
    }
    for (List<Object> row : change) {
      for (long i = 0; i < -weight(row); i++) {
        if (!result.remove(row.subList(0, row.size() - 1))) {
          throw new IllegalArgumentException("deletes a row that is not there: " + row);
        }
      }
    }
    return result;
  }

  private static long weight(List<Object> weightedRow) {
    return ((Number) weightedRow.get(weightedRow.size() - 1)).longValue();
  }

  /**
   * The groups of a state query's result, by normalized key; a group with no row (the one row of an
   * aggregate without GROUP BY over no rows) is not a stored group.
   */
  private static Map<List<Object>, List<Object>> groups(
      StateLayout state, List<List<Object>> rows) {
    int keys = state.keys().size();
    Map<List<Object>, List<Object>> groups = new LinkedHashMap<>();
    for (List<Object> row : rows) {
      List<Object> normalized = Bag.normalize(row);
      if (BigDecimal.ZERO.compareTo((BigDecimal) normalized.get(keys)) != 0) {
        groups.put(new ArrayList<>(normalized.subList(0, keys)), normalized);
      }
    }
    return groups;
  }

  /**
   * Adds each touched group's state change to {@code groups}, as the merge does: counts and sums
   * add (a NULL sum as zero), a sum whose non-null count is zero is NULL, a group whose row count
   * is zero is deleted; no count may become negative.
   */
  private static void applyStateChange(
      StateLayout state,
      Map<List<Object>, List<Object>> groups,
      List<List<Object>> deltaRows,
      String description) {
    int keys = state.keys().size();
    List<String> names = state.columnNames();
    Set<List<Object>> touched = new HashSet<>();
    for (List<Object> raw : deltaRows) {
      List<Object> row = Bag.normalize(raw);
      List<Object> key = new ArrayList<>(row.subList(0, keys));
      assertThat(touched.add(key)).as("one delta row per group %s%n%s", key, description).isTrue();
      if (keys == 0 && row.stream().allMatch(Objects::isNull)) {
        // SUM over an empty change: the one row of an aggregate without GROUP BY changes nothing
        continue;
      }
      List<Object> current = groups.computeIfAbsent(key, k -> emptyGroup(state, k));
      for (int i = keys; i < names.size(); i++) {
        Kind kind = state.columns().get(i - keys).kind();
        BigDecimal change = (BigDecimal) row.get(i);
        if (kind == Kind.COUNT) {
          assertThat(change).as("count change %s%n%s", names.get(i), description).isNotNull();
        }
        if (change != null) {
          BigDecimal before =
              current.get(i) == null ? BigDecimal.ZERO : (BigDecimal) current.get(i);
          current.set(i, before.add(change).stripTrailingZeros());
        }
      }
    }
    for (List<Object> group : new ArrayList<>(groups.values())) {
      BigDecimal rows = (BigDecimal) group.get(keys);
      for (int i = keys; i < names.size(); i++) {
        if (state.columns().get(i - keys).kind() == Kind.COUNT) {
          // a non-null count lies between zero and the group's row count
          BigDecimal count = (BigDecimal) group.get(i);
          assertThat(count.signum())
              .as("count %s of group %s%n%s", names.get(i), group, description)
              .isNotNegative();
          assertThat(count)
              .as("count %s of group %s%n%s", names.get(i), group, description)
              .isLessThanOrEqualTo(rows);
        }
      }
      for (List<String> call : state.calls()) {
        if (call.size() == 2) {
          // a sum and its non-null count (SUM, AVG)
          String value = call.get(0);
          int sum = names.indexOf(value);
          if (((BigDecimal) group.get(names.indexOf(call.get(1)))).signum() == 0) {
            // over no non-null value the sum is NULL; what was added must have cancelled out
            assertThat(group.get(sum) == null || ((BigDecimal) group.get(sum)).signum() == 0)
                .as("sum %s over no value in group %s%n%s", value, group, description)
                .isTrue();
            group.set(sum, null);
          }
        }
      }
      if (rows.signum() == 0) {
        groups.remove(group.subList(0, keys));
      }
    }
  }

  /** A group not stored yet: zero counts, NULL sums. */
  private static List<Object> emptyGroup(StateLayout state, List<Object> key) {
    List<Object> group = new ArrayList<>(key);
    for (StateLayout.Column column : state.columns()) {
      group.add(column.kind() == Kind.COUNT ? BigDecimal.ZERO : null);
    }
    return group;
  }

  private static void requireNoMinMax(StateLayout state, String sql) {
    if (state.columns().stream().anyMatch(c -> c.kind() != Kind.COUNT && c.kind() != Kind.SUM)) {
      throw new IllegalArgumentException("MIN and MAX are merged only without deletes: " + sql);
    }
  }
}
