package org.calciteivm.jdbc.catalog;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableSet;
import org.calciteivm.core.IvmNames;

/**
 * A table or view of the DuckDB database.
 *
 * @param schema its schema
 * @param name its name, as DuckDB stores it
 * @param isTable whether it is a base table (not a view)
 * @param columns its columns in order
 * @param foreignKeys the FOREIGN KEY constraints declared on it
 * @param primaryKey the columns of its PRIMARY KEY; empty if it has none
 */
public record Relation(
    String schema,
    String name,
    boolean isTable,
    ImmutableList<Column> columns,
    ImmutableList<ForeignKey> foreignKeys,
    ImmutableList<String> primaryKey) {

  /**
   * A declared {@code FOREIGN KEY (columns) REFERENCES referencedTable (referencedColumns)}; DuckDB
   * enforces it and requires the referenced columns to be a primary or unique key of a table in the
   * same schema.
   */
  public record ForeignKey(
      ImmutableList<String> columns,
      String referencedTable,
      ImmutableList<String> referencedColumns) {}

  /** The position of the column called {@code column} (as DuckDB stores it), or -1. */
  public int columnIndex(String column) {
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equals(column)) {
        return i;
      }
    }
    return -1;
  }

  /** The names of its columns, in order. */
  public ImmutableSet<String> columnNames() {
    return columns.stream().map(Column::name).collect(ImmutableSet.toImmutableSet());
  }

  /** The quoted, schema-qualified name. */
  public String qualifiedName() {
    return IvmNames.qualified(schema, name);
  }

  /** The name users see: unqualified in the main schema, qualified elsewhere. */
  public String displayName() {
    return schema.equals("main") ? name : schema + "." + name;
  }
}
