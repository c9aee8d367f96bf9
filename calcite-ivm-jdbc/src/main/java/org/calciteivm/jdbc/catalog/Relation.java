package org.calciteivm.jdbc.catalog;

import com.google.common.collect.ImmutableList;
import org.calciteivm.core.IvmNames;

/**
 * A table or view of the DuckDB database.
 *
 * @param schema its schema
 * @param name its name, as DuckDB stores it
 * @param isTable whether it is a base table (not a view)
 * @param columns its columns in order
 */
public record Relation(String schema, String name, boolean isTable, ImmutableList<Column> columns) {

  /** The quoted, schema-qualified name. */
  public String qualifiedName() {
    return IvmNames.qualified(schema, name);
  }

  /** The name users see: unqualified in the main schema, qualified elsewhere. */
  public String displayName() {
    return schema.equals("main") ? name : schema + "." + name;
  }
}
