package org.calciteivm.jdbc.capture;

import com.google.common.collect.ImmutableList;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.capture.CapturePlan.Steps;
import org.calciteivm.jdbc.catalog.Column;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.sql.WriteFrame;
import org.calciteivm.jdbc.sql.WriteFrame.Assignment;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Rewrites a write to a tracked table into a {@link CapturePlan}, from the statement's {@link
 * WriteFrame}: the target, its alias, the SET list of an UPDATE and the clauses after them.
 * Everything else is copied verbatim, so any DuckDB expression, subquery or parameter marker keeps
 * working. DELETE, TRUNCATE and UPDATE are captured here; INSERT and COPY ... FROM by {@link
 * InsertCapture}, upserts by {@link UpsertCapture}, MERGE by {@link MergeCapture}.
 *
 * <p>The direct form is one statement whose common table expressions change the table and append
 * the change to the delta:
 *
 * <ul>
 *   <li>DELETE and TRUNCATE: the DELETE returns the rows it removed with their {@code rowid}; they
 *       go to the delta with weight -1.
 *   <li>UPDATE: the target rows are selected once (materialized, so before the table changes) with
 *       their rowid, old values and new values (the SET expressions, cast to the column types); the
 *       delta gets -old and +new, and the table is updated from them by rowid. DuckDB runs an
 *       UPDATE ... RETURNING as a delete and an insert, several times slower than the update, so
 *       the UPDATE cannot return the new rows itself.
 * </ul>
 *
 * The prepared form stages the rows with the user's text instead (the rowids of a DELETE; the
 * rowids, old and new values of an UPDATE) and applies them after the claims. DELETE, TRUNCATE and
 * UPDATE claim the changed rowids ({@link RowClaims}).
 */
public final class CaptureRewriter {
  /** The common table expression of the rows a write adds, removes or changes. */
  private static final String ROWS = IvmNames.quote("_ivm_capture_rows");

  private static final String DELTA = IvmNames.quote("_ivm_capture_delta");
  private static final String UPDATED = IvmNames.quote("_ivm_capture_update");
  private static final String ROWID = IvmNames.quote(IvmNames.ROWID_COLUMN);

  private final WriteFrame frame;
  private final TrackedTable table;
  private final CapturedTable tables;
  private final String sql;

  /** The offset just past the statement's last token other than a semicolon. */
  private final int end;

  private CaptureRewriter(WriteFrame frame, TrackedTable table) {
    this.frame = frame;
    this.table = table;
    this.tables = new CapturedTable(table);
    this.sql = frame.sql();
    this.end = frame.end();
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
        return new InsertCapture(frame, table, rewriter.tables).plan();
      case DELETE:
        return rewriter.delete();
      case TRUNCATE:
        return rewriter.truncate();
      case COPY:
        return new InsertCapture(frame, table, rewriter.tables).copyFrom();
      case UPDATE:
        return rewriter.update();
      case MERGE:
        return new MergeCapture(frame, table, rewriter.tables).plan();
      default:
        throw new IllegalStateException("not a capturable write: " + frame.kind());
    }
  }

  private CapturePlan delete() {
    if (frame.returning() != null) {
      return deleteReturning();
    }
    return deleteRows(
        sql.substring(0, end),
        qualifier(),
        "INSERT INTO " + tables.rowidStage() + " " + selectTargetRows(""));
  }

  /**
   * A DELETE with RETURNING, in one form for both statements and prepared statements: the rowids
   * staged with the user's text and claimed, the rows deleted by rowid returning every column into
   * the returned stage, from which they go to the delta and, through the RETURNING list, to the
   * caller.
   */
  private CapturePlan deleteReturning() {
    String stage = tables.rowidStage();
    Steps steps =
        new Steps(
            ImmutableList.<String>builder()
                .addAll(tables.rowidStageSetup())
                .add(tables.returnedStageSetup())
                .build(),
            "INSERT INTO " + stage + " " + selectTargetRows(""),
            RowClaims.rowidsSql(stage, ROWID),
            ImmutableList.of(
                deleteStaged("*")
                    + " INSERT INTO "
                    + tables.returnedStage()
                    + " SELECT * FROM "
                    + ROWS,
                tables.deltaInsert(tables.captured(""), "-1", tables.returnedStage()),
                tables.returningQuery(frame),
                "DELETE FROM " + stage,
                "DELETE FROM " + tables.returnedStage()),
            2,
            true);
    return new CapturePlan(table.id(), false, true, steps, steps);
  }

  /**
   * The start of a statement that deletes the rows whose rowids are staged, as the common table
   * expression {@code ROWS} of the columns {@code returning}.
   */
  private String deleteStaged(String returning) {
    return "WITH "
        + ROWS
        + " AS (DELETE FROM "
        + tables.target()
        + " WHERE rowid IN (SELECT "
        + ROWID
        + " FROM "
        + tables.rowidStage()
        + ") RETURNING "
        + returning
        + ")";
  }

  private CapturePlan truncate() {
    String relation = frame.text(frame.relation());
    return deleteRows(
        "DELETE FROM " + relation,
        IvmNames.quote(frame.target().name()),
        "INSERT INTO " + tables.rowidStage() + " SELECT rowid FROM " + relation);
  }

  /**
   * DELETE or TRUNCATE: run directly, {@code delete} (a DELETE of the target, {@code qualifier} in
   * it) returns the rows it removes; prepared, {@code stageRowids} stages their rowids, and the
   * apply deletes the staged rowids, returning the rows.
   */
  private CapturePlan deleteRows(String delete, String qualifier, String stageRowids) {
    String stage = tables.rowidStage();
    return new CapturePlan(
        table.id(),
        false,
        true,
        claimed(
            "WITH "
                + ROWS
                + " AS ("
                + delete
                + " RETURNING "
                + qualifier
                + ".rowid AS "
                + ROWID
                + tables.capturedColumns(", ", qualifier + ".")
                + "), "
                + DELTA
                + " AS ("
                + tables.deltaInsert(tables.captured(""), "-1", ROWS)
                + ") INSERT INTO "
                + stage
                + " SELECT "
                + ROWID
                + " FROM "
                + ROWS),
        new Steps(
            tables.rowidStageSetup(),
            stageRowids,
            RowClaims.rowidsSql(stage, ROWID),
            ImmutableList.of(
                // a rowid staged twice (by a batch) is deleted, and recorded, once
                deleteStaged(tables.returning(""))
                    + " "
                    + tables.deltaInsert(tables.captured(""), "-1", ROWS),
                "DELETE FROM " + stage)));
  }

  private @Nullable CapturePlan update() throws SQLException {
    Map<Integer, String> assignments = assignments();
    List<Column> columns = table.relation().columns();
    if (assignments.keySet().stream().noneMatch(i -> table.captures(columns.get(i).name()))) {
      // no view reads a column it sets: the change cannot change a view
      return null;
    }
    // the SET expressions keep their order, so that parameter markers keep theirs
    String newValues =
        assignments.entrySet().stream()
            .map(
                a ->
                    ", "
                        + storedValue(a.getValue(), columns.get(a.getKey()))
                        + " AS "
                        + newValueColumn(a.getKey()))
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
    String targetRows =
        selectTargetRows(tables.capturedColumns(", ", qualifier() + ".") + newValues);
    if (frame.returning() != null) {
      return updateReturning(
          stagedUpdate(targetRows, assignments.keySet(), newRow, set), newRow, set);
    }
    return new CapturePlan(
        table.id(),
        true,
        true,
        // materialized: the old values are read once, before the UPDATE changes them
        claimed(
            "WITH "
                + ROWS
                + " AS MATERIALIZED ("
                + targetRows
                + "), "
                + DELTA
                + " AS ("
                + updateDelta(ROWS, newRow)
                + "), "
                + UPDATED
                + " AS ("
                + updateFrom(ROWS, set)
                + ") INSERT INTO "
                + tables.rowidStage()
                + " SELECT "
                + ROWID
                + " FROM "
                + ROWS),
        stagedUpdate(targetRows, assignments.keySet(), newRow, set));
  }

  /**
   * The value an UPDATE stores in {@code column} when it sets it to {@code expression}. DuckDB's
   * UPDATE stores an INTERVAL normalized ({@code 1 day 24 hours} as {@code 2 days}; INSERT keeps it
   * as written), and the two differ for {@code least}, {@code extract(hour ...)} or a cast to text.
   */
  private static String storedValue(String expression, Column column) {
    String value = "CAST((" + expression + ") AS " + column.dataType() + ")";
    return column.dataType().equalsIgnoreCase("INTERVAL")
        ? "normalized_interval(" + value + ")"
        : value;
  }

  /** The prepared form of an UPDATE: its rowids, old and new values staged, then applied. */
  private Steps stagedUpdate(
      String targetRows, Iterable<Integer> assigned, String newRow, String set) {
    List<Column> columns = table.relation().columns();
    StringBuilder stageColumns = new StringBuilder(ROWID + tables.capturedColumns(", ", ""));
    assigned.forEach(i -> stageColumns.append(", ").append(newValueColumn(i)));
    String stage = tables.stage("update");
    String newValueDefinitions =
        IntStream.range(0, columns.size())
            .mapToObj(i -> ", " + newValueColumn(i) + " " + columns.get(i).dataType())
            .collect(Collectors.joining());
    return new Steps(
        ImmutableList.of(tables.rowsStageSetup(stage, newValueDefinitions)),
        "INSERT INTO " + stage + " (" + stageColumns + ") " + targetRows,
        RowClaims.rowidsSql(stage, ROWID),
        ImmutableList.of(
            "WITH " + DELTA + " AS (" + updateDelta(stage, newRow) + ") " + updateFrom(stage, set),
            "DELETE FROM " + stage));
  }

  /**
   * An UPDATE with RETURNING, in one form for both statements and prepared statements: the prepared
   * form {@code staged} (whose new rows are {@code newRow}, set by {@code set}), whose update also
   * returns every column of the rows it changed (which makes DuckDB run it as a delete and an
   * insert) into the returned stage, from which the RETURNING list goes to the caller.
   */
  private CapturePlan updateReturning(Steps staged, String newRow, String set) {
    String stage = tables.stage("update");
    Steps steps =
        new Steps(
            ImmutableList.<String>builder()
                .addAll(staged.setupSql())
                .add(tables.returnedStageSetup())
                .build(),
            staged.sql(),
            staged.claimSql(),
            ImmutableList.of(
                "WITH "
                    + DELTA
                    + " AS ("
                    + updateDelta(stage, newRow)
                    + "), "
                    + ROWS
                    + " AS ("
                    + updateFrom(stage, set)
                    + " RETURNING _ivm_t.*) INSERT INTO "
                    + tables.returnedStage()
                    + " SELECT * FROM "
                    + ROWS,
                tables.returningQuery(frame),
                "DELETE FROM " + stage,
                "DELETE FROM " + tables.returnedStage()),
            1,
            true);
    return new CapturePlan(table.id(), true, true, steps, steps);
  }

  /** Appends -old and +new ({@code newRow}) of the changed rows {@code rows} to the delta. */
  private String updateDelta(String rows, String newRow) {
    return tables.deltaInsertHead()
        + " SELECT "
        + tables.captured("")
        + "-1, NULL FROM "
        + rows
        + " UNION ALL SELECT "
        + newRow
        + "1, NULL FROM "
        + rows;
  }

  /** Updates the target by {@code set} from the changed rows {@code rows}, by rowid. */
  private String updateFrom(String rows, String set) {
    return "UPDATE "
        + tables.target()
        + " AS _ivm_t SET "
        + set
        + " FROM "
        + rows
        + " AS s WHERE _ivm_t.rowid = s."
        + ROWID;
  }

  /**
   * The direct form of a DELETE, TRUNCATE or UPDATE: {@code sql}, which lists the changed rowids in
   * the rowid stage, whose rows are then claimed.
   */
  private Steps claimed(String sql) {
    String stage = tables.rowidStage();
    return new Steps(
        tables.rowidStageSetup(),
        sql,
        RowClaims.rowidsSql(stage, ROWID),
        ImmutableList.of("DELETE FROM " + stage));
  }

  /**
   * The query that selects the target rows of a DELETE or UPDATE: their rowid and {@code columns}
   * (a select list, each item after a comma), from the target (with its alias) and the rest of the
   * statement (its joined relations and WHERE clause), after the statement's WITH clause. With
   * joins a row may match several times; it changes once.
   */
  private String selectTargetRows(String columns) {
    String qualifier = qualifier();
    int tail = frame.joined() == null ? frame.rest().start() : frame.joined().start();
    return (frame.with() == null ? "" : frame.text(frame.with()))
        + "SELECT "
        + qualifier
        + ".rowid AS "
        + ROWID
        + columns
        + " FROM "
        + frame.text(frame.relation())
        + (frame.joined() == null ? " " : ", ")
        + (tail < bodyEnd() ? sql.substring(tail, bodyEnd()) : "")
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
        // the column's default, or NULL: computed once with the new row, which the capture stores
        String defaultExpression = table.relation().columns().get(index).defaultExpression();
        value = defaultExpression == null ? "NULL" : defaultExpression;
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

  private String qualifier() {
    return frame.qualifier();
  }

  /** The offset where the statement's RETURNING clause begins, or its end if it has none. */
  private int bodyEnd() {
    return frame.returning() == null ? end : frame.returning().start();
  }

  private static String newValueColumn(int index) {
    return IvmNames.quote(IvmNames.NEW_VALUE_PREFIX + index);
  }
}
