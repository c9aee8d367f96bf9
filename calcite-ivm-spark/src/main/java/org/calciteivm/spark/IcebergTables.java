package org.calciteivm.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.iceberg.DataFile;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileContent;
import org.apache.iceberg.FileFormat;
import org.apache.iceberg.Snapshot;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.FileIO;
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
   * Checks that a base table has a snapshot, the first a view holds.
   *
   * @throws IllegalArgumentException if it has none
   */
  static void requireSnapshot(List<String> name, Table table) {
    if (table.currentSnapshot() == null) {
      throw new IllegalArgumentException(
          "table "
              + String.join(".", name)
              + " has no snapshot yet: write to it once before creating a view over it");
    }
  }

  /** How the change of a base table between two of its snapshots is read. */
  enum ChangeSource {
    /** Iceberg's changelog: no snapshot has delete files (writes are copy-on-write). */
    CHANGELOG,
    /**
     * The rows of the data files added, and the rows of the older snapshot at the positions of the
     * position-delete files added (merge-on-read deletes, in Parquet): no data file was removed, so
     * every row deleted is at a position an added delete file lists.
     */
    DELETE_POSITIONS,
    /**
     * Neither: data files were removed (compacted, rewritten) while delete files are in use, or
     * deletes were written otherwise (equality deletes, deletion vectors, other file formats).
     */
    NONE
  }

  /**
   * What the snapshots of a table after {@code from} up to {@code to} did to its files: data and
   * delete files added, whether any data file was removed, whether any has delete files, and
   * whether every snapshot only appended rows.
   */
  record FileChanges(
      List<String> addedDataFiles,
      List<DeleteFile> addedDeleteFiles,
      boolean removedDataFiles,
      boolean deleteFilesInUse,
      boolean onlyAppends) {

    /** Where the change between the two snapshots can be read from. */
    ChangeSource source() {
      if (!deleteFilesInUse) {
        return ChangeSource.CHANGELOG;
      }
      boolean positions =
          addedDeleteFiles.stream()
              .allMatch(
                  f ->
                      f.content() == FileContent.POSITION_DELETES
                          && f.format() == FileFormat.PARQUET);
      return removedDataFiles || !positions ? ChangeSource.NONE : ChangeSource.DELETE_POSITIONS;
    }
  }

  /**
   * The file changes of table {@code name} ({@code table}) after snapshot {@code from}, which
   * {@code view} holds, up to {@code to}.
   *
   * @throws IllegalStateException if the snapshots after {@code from} are not all there (it
   *     expired, or the table was rolled back past it)
   */
  static FileChanges fileChanges(Table table, List<String> name, long from, long to, String view) {
    if (table.snapshot(from) == null || !SnapshotUtil.isAncestorOf(table, to, from)) {
      throw new IllegalStateException(
          "snapshot "
              + from
              + " of table "
              + String.join(".", name)
              + ", which view "
              + view
              + " holds, is no longer in the table's history (expired or rolled back): a"
              + " refresh reads every snapshot after it. Keep snapshots newer than the views'"
              + " watermarks (see explain), or recompute the view with refreshFull");
    }
    List<String> addedData = new ArrayList<>();
    List<DeleteFile> addedDeletes = new ArrayList<>();
    boolean removed = false;
    boolean deleteFiles = false;
    boolean onlyAppends = true;
    FileIO io = table.io();
    for (Snapshot snapshot : SnapshotUtil.ancestorsBetween(table, to, from)) {
      onlyAppends &= "append".equals(snapshot.operation());
      for (DataFile file : snapshot.addedDataFiles(io)) {
        addedData.add(file.location());
      }
      snapshot.addedDeleteFiles(io).forEach(addedDeletes::add);
      // a removed delete file is one merged into an added one (its positions listed again), or
      // one whose data file went too: only removed data files lose rows without listing them
      removed |= snapshot.removedDataFiles(io).iterator().hasNext();
      deleteFiles |= !snapshot.deleteManifests(io).isEmpty();
    }
    return new FileChanges(addedData, addedDeletes, removed, deleteFiles, onlyAppends);
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
}
