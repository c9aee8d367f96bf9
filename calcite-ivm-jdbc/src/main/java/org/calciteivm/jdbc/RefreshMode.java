package org.calciteivm.jdbc;

import java.util.Locale;

/** How a refresh brings a view up to date; the value of the setting {@code ivm_refresh_mode}. */
public enum RefreshMode {
  /**
   * Per refresh, whichever of the two the costs of the view's past refreshes (kept in the catalog)
   * say is cheaper for the pending change; incremental while a cost is not known.
   */
  AUTO,
  /** Apply the change: the view's merge strategy for the pending change. */
  INCREMENTAL,
  /** Recompute the view's stored content from its query, and consume the change. */
  FULL;

  /** The value as written in SQL: {@code auto}, {@code incremental}, {@code full}. */
  public String sqlValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The mode with this SQL value. */
  public static RefreshMode ofSqlValue(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
