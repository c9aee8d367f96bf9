package org.calciteivm.jdbc.capture;

import com.google.common.collect.ImmutableList;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
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
import org.calciteivm.jdbc.sql.ParsedStatement.Write;
import org.calciteivm.jdbc.sql.SqlToken;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Rewrites an INSERT, UPDATE, DELETE or TRUNCATE of a tracked table into a {@link CapturePlan}.
 *
 * <p>Only the statement's frame is read: the target, its alias, the SET list of an UPDATE and the
 * positions of the FROM/USING/WHERE/RETURNING clauses. Everything in between is copied verbatim, so
 * any DuckDB expression, subquery or parameter marker keeps working.
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
  private final Write write;
  private final TrackedTable table;
  private final String sql;
  private final List<SqlToken> tokens;

  private CaptureRewriter(Write write, TrackedTable table) {
    this.write = write;
    this.table = table;
    this.sql = write.statement().sql();
    this.tokens = write.tokens();
  }

  /**
   * The capture plan of {@code write}, whose target is {@code table}, or null for an UPDATE that
   * sets no captured column (it cannot change a view, and runs as it is).
   */
  public static @Nullable CapturePlan rewrite(Write write, TrackedTable table) throws SQLException {
    CaptureRewriter rewriter = new CaptureRewriter(write, table);
    switch (write.kind()) {
      case INSERT:
        return rewriter.insert();
      case DELETE:
        return rewriter.delete();
      case TRUNCATE:
        return rewriter.truncate();
      case UPDATE:
        return rewriter.update();
      default:
        throw new IllegalStateException("not a capturable write: " + write.kind());
    }
  }

  private CapturePlan insert() throws SQLException {
    int after = tokenIndexAfter(write.target());
    refuseClause(after, "RETURNING", "RETURNING");
    if (onConflict(after)) {
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
    String stageSql =
        sql.substring(0, write.target().start()) + stage + sql.substring(write.target().end());
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
    int after = tokenIndexAfter(write.target());
    Alias alias = alias(after, "USING", "WHERE", "RETURNING");
    refuseClause(alias.next, "RETURNING", "RETURNING");
    String tail = alias.next < tokens.size() ? sql.substring(tokens.get(alias.next).start()) : "";
    boolean joins = alias.next < tokens.size() && tokens.get(alias.next).isKeyword("USING");
    if (joins) {
      tail = ", " + sql.substring(tokens.get(alias.next).end());
    }
    return deleteRows(selectTargetRows(alias, tail, joins, ""));
  }

  private CapturePlan truncate() {
    return deleteRows(
        "SELECT rowid"
            + capturedColumns(", ", "")
            + " FROM "
            + sql.substring(write.target().start(), write.target().end()));
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
    int after = tokenIndexAfter(write.target());
    Alias alias = alias(after, "SET");
    if (alias.next >= tokens.size() || !tokens.get(alias.next).isKeyword("SET")) {
      throw new SQLException("syntax error: expected SET in UPDATE " + write.target(), "42601");
    }
    int end = topLevel(alias.next + 1, "FROM", "WHERE", "RETURNING");
    Map<Integer, String> assignments = assignments(alias.next + 1, end < 0 ? tokens.size() : end);
    String tail = end < 0 ? "" : sql.substring(tokens.get(end).start());
    refuseClause(end < 0 ? tokens.size() : end, "RETURNING", "RETURNING");
    boolean joins = end >= 0 && tokens.get(end).isKeyword("FROM");
    if (joins) {
      tail = ", " + sql.substring(tokens.get(end).end());
    }
    List<Column> columns = table.relation().columns();
    if (assignments.keySet().stream().noneMatch(i -> table.captures(columns.get(i).name()))) {
      // no view reads a column it sets: the change cannot change a view
      return null;
    }
    StringBuilder newValues = new StringBuilder();
    List<String> newColumns = new ArrayList<>();
    // the SET expressions keep their order, so that parameter markers keep theirs
    for (Map.Entry<Integer, String> assignment : assignments.entrySet()) {
      Column column = columns.get(assignment.getKey());
      newValues
          .append(", CAST((")
          .append(assignment.getValue())
          .append(") AS ")
          .append(column.dataType())
          .append(")");
      newColumns.add(newValueColumn(assignment.getKey()));
    }
    String stage = stage("update");
    String stageColumns =
        IvmNames.quote(IvmNames.ROWID_COLUMN)
            + capturedColumns(", ", "")
            + newColumns.stream().map(c -> ", " + c).collect(Collectors.joining());
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
        "INSERT INTO "
            + stage
            + " ("
            + stageColumns
            + ") "
            + selectTargetRows(alias, tail, joins, newValues.toString()),
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
   * {@code extra}, from the target (with its alias) and the statement's {@code tail} (its joined
   * relations and WHERE clause). With joins a row may match several times; it changes once.
   */
  private String selectTargetRows(Alias alias, String tail, boolean joins, String extra) {
    String qualifier = IvmNames.quote(alias.name == null ? write.target().name() : alias.name);
    String from = sql.substring(write.target().start(), alias.end);
    return "SELECT "
        + qualifier
        + ".rowid"
        + capturedColumns(", ", qualifier + ".")
        + extra
        + " FROM "
        + from
        + " "
        + tail
        + (joins ? " QUALIFY row_number() OVER (PARTITION BY " + qualifier + ".rowid) = 1" : "");
  }

  /** The column indexes assigned by a SET list and their expressions, in the list's order. */
  private Map<Integer, String> assignments(int from, int to) throws SQLException {
    Map<Integer, String> assignments = new LinkedHashMap<>();
    int i = from;
    while (i < to) {
      SqlToken column = tokens.get(i);
      if (!column.isIdentifier()) {
        throw new SQLFeatureNotSupportedException(
            "UPDATE " + write.target() + ": SET " + column.text() + " cannot be captured yet",
            "0A000");
      }
      int j = i + 1;
      while (j < to && tokens.get(j).isSymbol(".")) {
        column = tokens.get(j + 1);
        j += 2;
      }
      if (j >= to || !tokens.get(j).isSymbol("=")) {
        throw new SQLException("syntax error: expected = after SET " + column.text(), "42601");
      }
      int valueEnd = topLevelSymbol(j + 1, to, ",");
      int index = columnIndex(column.identifier());
      if (valueEnd == j + 1) {
        throw new SQLException("syntax error: SET " + column.text() + " has no value", "42601");
      }
      String value =
          sql.substring(tokens.get(j + 1).start(), tokens.get(valueEnd - 1).end()).trim();
      if (value.equalsIgnoreCase("DEFAULT")) {
        throw new SQLFeatureNotSupportedException(
            "UPDATE ... SET " + column.text() + " = DEFAULT cannot be captured yet", "0A000");
      }
      assignments.put(index, value);
      i = valueEnd + 1;
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

  /** An optional alias after the target, and the index of the token after it. */
  private record Alias(String name, int end, int next) {}

  private Alias alias(int index, String... clauses) {
    int i = index;
    if (i < tokens.size() && tokens.get(i).isKeyword("AS")) {
      i++;
    }
    if (i < tokens.size()
        && tokens.get(i).isIdentifier()
        && !isAnyKeyword(tokens.get(i), clauses)) {
      return new Alias(tokens.get(i).identifier(), tokens.get(i).end(), i + 1);
    }
    return new Alias(null, write.target().end(), index);
  }

  private static boolean isAnyKeyword(SqlToken token, String... keywords) {
    for (String keyword : keywords) {
      if (token.isKeyword(keyword)) {
        return true;
      }
    }
    return false;
  }

  private void refuseClause(int from, String keyword, String what)
      throws SQLFeatureNotSupportedException {
    if (topLevel(from, keyword) >= 0) {
      throw new SQLFeatureNotSupportedException(
          what
              + " on "
              + table.relation().displayName()
              + " is not supported yet: it is read by a materialized view",
          "0A000");
    }
  }

  /** The index of the first of {@code keywords} at parenthesis depth 0 from {@code from}, or -1. */
  private int topLevel(int from, String... keywords) {
    return write.statement().topLevel(from, tokens.size(), token -> isAnyKeyword(token, keywords));
  }

  /**
   * Whether the INSERT has an {@code ON CONFLICT} clause after token {@code from}: an {@code ON}
   * outside parentheses followed by {@code CONFLICT}. The {@code ON} of a join in the inserted
   * query is followed by its condition ({@code ON conflict = 1} compares a column named so).
   */
  private boolean onConflict(int from) {
    for (int on = topLevel(from, "ON"); on >= 0; on = topLevel(on + 1, "ON")) {
      if (on + 1 < tokens.size()
          && tokens.get(on + 1).isKeyword("CONFLICT")
          && on + 2 < tokens.size()
          && (tokens.get(on + 2).isSymbol("(")
              || tokens.get(on + 2).isKeyword("DO")
              || tokens.get(on + 2).isKeyword("ON"))) {
        return true;
      }
    }
    return false;
  }

  /** The index of {@code symbol} at depth 0 in {@code [from, to)}, or {@code to}. */
  private int topLevelSymbol(int from, int to, String symbol) {
    int found = write.statement().topLevel(from, to, token -> token.isSymbol(symbol));
    return found < 0 ? to : found;
  }

  private int tokenIndexAfter(ObjectName name) {
    return write.statement().tokenIndexAt(name.end());
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
