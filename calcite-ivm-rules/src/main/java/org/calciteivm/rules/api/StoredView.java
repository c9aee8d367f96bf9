package org.calciteivm.rules.api;

import com.google.common.collect.ImmutableList;

/**
 * Where a view's rows are stored, as the merge statements name them.
 *
 * @param table the table that stores the view, as SQL (quoted and qualified as needed): its rows (a
 *     view without aggregate) or one row per group of keys and state (an aggregate view)
 * @param columns the stored table's column names, in order (unquoted)
 * @param deltaTable the name (unquoted, unqualified) of a temporary table the merge statements may
 *     create or replace to hold the view delta
 */
public record StoredView(String table, ImmutableList<String> columns, String deltaTable) {}
