package org.calciteivm.jdbc.catalog;

import org.calciteivm.core.IvmNames;

/**
 * A base table that at least one materialized view reads, so its changes are captured.
 *
 * @param id the table's id in calcite-ivm's catalog
 * @param relation the table as DuckDB describes it
 */
public record TrackedTable(int id, Relation relation) {

  /** The quoted name of the table that receives its captured changes. */
  public String deltaTable() {
    return IvmNames.qualified(IvmNames.SCHEMA, IvmNames.deltaTable(id, relation.name()));
  }

  /**
   * The temporary view through which a refresh's delta plan reads the table's pending change (see
   * {@link IvmCatalog#pendingViewSql}).
   */
  public String pendingTable() {
    return IvmNames.qualified("temp", IvmNames.pendingTable(id));
  }
}
