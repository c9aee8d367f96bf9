package org.calciteivm.jdbc.sql;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * A possibly qualified name as written in a statement ({@code t}, {@code main.t}, {@code
 * db.main.t}), with the positions of its tokens.
 *
 * @param parts the name's parts, quotes removed
 * @param start offset of its first character in the statement
 * @param end offset just past its last character
 * @param nameQuoted whether its last part, the object's own name, is written in double quotes
 */
public record ObjectName(ImmutableList<String> parts, int start, int end, boolean nameQuoted) {

  /** The schema the name refers to: its qualifier, or {@code main} when unqualified. */
  public String schema() {
    return parts.size() >= 2 ? parts.get(parts.size() - 2) : "main";
  }

  /** The last part: the object's own name. */
  public String name() {
    return parts.get(parts.size() - 1);
  }

  /** Whether the name is qualified by a schema. */
  public boolean isQualified() {
    return parts.size() > 1;
  }

  /**
   * This name in the database DuckDB calls {@code database}, resolved as DuckDB resolves it: {@code
   * c.s.t} is in catalog {@code c}, and {@code x.t} is in schema {@code x} if the database has one
   * ({@code isSchema}), else in the default schema of catalog {@code x}; null if the name is in
   * another attached database.
   */
  public @Nullable ObjectName inDatabase(String database, Predicate<String> isSchema) {
    if (parts.size() == 3) {
      return parts.get(0).equalsIgnoreCase(database)
          ? new ObjectName(parts.subList(1, 3), start, end, nameQuoted)
          : null;
    }
    if (parts.size() == 2 && !isSchema.test(parts.get(0))) {
      return parts.get(0).equalsIgnoreCase(database)
          ? new ObjectName(ImmutableList.of("main", parts.get(1)), start, end, nameQuoted)
          : this;
    }
    return this;
  }

  /** The name as a user would write it, for messages. */
  @Override
  public String toString() {
    return parts.stream().collect(Collectors.joining("."));
  }

  /** Creates a name from parts, its own name written without quotes. */
  public static ObjectName of(List<String> parts, int start, int end) {
    return of(parts, start, end, false);
  }

  /** Creates a name from parts; {@code nameQuoted} if its own name is written in double quotes. */
  public static ObjectName of(List<String> parts, int start, int end, boolean nameQuoted) {
    return new ObjectName(ImmutableList.copyOf(parts), start, end, nameQuoted);
  }
}
