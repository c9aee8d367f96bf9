package org.calciteivm.jdbc.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Splitting scripts into statements. */
class SqlScriptTest {
  @Test
  void splitsAtTopLevelSemicolonsOnly() throws SQLException {
    assertThat(
            SqlScript.split(
                "SELECT ';' AS \"a;b\"; -- c;\n/* d; */ SELECT $$e;$$ ;;\n SELECT E'f\\';'"))
        .containsExactly("SELECT ';' AS \"a;b\"", "SELECT $$e;$$", "SELECT E'f\\';'");
  }

  @Test
  void eachStatementCarriesItsTokensAtPositionsInItsOwnText() throws SQLException {
    String script = "/* a */ SELECT 1;\n  DELETE FROM \"t;\" -- b\n WHERE x = $$;$$ ; ";
    for (SqlStatement statement : SqlScript.statements(script)) {
      assertThat(statement.tokens()).isEqualTo(SqlLexer.tokenize(statement.sql()));
    }
    assertThat(SqlScript.statements(script))
        .extracting(SqlStatement::sql)
        .containsExactly("SELECT 1", "DELETE FROM \"t;\" -- b\n WHERE x = $$;$$");
  }

  @Test
  void unterminatedStringFails() {
    assertThatThrownBy(() -> SqlScript.split("SELECT 'x"))
        .isInstanceOf(SQLException.class)
        .hasMessageContaining("unterminated string literal");
  }
}
