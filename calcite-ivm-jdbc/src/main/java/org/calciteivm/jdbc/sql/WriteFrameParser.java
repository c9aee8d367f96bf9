package org.calciteivm.jdbc.sql;

import com.google.common.collect.ImmutableList;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.List;
import org.calciteivm.jdbc.sql.ParsedStatement.Write;
import org.calciteivm.jdbc.sql.ParsedStatement.WriteKind;
import org.calciteivm.jdbc.sql.WriteFrame.Assignment;
import org.calciteivm.jdbc.sql.WriteFrame.Merge;
import org.calciteivm.jdbc.sql.WriteFrame.OnConflict;
import org.calciteivm.jdbc.sql.WriteFrame.Range;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Reads the frame of a write whose change is captured ({@link WriteFrame}) from the tokens its
 * statement was lexed into. Expressions, subqueries and joined relations are skipped at their
 * parentheses and never interpreted, so DuckDB syntax in them passes through.
 *
 * <p>It runs only for writes to tracked tables: a statement it cannot frame fails here, while the
 * same statement on another table goes to DuckDB as written, and DuckDB decides.
 */
public final class WriteFrameParser {
  private final Write write;
  private final String sql;
  private final List<SqlToken> tokens;

  private WriteFrameParser(Write write) {
    this.write = write;
    this.sql = write.statement().sql();
    this.tokens = write.tokens();
  }

  /** The frame of {@code write}, an INSERT, UPDATE, DELETE, TRUNCATE or COPY ... FROM. */
  public static WriteFrame parse(Write write) throws SQLException {
    WriteFrameParser parser = new WriteFrameParser(write);
    int afterTarget = write.statement().tokenIndexAt(write.target().end());
    switch (write.kind()) {
      case INSERT:
        return parser.insert(afterTarget);
      case UPDATE:
        return parser.update(afterTarget);
      case MERGE:
        return parser.merge(afterTarget);
      case DELETE:
        Alias alias = parser.alias(afterTarget, "USING", "WHERE", "RETURNING");
        return parser.frame(alias, ImmutableList.of(), alias.next, "USING", null, null, null);
      case TRUNCATE:
      case COPY:
        return parser.frame(
            parser.noAlias(afterTarget), ImmutableList.of(), afterTarget, null, null, null, null);
      default:
        throw new IllegalStateException("not a capturable write: " + write.kind());
    }
  }

  private WriteFrame insert(int afterTarget) throws SQLException {
    // only AS introduces an INSERT's alias: a word right after the target begins its body
    Alias alias =
        afterTarget < tokens.size() && tokens.get(afterTarget).isKeyword("AS")
            ? alias(afterTarget)
            : noAlias(afterTarget);
    int on = onConflict(alias.next);
    if (on < 0) {
      return frame(alias, ImmutableList.of(), alias.next, null, insertOr(), null, null);
    }
    int returning = topLevel(on, "RETURNING");
    Range clause =
        new Range(
            tokens.get(on).start(), returning < 0 ? sql.length() : tokens.get(returning).start());
    int end = returning < 0 ? tokens.size() : returning;
    int i = on + 2;
    ImmutableList.Builder<SqlToken> target = ImmutableList.builder();
    if (tokens.get(i).isSymbol("(")) {
      for (i++; i < end && !tokens.get(i).isSymbol(")"); i++) {
        SqlToken token = tokens.get(i);
        if (token.isIdentifier()) {
          target.add(token);
        } else if (!token.isSymbol(",")) {
          throw conflictClauseNotCaptured();
        }
      }
      i++;
    }
    if (i + 1 >= end || !tokens.get(i).isKeyword("DO")) {
      throw conflictClauseNotCaptured();
    }
    OnConflict conflict;
    ImmutableList<Assignment> assignments = ImmutableList.of();
    if (tokens.get(i + 1).isKeyword("NOTHING")) {
      conflict = new OnConflict(clause, target.build(), false);
    } else if (tokens.get(i + 1).isKeyword("UPDATE")
        && i + 2 < end
        && tokens.get(i + 2).isKeyword("SET")) {
      int where = write.statement().topLevel(i + 3, end, token -> token.isKeyword("WHERE"));
      assignments = assignments(i + 3, where < 0 ? end : where);
      conflict = new OnConflict(clause, target.build(), true);
    } else {
      throw conflictClauseNotCaptured();
    }
    return frame(alias, assignments, alias.next, null, insertOr(), conflict, null);
  }

  /**
   * {@code MERGE INTO target [[AS] alias] USING source {ON condition | USING (columns)} WHEN ...}:
   * its source, condition and kinds of WHEN clauses.
   */
  private WriteFrame merge(int afterTarget) throws SQLException {
    Alias alias = alias(afterTarget, "USING");
    if (alias.next >= tokens.size() || !tokens.get(alias.next).isKeyword("USING")) {
      throw new SQLException(
          "syntax error: expected USING in MERGE INTO " + write.target(), "42601");
    }
    int condition = topLevel(alias.next + 1, "ON", "USING");
    int firstWhen = condition < 0 ? -1 : topLevel(condition + 1, "WHEN");
    if (condition <= alias.next + 1 || firstWhen < 0) {
      throw new SQLException(
          "syntax error: expected ON or USING and WHEN in MERGE INTO " + write.target(), "42601");
    }
    boolean matched = false;
    boolean unmatched = false;
    for (int when = firstWhen; when >= 0; when = topLevel(when + 1, "WHEN")) {
      if (tokens.get(when + 1).isKeyword("MATCHED")) {
        matched = true;
      } else if (when + 4 < tokens.size()
          && tokens.get(when + 1).isKeyword("NOT")
          && tokens.get(when + 3).isKeyword("BY")
          && tokens.get(when + 4).isKeyword("SOURCE")) {
        unmatched = true;
      }
    }
    boolean parameters =
        tokens.stream().anyMatch(token -> token.isSymbol("?") || token.isSymbol("$"));
    Merge merge =
        new Merge(
            new Range(tokens.get(alias.next + 1).start(), tokens.get(condition - 1).end()),
            new Range(tokens.get(condition).start(), tokens.get(firstWhen - 1).end()),
            matched,
            unmatched,
            parameters);
    return frame(alias, ImmutableList.of(), alias.next, null, null, null, merge);
  }

  private SQLException conflictClauseNotCaptured() {
    return new SQLFeatureNotSupportedException(
        "INSERT INTO "
            + write.target()
            + ": this ON CONFLICT clause cannot be captured; write ON CONFLICT [(columns)] DO"
            + " NOTHING or DO UPDATE SET ...",
        "0A000");
  }

  private WriteFrame update(int afterTarget) throws SQLException {
    Alias alias = alias(afterTarget, "SET");
    if (alias.next >= tokens.size() || !tokens.get(alias.next).isKeyword("SET")) {
      throw new SQLException("syntax error: expected SET in UPDATE " + write.target(), "42601");
    }
    int end = topLevel(alias.next + 1, "FROM", "WHERE", "RETURNING");
    if (end < 0) {
      end = tokens.size();
    }
    return frame(alias, assignments(alias.next + 1, end), end, "FROM", null, null, null);
  }

  /**
   * The frame whose head is the target, {@code alias} and {@code assignments}, and whose rest
   * begins at token {@code rest}; the relations joined to the target follow {@code joinKeyword}
   * (null: the write joins none) if the rest begins with it.
   */
  private WriteFrame frame(
      Alias alias,
      ImmutableList<Assignment> assignments,
      int rest,
      @Nullable String joinKeyword,
      @Nullable Range insertOr,
      @Nullable OnConflict onConflict,
      @Nullable Merge merge) {
    boolean hasRest = rest < tokens.size();
    @Nullable Range joined = null;
    if (hasRest && joinKeyword != null && tokens.get(rest).isKeyword(joinKeyword)) {
      joined = new Range(tokens.get(rest).end(), sql.length());
    }
    return new WriteFrame(
        write,
        with(),
        alias.name,
        new Range(write.target().start(), alias.end),
        assignments,
        new Range(hasRest ? tokens.get(rest).start() : sql.length(), sql.length()),
        joined,
        returning(rest),
        insertOr,
        onConflict,
        merge);
  }

  /** The SET list in tokens {@code [from, to)}. */
  private ImmutableList<Assignment> assignments(int from, int to) throws SQLException {
    ImmutableList.Builder<Assignment> assignments = ImmutableList.builder();
    int i = from;
    while (i < to) {
      SqlToken column = tokens.get(i);
      if (!column.isIdentifier()) {
        throw new SQLFeatureNotSupportedException(
            (write.kind() == WriteKind.UPDATE ? "UPDATE " : "INSERT INTO ")
                + write.target()
                + ": SET "
                + column.text()
                + " cannot be captured yet",
            "0A000");
      }
      int j = i + 1;
      while (j + 1 < to && tokens.get(j).isSymbol(".")) {
        column = tokens.get(j + 1);
        j += 2;
      }
      if (j >= to || !tokens.get(j).isSymbol("=")) {
        throw new SQLException("syntax error: expected = after SET " + column.text(), "42601");
      }
      int valueEnd = write.statement().topLevel(j + 1, to, token -> token.isSymbol(","));
      if (valueEnd < 0) {
        valueEnd = to;
      }
      if (valueEnd == j + 1) {
        throw new SQLException("syntax error: SET " + column.text() + " has no value", "42601");
      }
      assignments.add(
          new Assignment(
              column, new Range(tokens.get(j + 1).start(), tokens.get(valueEnd - 1).end())));
      i = valueEnd + 1;
    }
    return assignments.build();
  }

  /**
   * An optional alias after the target.
   *
   * @param name the alias, or null
   * @param end offset just past the target and its alias
   * @param next the index of the token after them
   */
  private record Alias(@Nullable String name, int end, int next) {}

  private Alias noAlias(int afterTarget) {
    return new Alias(null, write.target().end(), afterTarget);
  }

  /**
   * The alias after the target, if the next word (after an optional AS) is none of {@code clauses}.
   */
  private Alias alias(int afterTarget, String... clauses) {
    int i = afterTarget;
    if (i < tokens.size() && tokens.get(i).isKeyword("AS")) {
      i++;
    }
    if (i < tokens.size()
        && tokens.get(i).isIdentifier()
        && !isAnyKeyword(tokens.get(i), clauses)) {
      return new Alias(tokens.get(i).identifier(), tokens.get(i).end(), i + 1);
    }
    return noAlias(afterTarget);
  }

  /** The WITH clause an UPDATE or DELETE begins with, up to that keyword, or null. */
  private @Nullable Range with() {
    if (tokens.isEmpty()
        || !tokens.get(0).isKeyword("WITH")
        || write.kind() == WriteKind.INSERT
        || write.kind() == WriteKind.COPY) {
      return null;
    }
    int body = topLevel(1, "UPDATE", "DELETE", "MERGE");
    return body < 0 ? null : new Range(0, tokens.get(body).start());
  }

  /**
   * The {@code OR IGNORE} or {@code OR REPLACE} right after an INSERT's {@code INSERT}, or null.
   */
  private @Nullable Range insertOr() {
    if (tokens.size() > 2
        && tokens.get(1).isKeyword("OR")
        && (tokens.get(2).isKeyword("IGNORE") || tokens.get(2).isKeyword("REPLACE"))) {
      return new Range(tokens.get(1).start(), tokens.get(2).end());
    }
    return null;
  }

  /**
   * The index of the INSERT's {@code ON} of its {@code ON CONFLICT} clause after token {@code
   * from}, or -1: an {@code ON} outside parentheses followed by {@code CONFLICT}. The {@code ON} of
   * a join in the inserted query is followed by its condition ({@code ON conflict = 1} compares a
   * column named so).
   */
  private int onConflict(int from) {
    for (int on = topLevel(from, "ON"); on >= 0; on = topLevel(on + 1, "ON")) {
      if (on + 2 < tokens.size()
          && tokens.get(on + 1).isKeyword("CONFLICT")
          && (tokens.get(on + 2).isSymbol("(")
              || tokens.get(on + 2).isKeyword("DO")
              || tokens.get(on + 2).isKeyword("ON"))) {
        return on;
      }
    }
    return -1;
  }

  /** The RETURNING clause outside parentheses after token {@code from}, to the end, or null. */
  private @Nullable Range returning(int from) {
    int returning = topLevel(from, "RETURNING");
    return returning < 0 ? null : new Range(tokens.get(returning).start(), sql.length());
  }

  /** The index of the first of {@code keywords} outside parentheses from {@code from}, or -1. */
  private int topLevel(int from, String... keywords) {
    return write.statement().topLevel(from, tokens.size(), token -> isAnyKeyword(token, keywords));
  }

  private static boolean isAnyKeyword(SqlToken token, String... keywords) {
    for (String keyword : keywords) {
      if (token.isKeyword(keyword)) {
        return true;
      }
    }
    return false;
  }
}
