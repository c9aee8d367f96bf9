package org.calciteivm.jdbc.catalog;

import com.google.common.collect.ImmutableList;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;

/**
 * A base table that at least one materialized view reads, so its changes are captured.
 *
 * <p>Only the columns some view reads are captured ({@code capturedColumns}, the data columns of
 * the delta table): a change to the other columns cannot change any view.
 *
 * @param id the table's id in calcite-ivm's catalog
 * @param relation the table as DuckDB describes it
 * @param capturedColumns the names of the columns its delta table records, in the delta table's
 *     order
 */
public record TrackedTable(int id, Relation relation, ImmutableList<String> capturedColumns) {

  /** The quoted name of the table that receives its captured changes. */
  public String deltaTable() {
    return IvmNames.qualified(IvmNames.SCHEMA, IvmNames.deltaTable(id, relation.name()));
  }

  /**
   * The view through which a refresh of view {@code viewId} reads the table's change that the view
   * has not consumed (see {@link ChangeLogs#pendingViewSql}).
   */
  public String pendingView(int viewId) {
    return IvmNames.qualified(IvmNames.SCHEMA, IvmNames.pendingView(viewId, id));
  }

  /** Whether changes to column {@code name} are captured. */
  public boolean captures(String name) {
    return capturedColumns.contains(name);
  }

  /**
   * The captured columns, quoted and each prefixed by {@code qualifier} (e.g. {@code "s."}), with a
   * comma after each: ready to precede the weight in a select list or column list.
   */
  public String capturedColumnsThenComma(String qualifier) {
    return capturedColumns.stream()
        .map(c -> qualifier + IvmNames.quote(c) + ", ")
        .collect(Collectors.joining());
  }
}
