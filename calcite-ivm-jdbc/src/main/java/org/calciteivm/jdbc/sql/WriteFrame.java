package org.calciteivm.jdbc.sql;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import org.calciteivm.core.IvmNames;
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
 * @param with the WITH clause an UPDATE or DELETE begins with, up to its UPDATE or DELETE, or null
 * @param alias the target's alias (UPDATE, DELETE, and an INSERT's {@code AS alias}), or null
 * @param relation the target with its alias, as written
 * @param assignments an UPDATE's SET list, or the SET list of an INSERT's {@code ON CONFLICT ... DO
 *     UPDATE}, in its order; empty for other writes
 * @param rest the statement after its head (the target, its alias and an UPDATE's SET list) to the
 *     end of the text: the clauses that choose the rows (USING, FROM, WHERE) and any after them
 * @param joined when the rest begins with the relations joined to the target (USING of a DELETE,
 *     FROM of an UPDATE): the rest after that keyword; else null
 * @param returning the statement's RETURNING clause, from its keyword to the end of the text, or
 *     null
 * @param insertOr the {@code OR IGNORE} or {@code OR REPLACE} right after an INSERT's {@code
 *     INSERT}, or null
 * @param onConflict an INSERT's ON CONFLICT clause, or null
 * @param merge a MERGE's source, join condition and kinds of WHEN clauses; null for other writes
 */
public record WriteFrame(
    Write write,
    @Nullable Range with,
    @Nullable String alias,
    Range relation,
    ImmutableList<Assignment> assignments,
    Range rest,
    @Nullable Range joined,
    @Nullable Range returning,
    @Nullable Range insertOr,
    @Nullable OnConflict onConflict,
    @Nullable Merge merge) {

  /**
   * A part of the statement's text.
   *
   * @param start offset of its first character
   * @param end offset just past its last character
   */
  public record Range(int start, int end) {}

  /**
   * An INSERT's {@code ON CONFLICT [(columns)] DO NOTHING | DO UPDATE SET ... [WHERE ...]}.
   *
   * @param clause its text, from its ON to the end of the statement or its RETURNING
   * @param target the columns its conflict target names, as written; empty if it names none
   * @param updates whether it is {@code DO UPDATE} (whose SET list is the frame's assignments)
   */
  public record OnConflict(Range clause, ImmutableList<SqlToken> target, boolean updates) {}

  /**
   * What a {@code MERGE INTO target USING source {ON condition | USING (columns)} WHEN ...} reads
   * and may do.
   *
   * @param source the source with its alias, as written
   * @param condition the join condition: {@code ON ...} or {@code USING (...)}, as written
   * @param changesMatched whether it has a {@code WHEN MATCHED} clause (which may update or delete
   *     the target rows the source matches)
   * @param changesUnmatched whether it has a {@code WHEN NOT MATCHED BY SOURCE} clause (which may
   *     update or delete the target rows the source does not match)
   * @param hasParameters whether its text holds parameter markers
   */
  public record Merge(
      Range source,
      Range condition,
      boolean changesMatched,
      boolean changesUnmatched,
      boolean hasParameters) {}

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

  /**
   * Whether the write is an upsert: an INSERT that updates the existing row whose key a new row
   * takes ({@code INSERT OR REPLACE}, {@code ON CONFLICT ... DO UPDATE}).
   */
  public boolean upserts() {
    return (insertOr != null && text(insertOr).toUpperCase(Locale.ROOT).endsWith("REPLACE"))
        || (onConflict != null && onConflict.updates());
  }

  /** How an INSERT matches the values it inserts to the target's columns. */
  public enum InsertColumns {
    /** Every column, in the table's order. */
    ALL,
    /** The columns of the list after the target (and its alias); the others take defaults. */
    LISTED,
    /** {@code BY NAME}: the columns the query's names match. */
    BY_NAME
  }

  /** How an INSERT matches the values it inserts to the target's columns. */
  public InsertColumns insertColumns() {
    List<SqlToken> tokens = write.tokens();
    int next = write.statement().tokenIndexAt(relation.end());
    if (next < tokens.size() && tokens.get(next).isKeyword("BY")) {
      return InsertColumns.BY_NAME;
    }
    // a column list, not a parenthesized query: its first column is followed by , or )
    return next + 2 < tokens.size()
            && tokens.get(next).isSymbol("(")
            && tokens.get(next + 1).isIdentifier()
            && (tokens.get(next + 2).isSymbol(",") || tokens.get(next + 2).isSymbol(")"))
        ? InsertColumns.LISTED
        : InsertColumns.ALL;
  }

  /** The name the statement's clauses call the target by, quoted: its alias, or its name. */
  public String qualifier() {
    return IvmNames.quote(alias == null ? target().name() : alias);
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

  /**
   * The statement's text up to offset {@code end}, with its target replaced by {@code replacement}
   * and the parts {@code leftOut} (those not null) left out.
   */
  public String retargeted(String replacement, int end, @Nullable Range... leftOut) {
    List<Range> edits = new ArrayList<>();
    edits.add(new Range(target().start(), target().end()));
    Arrays.stream(leftOut).filter(Objects::nonNull).forEach(edits::add);
    edits.sort(Comparator.comparingInt(Range::start));
    StringBuilder text = new StringBuilder();
    int at = 0;
    for (Range edit : edits) {
      text.append(sql(), at, edit.start());
      if (edit.start() == target().start()) {
        text.append(replacement);
      }
      at = Math.min(edit.end(), end);
    }
    return text.append(sql(), at, end).toString();
  }

  /** The offset just past the statement's last token other than a semicolon. */
  public int end() {
    return write.tokens().get(lastToken()).end();
  }

  /** The index of the statement's last token other than a semicolon. */
  private int lastToken() {
    List<SqlToken> tokens = write.tokens();
    int last = tokens.size() - 1;
    while (last > 0 && tokens.get(last).kind() == SqlToken.Kind.SEMICOLON) {
      last--;
    }
    return last;
  }
}
