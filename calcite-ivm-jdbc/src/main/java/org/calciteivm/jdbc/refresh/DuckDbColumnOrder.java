package org.calciteivm.jdbc.refresh;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.logical.LogicalSort;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.rules.IvmRelBuilders;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A view's plan with its columns in the order DuckDB gives its query's, where the two differ only
 * in order. The stored view is made and read by position in DuckDB's order, and Calcite expands
 * {@code SELECT *} over a {@code NATURAL} or {@code USING} join as the standard says, the merged
 * columns first, where DuckDB keeps the left input's order ({@code t(id, g) NATURAL JOIN k(g,
 * name)}: Calcite {@code g, id, name}, DuckDB {@code id, g, name}); a refresh wrote each change's
 * {@code g} into {@code id} and back.
 */
final class DuckDbColumnOrder {
  private DuckDbColumnOrder() {}

  /**
   * {@code plan} projected to the order of {@code names}, DuckDB's names of its columns, if its own
   * are the same in another order ({@link #permutation}); {@code plan} otherwise. A sort on top
   * that only orders the view's rows stays on top, its keys renumbered; a top-N sort (with a limit)
   * is left as it is.
   */
  static RelNode of(RelNode plan, List<String> names) {
    List<String> own = plan.getRowType().getFieldNames();
    List<Integer> order = permutation(own, names);
    if (order == null) {
      return plan;
    }
    RelBuilder builder = IvmRelBuilders.create(plan.getCluster());
    if (plan instanceof Sort sort) {
      if (sort.fetch != null || sort.offset != null) {
        return plan;
      }
      builder.push(sort.getInput()).project(builder.fields(order));
      List<RelFieldCollation> keys = new ArrayList<>();
      for (RelFieldCollation key : sort.getCollation().getFieldCollations()) {
        keys.add(key.withFieldIndex(order.indexOf(key.getFieldIndex())));
      }
      RelCollation collation = RelCollations.of(keys);
      return LogicalSort.create(builder.build(), collation, null, null);
    }
    return builder.push(plan).project(builder.fields(order)).build();
  }

  /**
   * Per column of {@code target}, the position of the same column in {@code own}, if {@code own}
   * holds the same columns in another order; null otherwise. Columns are matched by name ignoring
   * case, and a name that repeats by its occurrence: Calcite and DuckDB tell repeated names apart
   * by numbers of their own ({@code h0}, {@code h_1}), which are left out.
   */
  private static @Nullable List<Integer> permutation(List<String> own, List<String> target) {
    if (own.size() != target.size() || own.equals(target)) {
      return null;
    }
    List<String> ownKeys = occurrences(own);
    List<String> targetKeys = occurrences(target);
    List<Integer> order = new ArrayList<>();
    for (String key : targetKeys) {
      int at = ownKeys.indexOf(key);
      if (at < 0 || order.contains(at)) {
        return null;
      }
      order.add(at);
    }
    for (int i = 0; i < order.size(); i++) {
      if (order.get(i) != i) {
        return order;
      }
    }
    return null;
  }

  /**
   * Each name as its base name (lower case, a number that tells a repeat apart left out: {@code
   * h0}, {@code h_1} after an {@code h}) and how many times that base came before.
   */
  private static List<String> occurrences(List<String> names) {
    List<String> bases = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    for (String name : names) {
      String lower = name.toLowerCase(Locale.ROOT);
      Matcher repeat = REPEAT.matcher(lower);
      String base = repeat.matches() && bases.contains(repeat.group(1)) ? repeat.group(1) : lower;
      keys.add(base + "#" + Collections.frequency(bases, base));
      bases.add(base);
    }
    return keys;
  }

  private static final Pattern REPEAT = Pattern.compile("(.+?)_?\\d+");
}
