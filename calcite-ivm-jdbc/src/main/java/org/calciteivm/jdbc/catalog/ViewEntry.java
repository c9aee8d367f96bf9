package org.calciteivm.jdbc.catalog;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.util.List;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.MergeStrategy;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A materialized view in calcite-ivm's catalog.
 *
 * @param id the view's id
 * @param name its name, which users query (a DuckDB view in {@code schema})
 * @param schema the schema of the view users query: {@code main} unless they named another; {@link
 *     IvmNames#SCHEMA} for a hidden view
 * @param query its defining query as the user wrote it
 * @param strategy the merge strategy its shape needs
 * @param inputTableIds the ids of the tracked tables it reads
 * @param columnsRead per tracked table it reads, the names of the columns it reads; null for a view
 *     created before they were recorded
 * @param ownerViewId for a hidden view (an intermediate state that a view keeps for one of its
 *     subqueries, see {@code IntermediateStates}), the id of the view that created it and reads it;
 *     null for a user's view
 * @param servedView for a hidden view, the name of the user's view it serves (its owner, or its
 *     owner's owner...), as {@link #displayName} gives it; null for a user's view
 * @param splitsQuery whether the view owns hidden views: it is planned with its query split
 * @param timing when the view is refreshed (a hidden view: as its owner)
 */
public record ViewEntry(
    int id,
    String name,
    String schema,
    String query,
    MergeStrategy strategy,
    ImmutableList<Integer> inputTableIds,
    @Nullable ImmutableMap<Integer, ImmutableSet<String>> columnsRead,
    @Nullable Integer ownerViewId,
    @Nullable String servedView,
    boolean splitsQuery,
    RefreshTiming timing) {

  /** Whether this is a hidden view, which the view {@link #ownerViewId} keeps. */
  public boolean isHidden() {
    return ownerViewId != null;
  }

  /** The schema of the view's user view: its schema, {@link IvmNames#SCHEMA} for a hidden view. */
  public String userViewSchema() {
    return isHidden() ? IvmNames.SCHEMA : schema;
  }

  /** The view's name for messages: qualified by its schema unless that is {@code main}. */
  public String displayName() {
    return displayName(userViewSchema(), name);
  }

  /** The name of view {@code name} in {@code schema} for messages. */
  public static String displayName(String schema, String name) {
    return schema.equalsIgnoreCase("main") ? name : schema + "." + name;
  }

  /** The quoted name of the table that stores the view's rows. */
  public String dataTable() {
    return IvmNames.qualified(IvmNames.SCHEMA, IvmNames.viewDataTable(id, name));
  }

  /** The quoted name users (or, for a hidden view, its owner) query. */
  public String userView() {
    return IvmNames.qualified(userViewSchema(), name);
  }

  /**
   * What a hidden view is, for messages: {@code hidden view "_ivm"."node_5_1", which materialized
   * view "v" keeps for a subquery of its query}.
   */
  public String describeHidden() {
    return "hidden view "
        + userView()
        + ", which materialized view \""
        + usersName()
        + "\" keeps for a subquery of its query";
  }

  /** The name of the user's view this view is or serves, for messages. */
  public String usersName() {
    return servedView == null ? displayName() : servedView;
  }

  /**
   * {@code materialized view "a" <singularVerb>} or {@code materialized views "a", "b"
   * <pluralVerb>}, for messages; a hidden view is named by the user's view it serves.
   */
  public static String dependents(List<ViewEntry> views, String singularVerb, String pluralVerb) {
    List<String> names = views.stream().map(v -> '"' + v.usersName() + '"').distinct().toList();
    return names.size() == 1
        ? "materialized view " + names.get(0) + " " + singularVerb
        : "materialized views " + String.join(", ", names) + " " + pluralVerb;
  }
}
