package org.calciteivm.jdbc.catalog;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * calcite-ivm's catalog as of one committed state: the tracked tables and the views. Immutable;
 * replaced as a whole after every statement that changes the catalog.
 */
public final class CatalogSnapshot {
  private final ImmutableMap<String, TrackedTable> tablesByName;
  private final ImmutableMap<Integer, TrackedTable> tablesById;
  private final ImmutableMap<String, ViewEntry> viewsByName;

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
      views1.put(view.name().toLowerCase(Locale.ROOT), view);
    }
    this.tablesByName = byName.buildOrThrow();
    this.tablesById = byId.buildOrThrow();
    this.viewsByName = views1.buildOrThrow();
  }

  /** A catalog without tables or views, for a database where no view was ever created. */
  public static CatalogSnapshot empty() {
    return new CatalogSnapshot(List.of(), List.of());
  }

  /** The tracked table {@code schema.name}, ignoring case. */
  public Optional<TrackedTable> trackedTable(String schema, String name) {
    return Optional.ofNullable(tablesByName.get(DuckDbCatalog.key(schema, name)));
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

  /** The materialized view called {@code name}, ignoring case. */
  public Optional<ViewEntry> view(String name) {
    return Optional.ofNullable(viewsByName.get(name.toLowerCase(Locale.ROOT)));
  }

  /** Every materialized view. */
  public ImmutableList<ViewEntry> views() {
    return viewsByName.values().asList();
  }

  /** The views that read the tracked table {@code tableId}. */
  public ImmutableList<ViewEntry> viewsReading(int tableId) {
    return viewsByName.values().stream()
        .filter(v -> v.inputTableIds().contains(tableId))
        .collect(ImmutableList.toImmutableList());
  }
}
