package org.calciteivm.jdbc.refresh;

import java.util.Comparator;
import java.util.List;
import java.util.Set;
import org.calciteivm.jdbc.sql.SqlToken;

/**
 * What the token-level rewrites of a query at CREATE share: replacements of its text, the
 * parenthesis that closes another, and the words that follow a relation in FROM.
 */
final class QueryEdits {
  private QueryEdits() {}

  /** A replacement of the text from offset {@code start} to just before {@code end}. */
  record Edit(int start, int end, String text) {}

  /** Words after a relation in FROM that are not its alias. */
  static final Set<String> NOT_ALIASES =
      Set.of(
          "WHERE",
          "JOIN",
          "INNER",
          "LEFT",
          "RIGHT",
          "FULL",
          "CROSS",
          "NATURAL",
          "ASOF",
          "SEMI",
          "ANTI",
          "POSITIONAL",
          "LATERAL",
          "ON",
          "USING",
          "GROUP",
          "HAVING",
          "QUALIFY",
          "WINDOW",
          "ORDER",
          "LIMIT",
          "OFFSET",
          "FETCH",
          "UNION",
          "EXCEPT",
          "INTERSECT",
          "WITH");

  /**
   * {@code text} with {@code edits}, which do not overlap (an insertion may be where a replacement
   * starts or ends), applied; {@code text} if none.
   */
  static String apply(String text, List<Edit> edits) {
    if (edits.isEmpty()) {
      return text;
    }
    // an insertion before a replacement that starts where it is inserted
    List<Edit> ordered =
        edits.stream()
            .sorted(Comparator.comparingInt(Edit::start).thenComparingInt(Edit::end))
            .toList();
    StringBuilder edited = new StringBuilder();
    int copied = 0;
    for (Edit edit : ordered) {
      edited.append(text, copied, edit.start()).append(edit.text());
      copied = edit.end();
    }
    return edited.append(text.substring(copied)).toString();
  }

  /** The position of the parenthesis closing the one at {@code open}, or the last token's. */
  static int closing(List<SqlToken> tokens, int open) {
    int depth = 0;
    for (int i = open; i < tokens.size(); i++) {
      if (tokens.get(i).isSymbol("(")) {
        depth++;
      } else if (tokens.get(i).isSymbol(")") && --depth == 0) {
        return i;
      }
    }
    return tokens.size() - 1;
  }
}
