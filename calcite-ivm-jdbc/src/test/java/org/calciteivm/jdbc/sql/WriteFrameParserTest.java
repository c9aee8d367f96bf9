package org.calciteivm.jdbc.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import org.calciteivm.jdbc.sql.ParsedStatement.Write;
import org.junit.jupiter.api.Test;

/** The frame of a captured write: what is read of it, and where it stands in the text. */
class WriteFrameParserTest {

  @Test
  void updateFrameNamesAliasAssignmentsAndJoinedRelations() throws SQLException {
    WriteFrame frame =
        frame(
            "UPDATE main.t AS x SET a = f(b, c), \"B\" = (SELECT 1, 2), x.c = ? "
                + "FROM u WHERE u.id = x.id");
    assertThat(frame.alias()).isEqualTo("x");
    assertThat(frame.text(frame.relation())).isEqualTo("main.t AS x");
    assertThat(frame.assignments())
        .extracting(a -> a.column().identifier() + " := " + frame.text(a.value()))
        .containsExactly("a := f(b, c)", "B := (SELECT 1, 2)", "c := ?");
    assertThat(frame.text(frame.rest())).isEqualTo("FROM u WHERE u.id = x.id");
    assertThat(frame.text(frame.joined())).isEqualTo(" u WHERE u.id = x.id");
    assertThat(frame.returning()).isNull();
  }

  @Test
  void clausesInsideExpressionsDoNotEndTheSetList() throws SQLException {
    WriteFrame frame =
        frame("UPDATE t SET a = extract(year FROM d), b = [1, 2][1] WHERE a IN (SELECT 1 FROM u)");
    assertThat(frame.alias()).isNull();
    assertThat(frame.assignments())
        .extracting(a -> frame.text(a.value()))
        .containsExactly("extract(year FROM d)", "[1, 2][1]");
    assertThat(frame.text(frame.rest())).isEqualTo("WHERE a IN (SELECT 1 FROM u)");
    assertThat(frame.joined()).isNull();
  }

  @Test
  void deleteFrameReadsUsingAndReturning() throws SQLException {
    WriteFrame frame = frame("DELETE FROM t d USING u WHERE u.id = d.id RETURNING d.id");
    assertThat(frame.alias()).isEqualTo("d");
    assertThat(frame.text(frame.relation())).isEqualTo("t d");
    assertThat(frame.text(frame.rest())).startsWith("USING u");
    assertThat(frame.text(frame.joined())).isEqualTo(" u WHERE u.id = d.id RETURNING d.id");
    assertThat(frame.text(frame.returning())).startsWith("RETURNING");

    WriteFrame plain = frame("DELETE FROM t WHERE (SELECT 1 RETURNING) IS NULL");
    assertThat(plain.alias()).isNull();
    assertThat(plain.text(plain.relation())).isEqualTo("t");
    assertThat(plain.joined()).isNull();
    assertThat(plain.returning()).isNull();
  }

  @Test
  void onConflictIsNotTheOnOfAJoin() throws SQLException {
    assertThat(frame("INSERT INTO t SELECT * FROM a JOIN b ON conflict = 1").onConflict()).isNull();
    assertThat(frame("INSERT INTO t SELECT * FROM a JOIN b ON (a.x = b.x)").onConflict()).isNull();
    WriteFrame nothing = frame("INSERT INTO t SELECT 1 ON CONFLICT DO NOTHING;");
    assertThat(nothing.text(nothing.onConflict().clause())).isEqualTo("ON CONFLICT DO NOTHING;");
    assertThat(nothing.onConflict().updates()).isFalse();
    assertThat(nothing.upserts()).isFalse();
    assertThat(
            frame("INSERT INTO t SELECT * FROM a JOIN b ON a.x = b.x ON CONFLICT DO NOTHING")
                .onConflict())
        .isNotNull();
    WriteFrame returning = frame("INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING RETURNING *");
    assertThat(returning.text(returning.onConflict().clause()))
        .isEqualTo("ON CONFLICT DO NOTHING ");
    WriteFrame returnsAll = frame("INSERT INTO t VALUES (1) RETURNING *;");
    assertThat(returnsAll.text(returnsAll.returning())).isEqualTo("RETURNING *;");
    WriteFrame ignore = frame("INSERT OR IGNORE INTO t VALUES (1)");
    assertThat(ignore.text(ignore.insertOr())).isEqualTo("OR IGNORE");
    assertThat(ignore.onConflict()).isNull();
    assertThat(ignore.upserts()).isFalse();
    assertThat(frame("INSERT INTO t VALUES (1)").insertOr()).isNull();
    assertThat(frame("INSERT OR REPLACE INTO t VALUES (1)").upserts()).isTrue();
  }

  @Test
  void upsertsReadTheirConflictTargetAndSetList() throws SQLException {
    WriteFrame update =
        frame(
            "INSERT INTO t AS x (a, b) VALUES (1, 2) ON CONFLICT (a, \"B\") DO UPDATE"
                + " SET b = x.b + excluded.b, c = (SELECT 1 WHERE 1 = 1) WHERE x.b < 9 RETURNING a");
    assertThat(update.upserts()).isTrue();
    assertThat(update.alias()).isEqualTo("x");
    assertThat(update.insertColumns()).isEqualTo(WriteFrame.InsertColumns.LISTED);
    assertThat(update.onConflict().target())
        .extracting(SqlToken::identifier)
        .containsExactly("a", "B");
    assertThat(update.assignments())
        .extracting(a -> a.column().identifier() + "=" + update.text(a.value()))
        .containsExactly("b=x.b + excluded.b", "c=(SELECT 1 WHERE 1 = 1)");
    assertThat(update.text(update.onConflict().clause())).endsWith("WHERE x.b < 9 ");
    assertThat(frame("INSERT INTO t BY NAME SELECT 1 AS a").insertColumns())
        .isEqualTo(WriteFrame.InsertColumns.BY_NAME);
    assertThat(frame("INSERT INTO t (SELECT 1)").insertColumns())
        .isEqualTo(WriteFrame.InsertColumns.ALL);
    assertThatThrownBy(() -> frame("INSERT INTO t VALUES (1) ON CONFLICT (lower(a)) DO NOTHING"))
        .hasMessageContaining("this ON CONFLICT clause cannot be captured");
    assertThatThrownBy(
            () -> frame("INSERT INTO t VALUES (1) ON CONFLICT DO UPDATE SET (a, b) = (1, 2)"))
        .hasMessageContaining("INSERT INTO t: SET ( cannot be captured yet");
  }

  @Test
  void mergesReadTheirSourceConditionAndClauses() throws SQLException {
    WriteFrame merge =
        frame(
            "WITH q AS (SELECT 1 AS k) MERGE INTO t AS x USING (SELECT k FROM q WHERE k ON (1)) s"
                + " ON x.k = s.k AND (x.v WHEN 1) WHEN MATCHED AND s.k > 0 THEN DELETE"
                + " WHEN NOT MATCHED THEN INSERT VALUES (s.k)");
    assertThat(merge.text(merge.with())).isEqualTo("WITH q AS (SELECT 1 AS k) ");
    assertThat(merge.alias()).isEqualTo("x");
    assertThat(merge.text(merge.merge().source())).isEqualTo("(SELECT k FROM q WHERE k ON (1)) s");
    assertThat(merge.text(merge.merge().condition())).isEqualTo("ON x.k = s.k AND (x.v WHEN 1)");
    assertThat(merge.merge().changesMatched()).isTrue();
    assertThat(merge.merge().changesUnmatched()).isFalse();
    assertThat(merge.merge().hasParameters()).isFalse();
    WriteFrame bySource =
        frame(
            "MERGE INTO t USING s USING (k) WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = ?"
                + " RETURNING *");
    assertThat(bySource.text(bySource.merge().source())).isEqualTo("s");
    assertThat(bySource.text(bySource.merge().condition())).isEqualTo("USING (k)");
    assertThat(bySource.merge().changesMatched()).isFalse();
    assertThat(bySource.merge().changesUnmatched()).isTrue();
    assertThat(bySource.merge().hasParameters()).isTrue();
    assertThat(bySource.text(bySource.returning())).isEqualTo("RETURNING *");
    assertThatThrownBy(() -> frame("MERGE INTO t USING s WHEN MATCHED THEN DELETE"))
        .hasMessageContaining("expected ON or USING and WHEN in MERGE INTO t");
  }

  @Test
  void positionsAreTheStatementsInAScript() throws SQLException {
    SqlStatement second =
        SqlScript.statements("SELECT 1; -- x\n  WITH q AS (SELECT 1) INSERT INTO t SELECT * FROM q")
            .get(1);
    WriteFrame frame = WriteFrameParser.parse((Write) StatementParser.parse(second));
    assertThat(frame.target().name()).isEqualTo("t");
    assertThat(frame.sql().substring(frame.target().start(), frame.target().end())).isEqualTo("t");
    assertThat(frame.text(frame.rest())).isEqualTo("SELECT * FROM q");
  }

  @Test
  void setListsThatCannotBeFramedFail() {
    assertThatThrownBy(() -> frame("UPDATE t SET (a, b) = (1, 2)"))
        .isInstanceOf(SQLFeatureNotSupportedException.class)
        .hasMessageContaining("SET ( cannot be captured yet");
    assertThatThrownBy(() -> frame("UPDATE t x WHERE a = 1"))
        .hasMessageContaining("expected SET in UPDATE t");
    assertThatThrownBy(() -> frame("UPDATE t SET a 1"))
        .hasMessageContaining("expected = after SET a");
    assertThatThrownBy(() -> frame("UPDATE t SET a = , b = 1"))
        .hasMessageContaining("SET a has no value");
    assertThatThrownBy(() -> frame("UPDATE t SET a."))
        .hasMessageContaining("expected = after SET a");
  }

  private static WriteFrame frame(String sql) throws SQLException {
    return WriteFrameParser.parse((Write) StatementParser.parse(sql));
  }
}
