package org.calciteivm.jdbc.capture;

import com.google.common.collect.ImmutableList;
import java.sql.SQLException;
import java.util.Arrays;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.capture.CapturePlan.Steps;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.sql.WriteFrame;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The capture of the writes that add rows: INSERT (also {@code INSERT OR IGNORE}, {@code ON
 * CONFLICT ... DO NOTHING} and RETURNING; upserts are {@link UpsertCapture}'s) and {@code COPY ...
 * FROM}. The direct form of a plain INSERT is one statement whose common table expression inserts
 * the rows and returns them (as stored: defaults filled in, values cast) to the delta with weight
 * +1; the other forms stage the proposed rows with the user's text (its target replaced by the
 * connection's insert stage) and insert them from the stage.
 */
final class InsertCapture {
  /** The common table expression of the rows a write adds. */
  private static final String ROWS = IvmNames.quote("_ivm_capture_rows");

  private final WriteFrame frame;
  private final TrackedTable table;
  private final CapturedTable tables;
  private final String sql;

  /** The offset just past the statement's last token other than a semicolon. */
  private final int end;

  InsertCapture(WriteFrame frame, TrackedTable table, CapturedTable tables) {
    this.frame = frame;
    this.table = table;
    this.tables = tables;
    this.sql = frame.sql();
    this.end = frame.end();
  }

  /**
   * An INSERT, also {@code INSERT OR IGNORE} and {@code ON CONFLICT ... DO NOTHING}: they add the
   * rows they return and leave the others alone. Prepared, the rows are staged without the clause
   * (the stage has no keys) and inserted from the stage with it, which skips the same rows (DuckDB
   * keeps the first of the rows of one statement that share a key). Upserts ({@code OR REPLACE},
   * {@code DO UPDATE}) are {@link UpsertCapture}'s.
   */
  CapturePlan plan() throws SQLException {
    if (frame.upserts()) {
      return new UpsertCapture(frame, table, tables).plan();
    }
    WriteFrame.Range orIgnore = frame.insertOr();
    WriteFrame.OnConflict conflict = frame.onConflict();
    String insertHead =
        (orIgnore == null ? "INSERT INTO " : "INSERT OR IGNORE INTO ") + tables.target();
    String skipped =
        conflict == null
            ? ""
            : " "
                + sql.substring(conflict.clause().start(), Math.min(conflict.clause().end(), end));
    WriteFrame.Range clause = conflict == null ? null : conflict.clause();
    if (frame.returning() != null) {
      return insertReturning(insertHead, skipped, orIgnore, clause);
    }
    // the INSERT's text without the trailing semicolon or comment that would end or swallow what
    // follows it
    String insert = sql.substring(0, end);
    Steps staged = intoInsertStage(insertHead, skipped, orIgnore, clause);
    // new rows claim nothing: no other transaction sees them before this one commits
    return new CapturePlan(
        table.id(),
        true,
        false,
        new Steps(ImmutableList.of(), appendInserted(insert), null, ImmutableList.of()),
        orIgnore == null && conflict == null
            ? staged
            : new Steps(staged.setupSql(), staged.sql(), null, staged.applySql(), 0));
  }

  /**
   * An INSERT with RETURNING, in one form for both statements and prepared statements: the rows
   * staged without the clause (and without the OR IGNORE or ON CONFLICT clause, {@code leftOut}),
   * inserted from the stage ({@code insertHead}, then {@code clause}) returning all their columns
   * into a second stage, from which they go to the delta and, through the RETURNING list, to the
   * caller. DuckDB returns no rows from a statement whose RETURNING feeds another write in a common
   * table expression, so the list is a query of its own.
   */
  private CapturePlan insertReturning(
      String insertHead, String clause, WriteFrame.@Nullable Range... leftOut) {
    String stage = tables.insertStage();
    String returned = tables.returnedStage();
    WriteFrame.Range[] omitted = Arrays.copyOf(leftOut, leftOut.length + 1);
    omitted[leftOut.length] = frame.returning();
    Steps steps =
        new Steps(
            ImmutableList.of(tables.insertStageSetup(), tables.returnedStageSetup()),
            frame.retargeted(stage, end, omitted),
            null,
            ImmutableList.of(
                "WITH "
                    + ROWS
                    + " AS ("
                    + insertHead
                    + " SELECT * FROM "
                    + stage
                    + clause
                    + " RETURNING *) INSERT INTO "
                    + returned
                    + " SELECT * FROM "
                    + ROWS,
                tables.deltaInsert(tables.captured(""), "1", returned),
                tables.returningQuery(frame),
                "DELETE FROM " + stage,
                "DELETE FROM " + returned),
            2,
            true);
    return new CapturePlan(table.id(), true, false, steps, steps);
  }

  /**
   * {@code COPY target FROM ...}: captured as the user's COPY into the insert stage, in both forms
   * (a COPY has no parameters). A column list leaves the others to their defaults there, as in the
   * target.
   */
  CapturePlan copyFrom() {
    Steps staged = intoInsertStage("INSERT INTO " + tables.target(), "");
    return new CapturePlan(table.id(), true, false, staged, staged);
  }

  /**
   * The steps that run the statement (an INSERT or a COPY FROM), without the parts {@code leftOut}
   * (those not null), into the connection's insert stage, a temporary table of the target's columns
   * and defaults; then insert the staged rows into the target ({@code insertHead}, then {@code
   * clause}), append the rows that inserted to the delta and empty the stage.
   */
  private Steps intoInsertStage(
      String insertHead, String clause, WriteFrame.@Nullable Range... leftOut) {
    String stage = tables.insertStage();
    return new Steps(
        ImmutableList.of(tables.insertStageSetup()),
        frame.retargeted(stage, end, leftOut),
        null,
        ImmutableList.of(
            appendInserted(insertHead + " SELECT * FROM " + stage + clause),
            "DELETE FROM " + stage));
  }

  /** Runs {@code insert}, an INSERT into the target, and appends the rows it added to the delta. */
  private String appendInserted(String insert) {
    return "WITH "
        + ROWS
        + " AS ("
        + insert
        + " RETURNING "
        + tables.returning("")
        + ") "
        + tables.deltaInsert(tables.captured(""), "1", ROWS);
  }
}
