package org.calciteivm.core;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * Names of the objects calcite-ivm keeps in the database, and quoting. Every internal object lives
 * in the schema {@link #SCHEMA} (or in the connection's temporary schema), so the user's namespace
 * only holds the views users asked for and the system view {@link #SYSTEM_VIEW}.
 */
public final class IvmNames {
  /** The schema of calcite-ivm's catalog, delta tables and stored view data. */
  public static final String SCHEMA = "_ivm";

  /** The system view in the main schema that describes every materialized view. */
  public static final String SYSTEM_VIEW = "ivm_views";

  /** Column of a delta table: the epoch a refresh sealed the row into; NULL until then. */
  public static final String EPOCH_COLUMN = "_ivm_epoch";

  /** Column of a capture stage table: the base row's {@code rowid}. */
  public static final String ROWID_COLUMN = "_ivm_rowid";

  /** Prefix of the stage columns that hold the new values of an UPDATE. */
  public static final String NEW_VALUE_PREFIX = "_ivm_new_";

  private IvmNames() {}

  /** The delta table of the tracked table with id {@code tableId}, in {@link #SCHEMA}. */
  public static String deltaTable(int tableId, String tableName) {
    return "delta_" + tableId + "_" + tableName;
  }

  /** The prefix of the names of hidden views ({@link #hiddenView}). */
  public static final String HIDDEN_VIEW_PREFIX = "node_";

  /**
   * The name, in {@link #SCHEMA}, of the hidden materialized view that keeps the {@code index}-th
   * (from 1) aggregating subquery of view {@code ownerViewId}: an intermediate state of that view.
   */
  public static String hiddenView(int ownerViewId, int index) {
    return HIDDEN_VIEW_PREFIX + ownerViewId + "_" + index;
  }

  /** The table that stores the rows (and hidden state) of a view, in {@link #SCHEMA}. */
  public static String viewDataTable(int viewId, String viewName) {
    return "view_" + viewId + "_" + viewName;
  }

  /**
   * The view, in {@link #SCHEMA}, through which a refresh of view {@code viewId} reads the change
   * of base table {@code tableId} that the view has not consumed yet.
   */
  public static String pendingView(int viewId, int tableId) {
    return "pending_" + viewId + "_" + tableId;
  }

  /** The temporary table a refresh fills with the consolidated change of a view. */
  public static String viewDeltaTable(int viewId) {
    return "_ivm_view_delta_" + viewId;
  }

  /** A connection's temporary table that stages the rows of one captured write. */
  public static String stageTable(String purpose, int tableId) {
    return "_ivm_stage_" + purpose + "_" + tableId;
  }

  /**
   * Whether a base table column called {@code name} would collide with the columns calcite-ivm adds
   * next to a base table's columns (delta tables, capture stages): the weight, the epoch, the rowid
   * and the new values of an UPDATE.
   */
  public static boolean isReservedColumn(String name) {
    String lower = name.toLowerCase(java.util.Locale.ROOT);
    return lower.equals(ZSets.WEIGHT_COLUMN)
        || lower.equals(EPOCH_COLUMN)
        || lower.equals(ROWID_COLUMN)
        || lower.matches(NEW_VALUE_PREFIX + "[0-9]+");
  }

  /** {@code identifier} as a DuckDB quoted identifier. */
  public static String quote(String identifier) {
    return '"' + identifier.replace("\"", "\"\"") + '"';
  }

  /** The quoted, dot-separated name of {@code parts}. */
  public static String qualified(String... parts) {
    return Arrays.stream(parts).map(IvmNames::quote).collect(Collectors.joining("."));
  }

  /** {@code text} as a DuckDB string literal. */
  public static String literal(String text) {
    return '\'' + text.replace("'", "''") + '\'';
  }
}
