package org.calciteivm.jdbc.sql;

import com.google.common.collect.ImmutableList;
import java.sql.SQLException;
import java.util.List;

/**
 * The writes inside a statement's WITH clause: DuckDB's data-modifying common table expressions,
 * which run with the statement and change their own tables ({@link
 * ParsedStatement.Write#nestedWrites}).
 */
final class NestedWrites {
  private NestedWrites() {}

  /**
   * The targets of the writes inside the WITH clause of {@code statement}: an INSERT, UPDATE,
   * DELETE or MERGE that begins a parenthesized body.
   */
  static ImmutableList<ObjectName> of(SqlStatement statement) throws SQLException {
    ImmutableList.Builder<ObjectName> targets = ImmutableList.builder();
    List<SqlToken> tokens = statement.tokens();
    for (int i = 1; i < tokens.size(); i++) {
      if (!tokens.get(i - 1).isSymbol("(")) {
        continue;
      }
      TokenCursor at = new TokenCursor(statement, i);
      if (at.accept("INSERT")) {
        if (at.accept("OR")) {
          at.next();
        }
        at.expect("INTO");
      } else if (at.accept("DELETE")) {
        at.expect("FROM");
      } else if (at.accept("MERGE")) {
        at.expect("INTO");
      } else if (!at.accept("UPDATE")) {
        continue;
      }
      targets.add(at.name());
    }
    return targets.build();
  }
}
