package org.calciteivm.jdbc.catalog;

import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A column of a DuckDB table, as its catalog describes it.
 *
 * @param name the column's name
 * @param dataType DuckDB's spelling of its type, usable in DDL and casts
 * @param defaultExpression its DEFAULT expression, or null
 * @param nullable whether it accepts NULL
 */
public record Column(
    String name, String dataType, @Nullable String defaultExpression, boolean nullable) {}
