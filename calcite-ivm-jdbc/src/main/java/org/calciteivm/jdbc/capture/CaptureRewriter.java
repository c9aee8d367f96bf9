package org.calciteivm.jdbc.capture;

import com.google.common.collect.ImmutableList;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.ZSets;
import org.calciteivm.jdbc.catalog.Column;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.sql.ObjectName;
import org.calciteivm.jdbc.sql.WriteFrame;
import org.calciteivm.jdbc.sql.WriteFrame.Assignment;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Rewrites an INSERT, UPDATE, DELETE or TRUNCATE of a tracked table into a {@link CapturePlan},
 * from the statement's {@link WriteFrame}: the target, its alias, the SET list of an UPDATE and the
 * clauses after them. Everything else is copied verbatim, so any DuckDB expression, subquery or
 * parameter marker keeps working.
 *
 * <ul>
 *   <li>INSERT: the statement inserts into a stage table with the target's columns and defaults;
 *       the staged rows go to the table and, with weight +1, to the delta.
 *   <li>DELETE and TRUNCATE: the doomed rows are staged with their {@code rowid}; the table deletes
 *       exactly those rowids, the delta gets them with weight -1.
 *   <li>UPDATE: each target row is staged with its rowid, old values and new values (the SET
 *       expressions, cast to the column types); the table is updated from the stage by rowid, the
 *       delta gets -old and +new in one statement.
 * </ul>
 *
 * DELETE, TRUNCATE and UPDATE claim their staged rowids before they change the table ({@link
 * RowClaims}).
 */
public final class CaptureRewriter {
  private final WriteFrame frame;
  private final TrackedTable table;
  private final String sql;

  private CaptureRewriter(WriteFrame frame, TrackedTable table) {
    this.frame = frame;
    this.table = table;
    this.sql = frame.sql();
  }

  /**
   * The capture plan of the write {@code frame}, whose target is {@code table}, or null for an
   * UPDATE that sets no captured column (it cannot change a view, and runs as it is).
   */
  public static @Nullable CapturePlan rewrite(WriteFrame frame, TrackedTable table)
      throws SQLException {
    CaptureRewriter rewriter = new CaptureRewriter(frame, table);
    switch (frame.kind()) {
      case INSERT:
        return rewriter.insert();
      case DELETE:
        return rewriter.delete();
      case TRUNCATE:
        return rewriter.truncate();
      case UPDATE:
        return rewriter.update();
      default:
        throw new IllegalStateException("not a capturable write: " + frame.kind());
    }
  }

  private CapturePlan insert() throws SQLException {
    refuseReturning();
    if (frame.onConflict()) {
      throw new SQLFeatureNotSupportedException(
          "INSERT ... ON CONFLICT on "
              + table.relation().displayName()
              + " cannot be captured yet: it is read by a materialized view;"
              + " use UPDATE for existing rows and INSERT for new ones",
          "0A000");
    }
    String stage = stage("insert");
    String columns =
        table.relation().columns().stream()
            .map(
                c ->
                    IvmNames.quote(c.name())
                        + " "
                        + c.dataType()
                        + (c.defaultExpression() == null
                            ? ""
                            : " DEFAULT " + c.defaultExpression()))
            .collect(Collectors.joining(", "));
    ObjectName target = frame.target();
    String stageSql = sql.substring(0, target.start()) + stage + sql.substring(target.end());
    return new CapturePlan(
        table.id(),
        ImmutableList.of("CREATE TEMP TABLE IF NOT EXISTS " + stage + " (" + columns + ")"),
        stageSql,
        ImmutableList.of(
            "INSERT INTO " + target() + " SELECT * FROM " + stage,
            deltaInsert(captured(""), "1", stage),
            "DELETE FROM " + stage),
        null);
  }

  private CapturePlan delete() throws SQLException {
    refuseReturning();
    return deleteRows(selectTargetRows(""));
  }

  private CapturePlan truncate() {
    return deleteRows(
        "SELECT rowid" + capturedColumns(", ", "") + " FROM " + frame.text(frame.relation()));
  }

  private CapturePlan deleteRows(String select) {
    String stage = stage("delete");
    return new CapturePlan(
        table.id(),
        ImmutableList.of(
            "CREATE TEMP TABLE IF NOT EXISTS "
                + stage
                + " ("
                + IvmNames.quote(IvmNames.ROWID_COLUMN)
                + " BIGINT"
                + capturedDefinitions()
                + ")"),
        "INSERT INTO " + stage + " " + select,
        ImmutableList.of(
            "DELETE FROM "
                + target()
                + " WHERE rowid IN (SELECT "
                + IvmNames.quote(IvmNames.ROWID_COLUMN)
                + " FROM "
                + stage
                + ")",
            deltaInsert(captured(""), "-1", stage),
            "DELETE FROM " + stage),
        claimSql(stage));
  }

  private @Nullable CapturePlan update() throws SQLException {
    Map<Integer, String> assignments = assignments();
    refuseReturning();
    List<Column> columns = table.relation().columns();
    if (assignments.keySet().stream().noneMatch(i -> table.captures(columns.get(i).name()))) {
      // no view reads a column it sets: the change cannot change a view
      return null;
    }
    // the SET expressions keep their order, so that parameter markers keep theirs
    String newValues =
        assignments.entrySet().stream()
            .map(
                a -> ", CAST((" + a.getValue() + ") AS " + columns.get(a.getKey()).dataType() + ")")
            .collect(Collectors.joining());
    String stage = stage("update");
    String stageColumns =
        IvmNames.quote(IvmNames.ROWID_COLUMN)
            + capturedColumns(", ", "")
            + assignments.keySet().stream()
                .map(i -> ", " + newValueColumn(i))
                .collect(Collectors.joining());
    String newRow =
        table.capturedColumns().stream()
            .map(table.relation()::columnIndex)
            .map(
                i ->
                    (assignments.containsKey(i)
                            ? newValueColumn(i)
                            : IvmNames.quote(columns.get(i).name()))
                        + ", ")
            .collect(Collectors.joining());
    String set =
        assignments.keySet().stream()
            .map(i -> IvmNames.quote(columns.get(i).name()) + " = s." + newValueColumn(i))
            .collect(Collectors.joining(", "));
    String rowid = IvmNames.quote(IvmNames.ROWID_COLUMN);
    String newValueDefinitions =
        IntStream.range(0, columns.size())
            .mapToObj(i -> ", " + newValueColumn(i) + " " + columns.get(i).dataType())
            .collect(Collectors.joining());
    return new CapturePlan(
        table.id(),
        ImmutableList.of(
            "CREATE TEMP TABLE IF NOT EXISTS "
                + stage
                + " ("
                + rowid
                + " BIGINT"
                + capturedDefinitions()
                + newValueDefinitions
                + ")"),
        "INSERT INTO " + stage + " (" + stageColumns + ") " + selectTargetRows(newValues),
        ImmutableList.of(
            "UPDATE "
                + target()
                + " AS _ivm_t SET "
                + set
                + " FROM "
                + stage
                + " AS s WHERE _ivm_t.rowid = s."
                + rowid,
            "INSERT INTO "
                + table.deltaTable()
                + " ("
                + table.capturedColumnsThenComma("")
                + WEIGHT_AND_EPOCH
                + ") SELECT "
                + captured("")
                + "-1, NULL FROM "
                + stage
                + " UNION ALL SELECT "
                + newRow
                + "1, NULL FROM "
                + stage,
            "DELETE FROM " + stage),
        claimSql(stage));
  }

  /**
   * The query that selects the target rows of a DELETE or UPDATE: their rowid, captured columns and
   * {@code extra}, from the target (with its alias) and the rest of the statement (its joined
   * relations and WHERE clause). With joins a row may match several times; it changes once.
   */
  private String selectTargetRows(String extra) {
    String qualifier =
        IvmNames.quote(frame.alias() == null ? frame.target().name() : frame.alias());
    String tail =
        frame.joined() == null ? frame.text(frame.rest()) : ", " + frame.text(frame.joined());
    return "SELECT "
        + qualifier
        + ".rowid"
        + capturedColumns(", ", qualifier + ".")
        + extra
        + " FROM "
        + frame.text(frame.relation())
        + " "
        + tail
        + (frame.joined() != null
            ? " QUALIFY row_number() OVER (PARTITION BY " + qualifier + ".rowid) = 1"
            : "");
  }

  /**
   * The column indexes an UPDATE's SET list assigns and their expressions, in the list's order (a
   * column assigned twice keeps its first place and its last value).
   */
  private Map<Integer, String> assignments() throws SQLException {
    Map<Integer, String> assignments = new LinkedHashMap<>();
    for (Assignment assignment : frame.assignments()) {
      int index = columnIndex(assignment.column().identifier());
      String value = frame.text(assignment.value());
      if (value.equalsIgnoreCase("DEFAULT")) {
        throw new SQLFeatureNotSupportedException(
            "UPDATE ... SET " + assignment.column().text() + " = DEFAULT cannot be captured yet",
            "0A000");
      }
      assignments.put(index, value);
    }
    return assignments;
  }

  private int columnIndex(String name) throws SQLException {
    List<Column> columns = table.relation().columns();
    for (int i = 0; i < columns.size(); i++) {
      if (columns.get(i).name().equalsIgnoreCase(name)) {
        return i;
      }
    }
    throw new SQLException(
        "column \"" + name + "\" does not exist in table " + table.relation().displayName(),
        "42703");
  }

  private void refuseReturning() throws SQLFeatureNotSupportedException {
    if (frame.returning()) {
      throw new SQLFeatureNotSupportedException(
          "RETURNING on "
              + table.relation().displayName()
              + " is not supported yet: it is read by a materialized view",
          "0A000");
    }
  }

  private String target() {
    return table.relation().qualifiedName();
  }

  /**
   * The connection's stage table for {@code purpose}; its name tells the table's columns and the
   * captured columns apart, so a connection's stage from before a view made the table capture more
   * columns, or before ALTER TABLE changed its columns, is not reused.
   */
  private String stage(String purpose) {
    int shape = 31 * table.relation().columns().hashCode() + table.capturedColumns().hashCode();
    return IvmNames.qualified(
        "temp",
        IvmNames.stageTable(purpose, table.id()) + "_" + Integer.toUnsignedString(shape, 36));
  }

  /** The query that lists the rowids staged in {@code stage} for {@link RowClaims}. */
  private static String claimSql(String stage) {
    return RowClaims.rowidsSql(stage, IvmNames.quote(IvmNames.ROWID_COLUMN));
  }

  private static String newValueColumn(int index) {
    return IvmNames.quote(IvmNames.NEW_VALUE_PREFIX + index);
  }

  private static final String WEIGHT_AND_EPOCH =
      IvmNames.quote(ZSets.WEIGHT_COLUMN) + ", " + IvmNames.quote(IvmNames.EPOCH_COLUMN);

  /** The captured columns, each preceded by {@code separator} and {@code qualifier}. */
  private String capturedColumns(String separator, String qualifier) {
    return table.capturedColumns().stream()
        .map(c -> separator + qualifier + IvmNames.quote(c))
        .collect(Collectors.joining());
  }

  /** The captured columns of {@code qualifier}, each followed by a comma. */
  private String captured(String qualifier) {
    return table.capturedColumnsThenComma(qualifier);
  }

  /** Stage column definitions of the captured columns, each preceded by a comma. */
  private String capturedDefinitions() {
    List<Column> columns = table.relation().columns();
    return table.capturedColumns().stream()
        .map(name -> columns.get(table.relation().columnIndex(name)))
        .map(c -> ", " + IvmNames.quote(c.name()) + " " + c.dataType())
        .collect(Collectors.joining());
  }

  /** Appends {@code columns} (the captured columns of the stage) with weight {@code weight}. */
  private String deltaInsert(String columns, String weight, String stage) {
    return "INSERT INTO "
        + table.deltaTable()
        + " ("
        + table.capturedColumnsThenComma("")
        + WEIGHT_AND_EPOCH
        + ") SELECT "
        + columns
        + weight
        + ", NULL FROM "
        + stage;
  }
}
