package org.calciteivm.jdbc.catalog;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.calciteivm.core.IvmNames;

/**
 * calcite-ivm's catalog as of one committed state: the tracked tables and the views. Immutable;
 * replaced as a whole after every statement that changes the catalog.
 */
public final class CatalogSnapshot {
  private final ImmutableMap<String, TrackedTable> tablesByName;
  private final ImmutableMap<Integer, TrackedTable> tablesById;

  /** Every view by the lower-case qualified name of its user view. */
  private final ImmutableMap<String, ViewEntry> viewsByUserView;

  private final ImmutableList<ViewEntry> views;

  /**
   * Per tracked table, the user's immediate views a write to it changes ({@link
   * #immediateViewsChangedBy}), filled on first use: every captured write asks.
   */
  private final Map<Integer, ImmutableList<ViewEntry>> immediateViews = new ConcurrentHashMap<>();

  /** A snapshot of {@code tables} and {@code views}. */
  public CatalogSnapshot(List<TrackedTable> tables, List<ViewEntry> views) {
    ImmutableMap.Builder<String, TrackedTable> byName = ImmutableMap.builder();
    ImmutableMap.Builder<Integer, TrackedTable> byId = ImmutableMap.builder();
    for (TrackedTable table : tables) {
      byName.put(DuckDbCatalog.key(table.relation().schema(), table.relation().name()), table);
      byId.put(table.id(), table);
    }
    ImmutableMap.Builder<String, ViewEntry> views1 = ImmutableMap.builder();
    for (ViewEntry view : views) {
      views1.put(DuckDbCatalog.key(view.userViewSchema(), view.name()), view);
    }
    this.tablesByName = byName.buildOrThrow();
    this.tablesById = byId.buildOrThrow();
    this.viewsByUserView = views1.buildOrThrow();
    this.views = ImmutableList.copyOf(views);
  }

  /** A catalog without tables or views, for a database where no view was ever created. */
  public static CatalogSnapshot empty() {
    return new CatalogSnapshot(List.of(), List.of());
  }

  /** The tracked table {@code schema.name}, ignoring case. */
  public Optional<TrackedTable> trackedTable(String schema, String name) {
    return Optional.ofNullable(tablesByName.get(DuckDbCatalog.key(schema, name)));
  }

  /**
   * Whether some tracked table or materialized view is in schema {@code schema} (ignoring case), or
   * the schema is calcite-ivm's own.
   */
  public boolean hasSchema(String schema) {
    return schema.equalsIgnoreCase(IvmNames.SCHEMA)
        || tablesById.values().stream()
            .anyMatch(t -> t.relation().schema().equalsIgnoreCase(schema))
        || views.stream().anyMatch(v -> v.userViewSchema().equalsIgnoreCase(schema));
  }

  /** The tracked table with id {@code id}. */
  public TrackedTable trackedTable(int id) {
    TrackedTable table = tablesById.get(id);
    if (table == null) {
      throw new IllegalStateException("no tracked table with id " + id);
    }
    return table;
  }

  /** Every tracked table. */
  public ImmutableList<TrackedTable> trackedTables() {
    return tablesById.values().asList();
  }

  /**
   * The user's materialized view called {@code name} in {@code schema}, ignoring case (never a
   * hidden view).
   */
  public Optional<ViewEntry> view(String schema, String name) {
    return viewByUserView(schema, name).filter(v -> !v.isHidden());
  }

  /**
   * The materialized view, a user's or a hidden one, whose user view is {@code schema.name}
   * (ignoring case).
   */
  public Optional<ViewEntry> viewByUserView(String schema, String name) {
    return Optional.ofNullable(viewsByUserView.get(DuckDbCatalog.key(schema, name)));
  }

  /** The materialized view whose user view {@code relation} is, if it is one. */
  public Optional<ViewEntry> viewByUserView(Relation relation) {
    return relation.isTable()
        ? Optional.empty()
        : viewByUserView(relation.schema(), relation.name());
  }

  /** Every materialized view, hidden ones included, in the order of their ids. */
  public ImmutableList<ViewEntry> views() {
    return views;
  }

  /** The hidden views that view {@code viewId} created and reads. */
  public ImmutableList<ViewEntry> hiddenViewsOf(int viewId) {
    return views.stream()
        .filter(v -> v.ownerViewId() != null && v.ownerViewId() == viewId)
        .collect(ImmutableList.toImmutableList());
  }

  /** The views that read the tracked table {@code tableId}, hidden ones included. */
  public ImmutableList<ViewEntry> viewsReading(int tableId) {
    return views.stream()
        .filter(v -> v.inputTableIds().contains(tableId))
        .collect(ImmutableList.toImmutableList());
  }

  /**
   * The user's immediate views that a write to tracked table {@code tableId} changes: those that
   * read it, or read a view (a hidden view or a materialized view) that reads it, at any depth.
   */
  public ImmutableList<ViewEntry> immediateViewsChangedBy(int tableId) {
    return immediateViews.computeIfAbsent(
        tableId,
        id -> {
          Map<Integer, ViewEntry> readers = new LinkedHashMap<>();
          addReaders(id, readers);
          return readers.values().stream()
              .filter(view -> !view.isHidden() && view.timing().isImmediate())
              .collect(ImmutableList.toImmutableList());
        });
  }

  private void addReaders(int tableId, Map<Integer, ViewEntry> readers) {
    for (ViewEntry view : viewsReading(tableId)) {
      if (readers.putIfAbsent(view.id(), view) == null) {
        // the views reading this one change with it
        Optional<TrackedTable> log = trackedTable(view.userViewSchema(), view.name());
        if (log.isPresent()) {
          addReaders(log.get().id(), readers);
        }
      }
    }
  }
}
