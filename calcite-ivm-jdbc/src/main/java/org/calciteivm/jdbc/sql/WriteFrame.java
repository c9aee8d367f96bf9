package org.calciteivm.jdbc.sql;

import com.google.common.collect.ImmutableList;
import org.calciteivm.jdbc.sql.ParsedStatement.Write;
import org.calciteivm.jdbc.sql.ParsedStatement.WriteKind;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The frame of an INSERT, UPDATE, DELETE or TRUNCATE whose change is captured, as {@link
 * WriteFrameParser} reads it: where the target and its alias stand, the SET list, where the clauses
 * after them begin, and whether it has the clauses capture cannot handle. Everything else in the
 * statement is copied verbatim by whoever rewrites it.
 *
 * @param write the statement, its kind and target
 * @param alias the target's alias (UPDATE, DELETE), or null
 * @param relation the target with its alias, as written
 * @param assignments an UPDATE's SET list, in its order; empty for other writes
 * @param rest the statement after its head (the target, its alias and an UPDATE's SET list) to the
 *     end of the text: the clauses that choose the rows (USING, FROM, WHERE) and any after them
 * @param joined when the rest begins with the relations joined to the target (USING of a DELETE,
 *     FROM of an UPDATE): the rest after that keyword; else null
 * @param returning whether the statement has a RETURNING clause
 * @param onConflict whether an INSERT has an ON CONFLICT clause
 */
public record WriteFrame(
    Write write,
    @Nullable String alias,
    Range relation,
    ImmutableList<Assignment> assignments,
    Range rest,
    @Nullable Range joined,
    boolean returning,
    boolean onConflict) {

  /**
   * A part of the statement's text.
   *
   * @param start offset of its first character
   * @param end offset just past its last character
   */
  public record Range(int start, int end) {}

  /**
   * One {@code column = value} of a SET list.
   *
   * @param column the column's token (the last part of a qualified column)
   * @param value the value expression
   */
  public record Assignment(SqlToken column, Range value) {}

  /** What the write does. */
  public WriteKind kind() {
    return write.kind();
  }

  /** The table it writes, with its position in the text. */
  public ObjectName target() {
    return write.target();
  }

  /** The statement's text. */
  public String sql() {
    return write.statement().sql();
  }

  /** The text of {@code range}. */
  public String text(Range range) {
    return sql().substring(range.start(), range.end());
  }
}
