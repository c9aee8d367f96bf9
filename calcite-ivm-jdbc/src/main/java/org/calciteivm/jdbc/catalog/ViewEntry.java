package org.calciteivm.jdbc.catalog;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.util.List;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.MergeStrategy;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A materialized view in calcite-ivm's catalog.
 *
 * @param id the view's id
 * @param name its name, which users query (a DuckDB view in the main schema)
 * @param query its defining query as the user wrote it
 * @param strategy the merge strategy its shape needs
 * @param inputTableIds the ids of the tracked tables it reads
 * @param columnsRead per tracked table it reads, the names of the columns it reads; null for a view
 *     created before they were recorded
 */
public record ViewEntry(
    int id,
    String name,
    String query,
    MergeStrategy strategy,
    ImmutableList<Integer> inputTableIds,
    @Nullable ImmutableMap<Integer, ImmutableSet<String>> columnsRead) {

  /** The quoted name of the table that stores the view's rows. */
  public String dataTable() {
    return IvmNames.qualified(IvmNames.SCHEMA, IvmNames.viewDataTable(id, name));
  }

  /** The quoted name users query. */
  public String userView() {
    return IvmNames.qualified("main", name);
  }

  /**
   * {@code materialized view "a" <singularVerb>} or {@code materialized views "a", "b"
   * <pluralVerb>}, for messages.
   */
  public static String dependents(List<ViewEntry> views, String singularVerb, String pluralVerb) {
    String names = views.stream().map(v -> '"' + v.name() + '"').collect(Collectors.joining(", "));
    return views.size() == 1
        ? "materialized view " + names + " " + singularVerb
        : "materialized views " + names + " " + pluralVerb;
  }
}
