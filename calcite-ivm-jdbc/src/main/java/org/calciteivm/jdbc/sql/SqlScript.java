package org.calciteivm.jdbc.sql;

import com.google.common.collect.ImmutableList;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/** A SQL text split into statements at top-level semicolons. */
public final class SqlScript {
  private SqlScript() {}

  /**
   * Splits {@code script} into its statements, each trimmed, without its terminating semicolon and
   * with its tokens (the script is lexed once); statements that hold only comments or whitespace
   * are dropped. Semicolons inside strings, quoted identifiers and comments do not split.
   */
  public static List<SqlStatement> statements(String script) throws SQLException {
    List<SqlStatement> statements = new ArrayList<>();
    List<SqlToken> tokens = new ArrayList<>();
    for (SqlToken token : SqlLexer.tokenize(script)) {
      if (token.kind() == SqlToken.Kind.SEMICOLON) {
        add(script, tokens, statements);
        tokens.clear();
      } else {
        tokens.add(token);
      }
    }
    add(script, tokens, statements);
    return statements;
  }

  /** The texts of {@link #statements}. */
  public static List<String> split(String script) throws SQLException {
    return statements(script).stream().map(SqlStatement::sql).toList();
  }

  /** Adds the statement of {@code tokens}, if any, with positions in its own text. */
  private static void add(String script, List<SqlToken> tokens, List<SqlStatement> statements) {
    if (tokens.isEmpty()) {
      return;
    }
    int start = tokens.get(0).start();
    ImmutableList.Builder<SqlToken> own = ImmutableList.builder();
    for (SqlToken token : tokens) {
      own.add(new SqlToken(token.kind(), token.text(), token.start() - start, token.end() - start));
    }
    statements.add(
        new SqlStatement(
            script.substring(start, tokens.get(tokens.size() - 1).end()), own.build()));
  }
}
