package org.calciteivm.jdbc.capture;

import com.google.common.collect.ImmutableList;
import java.sql.SQLFeatureNotSupportedException;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.capture.CapturePlan.Steps;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.sql.WriteFrame;

/**
 * The capture of a {@code MERGE INTO target USING source ON ... WHEN ...}, in one form for both
 * statements and prepared statements (a MERGE with parameter markers is refused: its text runs
 * twice). It relies on how DuckDB numbers rows: a row keeps its rowid while it is updated in place,
 * and a row a transaction appends gets a rowid above every rowid of the transaction's earlier rows
 * (DuckDB numbers a transaction's new rows from {@link RowClaims#FIRST_LOCAL_ROWID} up and never
 * reuses a number), which is how an update that DuckDB runs as a delete and an insert shows too.
 *
 * <ol>
 *   <li>stage the rowids and captured columns of the target rows the MERGE may update or delete:
 *       those the source matches (the target semi-joined to the source on the MERGE's condition) if
 *       it has a {@code WHEN MATCHED} clause, every row if it has a {@code WHEN NOT MATCHED BY
 *       SOURCE} one, and claim them;
 *   <li>note the greatest rowid of the rows the transaction has appended to the target so far;
 *   <li>run the MERGE as written; its update count is the write's, or with RETURNING its rows (on
 *       the caller's statement);
 *   <li>append to the delta every staged row with weight -1, and with weight +1 every target row
 *       now at a staged rowid (updated in place, or left as it was) or above the noted rowid (the
 *       rows the MERGE inserted, and the new versions of rows it updated by a delete and an
 *       insert). A staged row the MERGE left alone is in the delta once each way, which cancels;
 *   <li>empty the stages.
 * </ol>
 *
 * The source is read twice (steps 1 and 3), so a source whose rows change between two reads (a
 * volatile function such as {@code random()}) could stage other rows than the MERGE changes.
 */
final class MergeCapture {
  private static final String ROWID = IvmNames.quote(IvmNames.ROWID_COLUMN);

  private final WriteFrame frame;
  private final TrackedTable table;
  private final CapturedTable tables;

  MergeCapture(WriteFrame frame, TrackedTable table, CapturedTable tables) {
    this.frame = frame;
    this.table = table;
    this.tables = tables;
  }

  CapturePlan plan() throws SQLFeatureNotSupportedException {
    WriteFrame.Merge merge = frame.merge();
    if (merge.hasParameters()) {
      throw refused("parameter markers: write its values as literals");
    }
    String qualifier = frame.qualifier();
    String relation = frame.text(frame.relation());
    String changeable =
        merge.changesUnmatched()
            ? relation
            : relation
                + " SEMI JOIN "
                + frame.text(merge.source())
                + " "
                + frame.text(merge.condition())
                + (merge.changesMatched() ? "" : " WHERE false");
    String stage = tables.stage("merge");
    String mark = tables.stage("merge_mark");
    String target = tables.target();
    Steps steps =
        new Steps(
            ImmutableList.of(
                tables.rowsStageSetup(stage, ""),
                "CREATE TEMP TABLE IF NOT EXISTS " + mark + " (" + ROWID + " BIGINT)"),
            "INSERT INTO "
                + stage
                + " "
                + (frame.with() == null ? "" : frame.text(frame.with()))
                + "SELECT "
                + qualifier
                + ".rowid"
                + tables.capturedColumns(", ", qualifier + ".")
                + " FROM "
                + changeable,
            RowClaims.rowidsSql(stage, ROWID),
            ImmutableList.of(
                "INSERT INTO "
                    + mark
                    + " SELECT coalesce(max(rowid), "
                    + (RowClaims.FIRST_LOCAL_ROWID - 1)
                    + ") FROM "
                    + target
                    + " WHERE rowid >= "
                    + RowClaims.FIRST_LOCAL_ROWID,
                frame.sql().substring(0, frame.end()),
                tables.deltaInsertHead()
                    + " SELECT "
                    + tables.captured("")
                    + "-1, NULL FROM "
                    + stage
                    + " UNION ALL SELECT "
                    + tables.captured("")
                    + "1, NULL FROM "
                    + target
                    + " WHERE rowid IN (SELECT "
                    + ROWID
                    + " FROM "
                    + stage
                    + ") OR rowid > (SELECT "
                    + ROWID
                    + " FROM "
                    + mark
                    + ")",
                "DELETE FROM " + stage,
                "DELETE FROM " + mark),
            1,
            // the MERGE as written returns its RETURNING rows to the caller (a RETURNING makes
            // DuckDB delete and insert the rows it updates, which the rowids above show)
            frame.returning() != null);
    return new CapturePlan(table.id(), true, true, steps, steps);
  }

  private SQLFeatureNotSupportedException refused(String what) {
    return new SQLFeatureNotSupportedException(
        "MERGE INTO "
            + table.relation().displayName()
            + " cannot be captured with "
            + what
            + " (the table is read by a materialized view)",
        "0A000");
  }
}
