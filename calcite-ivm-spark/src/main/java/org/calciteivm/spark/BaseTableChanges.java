package org.calciteivm.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Predicate;
import org.apache.iceberg.DeleteFile;
import org.apache.iceberg.FileScanTask;
import org.apache.iceberg.Table;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.spark.ScanTaskSetManager;
import org.apache.iceberg.spark.SparkReadOptions;
import org.apache.spark.sql.SparkSession;

/**
 * The changes of a refresh's base tables, as the temporary views its delta plan reads ({@link
 * SparkSchemas#deltaName}): each a Z-set of the table's rows with {@code _ivm_weight}, read from
 * Iceberg (see {@link #deltaView}). {@link #close} drops the views and what they staged, once the
 * refresh's MERGE has read them.
 */
final class BaseTableChanges implements AutoCloseable {
  private final SparkSession spark;

  /** The temporary views created, each delta view after the views it reads. */
  private final List<String> views = new ArrayList<>();

  /** The scan tasks staged (see {@link #stagedScan}), by set id. */
  private final Map<String, Table> staged = new HashMap<>();

  BaseTableChanges(SparkSession spark) {
    this.spark = spark;
  }

  /**
   * Creates the temporary view that holds the change of base table {@code name} after snapshot
   * {@code from} up to {@code to}, as a Z-set (its columns and {@code _ivm_weight}); returns its
   * name. The change is read from Iceberg's changelog ({@code create_changelog_view}, as the view
   * {@code <name>_changelog}) when no snapshot has delete files, else from {@code files}: the rows
   * of the data files added, live at {@code to} (+1), and the rows of snapshot {@code from} at the
   * positions the added position-delete files list (-1, their positions in the view {@code
   * <name>_positions}), each read from the files it needs only ({@link #stagedScan}).
   */
  String deltaView(
      List<String> name, Table base, long from, long to, IcebergTables.FileChanges files) {
    String delta = SparkSchemas.deltaName(name);
    List<String> columns = new ArrayList<>();
    for (String column : spark.table(SparkSchemas.quote(name)).schema().fieldNames()) {
      columns.add(SparkSchemas.quote(column));
    }
    String select = String.join(", ", columns);
    String table = SparkSchemas.quote(name);
    if (files.source() == IcebergTables.ChangeSource.DELETE_POSITIONS) {
      String positions = delta + "_positions";
      List<String> parts = new ArrayList<>();
      Set<String> added = Set.copyOf(files.addedDataFiles());
      String inserted = delta + "_inserted";
      if (stagedScan(base, name, to, added::contains, inserted)) {
        parts.add("SELECT " + select + ", CAST(1 AS BIGINT) AS _ivm_weight FROM " + inserted);
      }
      // the files the deleted positions are in, where every delete file names its one data file
      Set<String> referenced = new HashSet<>();
      for (DeleteFile deleteFile : files.addedDeleteFiles()) {
        referenced.add(deleteFile.referencedDataFile());
      }
      String old = delta + "_old";
      if (stagedScan(
          base, name, from, referenced.contains(null) ? file -> true : referenced::contains, old)) {
        // some delete file was added (none accepts no file): its positions
        spark
            .read()
            .parquet(
                files.addedDeleteFiles().stream().map(f -> f.location()).toArray(String[]::new))
            .select("file_path", "pos")
            .createOrReplaceTempView(positions);
        views.add(positions);
        List<String> qualified = columns.stream().map(c -> "o." + c).toList();
        parts.add(
            "SELECT "
                + String.join(", ", qualified)
                + ", CAST(-1 AS BIGINT) AS _ivm_weight FROM "
                + old
                + " AS o LEFT SEMI JOIN "
                + positions
                + " AS p ON o._file = p.file_path AND o._pos = p.pos");
      }
      if (parts.isEmpty()) {
        parts.add(
            "SELECT "
                + select
                + ", CAST(1 AS BIGINT) AS _ivm_weight FROM "
                + table
                + " WHERE false");
      }
      spark.sql(
          "CREATE OR REPLACE TEMPORARY VIEW " + delta + " AS " + String.join(" UNION ALL ", parts));
      views.add(delta);
      return delta;
    }
    String changelog = delta + "_changelog";
    views.add(changelog);
    List<String> identifier = name.size() == 3 ? name.subList(1, 3) : name;
    String catalog = name.size() == 3 ? name.get(0) : spark.catalog().currentCatalog();
    spark
        .sql(
            "CALL "
                + SparkSchemas.quote(catalog)
                + ".system.create_changelog_view(table => "
                + literal(String.join(".", identifier))
                + ", options => map('start-snapshot-id', '"
                + from
                + "', 'end-snapshot-id', '"
                + to
                + "'), changelog_view => "
                + literal(changelog)
                + ")")
        .collectAsList(); // a procedure runs when its result is read;
    spark.sql(
        "CREATE OR REPLACE TEMPORARY VIEW "
            + delta
            + " AS SELECT "
            + select
            + ", CAST(CASE WHEN _change_type IN ('INSERT', 'UPDATE_AFTER') THEN 1 ELSE -1 END"
            + " AS BIGINT) AS _ivm_weight FROM "
            + changelog);
    views.add(delta);
    return delta;
  }

  /**
   * Creates the temporary view {@code view} of the rows of table {@code name} ({@code table}) at
   * {@code snapshot} in the data files that {@code file} accepts (by location), with the deletes
   * that apply to them at that snapshot, and the metadata columns {@code _file} and {@code _pos}: a
   * scan of Iceberg's file tasks staged for Spark (as Iceberg's own file rewrites read files),
   * since Iceberg does not prune files by a filter on {@code _file}. False if no file is accepted.
   */
  private boolean stagedScan(
      Table table, List<String> name, long snapshot, Predicate<String> file, String view) {
    List<FileScanTask> tasks = new ArrayList<>();
    try (CloseableIterable<FileScanTask> planned =
        table.newScan().useSnapshot(snapshot).planFiles()) {
      for (FileScanTask task : planned) {
        if (file.test(task.file().location())) {
          tasks.add(task);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    if (tasks.isEmpty()) {
      return false;
    }
    String id = view + "_" + UUID.randomUUID();
    ScanTaskSetManager.get().stageTasks(table, id, tasks);
    staged.put(id, table);
    spark
        .read()
        .format("iceberg")
        .option(SparkReadOptions.SCAN_TASK_SET_ID, id)
        .load(SparkSchemas.quote(name))
        .selectExpr("*", "_file", "_pos") // metadata columns are read only when selected here
        .createOrReplaceTempView(view);
    views.add(view);
    return true;
  }

  /** Drops the views and the staged scan tasks. */
  @Override
  public void close() {
    for (String view : views) {
      spark.sql("DROP VIEW IF EXISTS " + view);
    }
    views.clear();
    staged.forEach((id, table) -> ScanTaskSetManager.get().removeTasks(table, id));
    staged.clear();
  }

  private static String literal(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }
}
