package org.calciteivm.spark;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.TableProperties;
import org.apache.iceberg.spark.Spark3Util;
import org.apache.iceberg.util.SnapshotUtil;
import org.apache.spark.sql.SparkSession;

/**
 * The Iceberg side of a view: base tables and their snapshots, and the watermarks a view's stored
 * table keeps. The watermark of a base table is the id of the snapshot whose content the view
 * holds; the stored table keeps them in the summary of each of its snapshots ({@link #WATERMARK}),
 * written by the same commit as the change they belong to, so that a view and its watermarks change
 * together or not at all.
 */
final class IcebergTables {
  /** The snapshot-summary (and, at creation, table) property prefix of a base table's watermark. */
  static final String WATERMARK = "ivm.watermark.";

  private IcebergTables() {}

  /**
   * The Iceberg table {@code name}, refreshed.
   *
   * @throws IllegalArgumentException if it is not an Iceberg table
   */
  static Table load(SparkSession spark, List<String> name) {
    try {
      Table table = Spark3Util.loadIcebergTable(spark, SparkSchemas.quote(name));
      table.refresh();
      return table;
    } catch (Exception e) {
      throw new IllegalArgumentException(
          "table " + String.join(".", name) + " is not an Iceberg table: " + e.getMessage(), e);
    }
  }

  /**
   * Checks that the changes of a base table can be read from Iceberg's changelog: it has a snapshot
   * and writes deletes by copying files (the changelog cannot read delete files).
   */
  static void requireChangelog(List<String> name, Table table) {
    for (String mode :
        List.of(
            TableProperties.DELETE_MODE, TableProperties.UPDATE_MODE, TableProperties.MERGE_MODE)) {
      String value = table.properties().getOrDefault(mode, "copy-on-write");
      if (!value.equals("copy-on-write")) {
        throw new IllegalArgumentException(
            "table "
                + String.join(".", name)
                + " has "
                + mode
                + " = "
                + value
                + ": Iceberg's changelog cannot read delete files, so the changes of a view's base"
                + " tables must be written copy-on-write (ALTER TABLE ... SET TBLPROPERTIES ('"
                + mode
                + "' = 'copy-on-write'))");
      }
    }
    if (table.currentSnapshot() == null) {
      throw new IllegalArgumentException(
          "table "
              + String.join(".", name)
              + " has no snapshot yet: write to it once before creating a view over it");
    }
  }

  /** The property key of the watermark of base table {@code name}. */
  static String watermarkKey(List<String> name) {
    return WATERMARK + String.join(".", name);
  }

  /** The properties that record {@code snapshots} (base table name to snapshot id). */
  static Map<String, String> watermarkProperties(Map<List<String>, Long> snapshots) {
    Map<String, String> properties = new TreeMap<>();
    snapshots.forEach((name, id) -> properties.put(watermarkKey(name), Long.toString(id)));
    return properties;
  }

  /**
   * The watermark of base table {@code name} in the stored table {@code stored}: from the summary
   * of its current snapshot, else from its properties (set when it was created).
   */
  static long watermark(Table stored, List<String> name) {
    String key = watermarkKey(name);
    Snapshot current = stored.currentSnapshot();
    String value = current == null ? null : current.summary().get(key);
    if (value == null) {
      value = stored.properties().get(key);
    }
    if (value == null) {
      throw new IllegalStateException(
          "the stored table of the view has no watermark for " + String.join(".", name));
    }
    return Long.parseLong(value);
  }

  /**
   * Whether every snapshot after {@code watermark} up to {@code current} only appended rows.
   *
   * @throws IllegalStateException if the snapshots after {@code watermark} are not all there (it
   *     expired, or the table was rolled back past it)
   */
  static boolean onlyAppendsSince(
      Table table, List<String> name, long watermark, long current, String view) {
    if (table.snapshot(watermark) == null
        || !SnapshotUtil.isAncestorOf(table, current, watermark)) {
      throw new IllegalStateException(
          "snapshot "
              + watermark
              + " of table "
              + String.join(".", name)
              + ", which view "
              + view
              + " holds, is no longer in the table's history (expired or rolled back): a"
              + " refresh reads every snapshot after it. Keep snapshots newer than the views'"
              + " watermarks (see explain), or recompute the view with refreshFull");
    }
    for (Snapshot snapshot : SnapshotUtil.ancestorsBetween(table, current, watermark)) {
      if (!"append".equals(snapshot.operation())) {
        return false;
      }
    }
    return true;
  }
}
