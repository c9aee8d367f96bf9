package org.calciteivm.jdbc.capture;

import com.google.common.collect.ImmutableList;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.ZSets;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.sql.WriteFrame;

/**
 * The parts of a capture's SQL that depend on the tracked table alone, not on the write: its name,
 * the connection's stage tables for it, the columns its delta captures, and how rows are appended
 * to its delta. {@link CaptureRewriter} builds each write's statements from them.
 */
final class CapturedTable {
  private static final String ROWID = IvmNames.quote(IvmNames.ROWID_COLUMN);

  private final TrackedTable table;

  CapturedTable(TrackedTable table) {
    this.table = table;
  }

  /** The table's qualified name. */
  String target() {
    return table.relation().qualifiedName();
  }

  /**
   * The connection's stage table for {@code purpose}; its name tells the table's columns and the
   * captured columns apart, so a connection's stage from before a view made the table capture more
   * columns, or before ALTER TABLE changed its columns, is not reused.
   */
  String stage(String purpose) {
    int shape = 31 * table.relation().columns().hashCode() + table.capturedColumns().hashCode();
    return IvmNames.qualified(
        "temp",
        IvmNames.stageTable(purpose, table.id()) + "_" + Integer.toUnsignedString(shape, 36));
  }

  /** The connection's stage of the rows an INSERT or COPY proposes. */
  String insertStage() {
    return stage("insert");
  }

  /**
   * Creates {@link #insertStage()} if the connection has none: a temporary table of the target's
   * columns and defaults, so that an INSERT that names some columns fills the others as the target
   * would.
   */
  String insertStageSetup() {
    return "CREATE TEMP TABLE IF NOT EXISTS "
        + insertStage()
        + " ("
        + columnDefinitions(true)
        + ")";
  }

  /**
   * The target's columns with their types, and their defaults if {@code withDefaults}, for the
   * definition of a stage table.
   */
  String columnDefinitions(boolean withDefaults) {
    return table.relation().columns().stream()
        .map(
            c ->
                IvmNames.quote(c.name())
                    + " "
                    + c.dataType()
                    + (!withDefaults || c.defaultExpression() == null
                        ? ""
                        : " DEFAULT " + c.defaultExpression()))
        .collect(Collectors.joining(", "));
  }

  /** The connection's stage of the rows a write with RETURNING wrote, all their columns. */
  String returnedStage() {
    return stage("returned");
  }

  /** Creates {@link #returnedStage()} if the connection has none. */
  String returnedStageSetup() {
    return wholeRowsStageSetup(returnedStage());
  }

  /**
   * Creates {@code stage} if the connection has none: a temporary table of the target's columns.
   */
  String wholeRowsStageSetup(String stage) {
    return "CREATE TEMP TABLE IF NOT EXISTS " + stage + " (" + columnDefinitions(false) + ")";
  }

  /**
   * The query of {@code frame}'s RETURNING list over {@link #returnedStage()}, which takes the name
   * the statement calls the target by.
   */
  String returningQuery(WriteFrame frame) {
    String list = frame.sql().substring(frame.returning().start(), frame.end());
    return "SELECT "
        + list.substring("RETURNING".length())
        + " FROM "
        + returnedStage()
        + " AS "
        + frame.qualifier();
  }

  /** The connection's stage table of the rowids a write changed, to be claimed. */
  String rowidStage() {
    return IvmNames.qualified("temp", IvmNames.stageTable("rowids", table.id()));
  }

  /** Creates {@link #rowidStage()} if the connection has none. */
  ImmutableList<String> rowidStageSetup() {
    return ImmutableList.of(
        "CREATE TEMP TABLE IF NOT EXISTS " + rowidStage() + " (" + ROWID + " BIGINT)");
  }

  /**
   * Creates {@code stage} if the connection has none: a temporary table of changed rows, their
   * rowid and captured columns, then {@code moreDefinitions} (column definitions, each after a
   * comma).
   */
  String rowsStageSetup(String stage, String moreDefinitions) {
    String captured =
        table.capturedColumns().stream()
            .map(name -> table.relation().columns().get(table.relation().columnIndex(name)))
            .map(c -> ", " + IvmNames.quote(c.name()) + " " + c.dataType())
            .collect(Collectors.joining());
    return "CREATE TEMP TABLE IF NOT EXISTS "
        + stage
        + " ("
        + ROWID
        + " BIGINT"
        + captured
        + moreDefinitions
        + ")";
  }

  /** The captured columns, each preceded by {@code separator} and {@code qualifier}. */
  String capturedColumns(String separator, String qualifier) {
    return table.capturedColumns().stream()
        .map(c -> separator + qualifier + IvmNames.quote(c))
        .collect(Collectors.joining());
  }

  /** The captured columns of {@code qualifier}, each followed by a comma. */
  String captured(String qualifier) {
    return table.capturedColumnsThenComma(qualifier);
  }

  /**
   * A RETURNING list of the captured columns, each prefixed by {@code qualifier}: {@code NULL} if
   * there are none, as a RETURNING list cannot be empty.
   */
  String returning(String qualifier) {
    String columns = capturedColumns(", ", qualifier);
    return columns.isEmpty() ? "NULL" : columns.substring(2);
  }

  /** {@code INSERT INTO} the delta, with its column list: the captured columns, weight, epoch. */
  String deltaInsertHead() {
    return "INSERT INTO "
        + table.deltaTable()
        + " ("
        + captured("")
        + IvmNames.quote(ZSets.WEIGHT_COLUMN)
        + ", "
        + IvmNames.quote(IvmNames.EPOCH_COLUMN)
        + ")";
  }

  /**
   * Appends {@code columns} (the captured columns of {@code rows}, each followed by a comma) to the
   * delta with weight {@code weight}.
   */
  String deltaInsert(String columns, String weight, String rows) {
    return deltaInsertHead() + " SELECT " + columns + weight + ", NULL FROM " + rows;
  }
}
