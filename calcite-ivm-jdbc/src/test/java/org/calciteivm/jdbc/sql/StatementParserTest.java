package org.calciteivm.jdbc.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.SQLException;
import org.calciteivm.jdbc.sql.ParsedStatement.AlterTable;
import org.calciteivm.jdbc.sql.ParsedStatement.CreateMaterializedView;
import org.calciteivm.jdbc.sql.ParsedStatement.Other;
import org.calciteivm.jdbc.sql.ParsedStatement.SchemaChange;
import org.calciteivm.jdbc.sql.ParsedStatement.SchemaChangeKind;
import org.calciteivm.jdbc.sql.ParsedStatement.SetSetting;
import org.calciteivm.jdbc.sql.ParsedStatement.TableAlteration;
import org.calciteivm.jdbc.sql.ParsedStatement.Write;
import org.calciteivm.jdbc.sql.ParsedStatement.WriteKind;
import org.junit.jupiter.api.Test;

/** How statements are classified: only their frame is read. */
class StatementParserTest {

  @Test
  void createMaterializedViewKeepsTheQueryText() throws SQLException {
    ParsedStatement parsed =
        StatementParser.parse(
            "create materialized view if not exists \"My View\" as select a::int from t");
    assertThat(parsed)
        .isInstanceOfSatisfying(
            CreateMaterializedView.class,
            c -> {
              assertThat(c.name().name()).isEqualTo("My View");
              assertThat(c.ifNotExists()).isTrue();
              assertThat(c.query()).isEqualTo("select a::int from t");
            });
  }

  @Test
  void theQueryInPlaceKeepsItsPositionInTheStatement() throws SQLException {
    ParsedStatement parsed =
        StatementParser.parse("CREATE MATERIALIZED VIEW v\r\n  AS\n  SELECT 1  \n");
    assertThat(parsed)
        .isInstanceOfSatisfying(
            CreateMaterializedView.class,
            c -> {
              assertThat(c.query()).isEqualTo("SELECT 1");
              assertThat(c.queryInPlace()).isEqualTo(" ".repeat(26) + "\r\n    \n  SELECT 1");
            });
  }

  @Test
  void writesNameTheirTarget() throws SQLException {
    assertWrite("INSERT INTO main.t VALUES (1)", WriteKind.INSERT, "main", "t");
    assertWrite("insert into \"T x\" by name select 1 as a", WriteKind.INSERT, "main", "T x");
    assertWrite("UPDATE s.t SET a = 1", WriteKind.UPDATE, "s", "t");
    assertWrite("DELETE FROM t WHERE a = 1", WriteKind.DELETE, "main", "t");
    assertWrite("TRUNCATE TABLE t", WriteKind.TRUNCATE, "main", "t");
    assertWrite(
        "WITH x AS (SELECT 1) INSERT INTO t SELECT * FROM x", WriteKind.INSERT, "main", "t");
  }

  @Test
  void writesThatCannotBeCapturedAreMarked() throws SQLException {
    assertWrite("INSERT OR REPLACE INTO t VALUES (1)", WriteKind.INSERT, "main", "t");
    assertWrite("INSERT OR IGNORE INTO t VALUES (1)", WriteKind.INSERT, "main", "t");
    assertWrite("COPY t FROM 'x.csv'", WriteKind.COPY, "main", "t");
    assertWrite("MERGE INTO t USING s ON t.a = s.a", WriteKind.MERGE, "main", "t");
    // a WITH clause before a MERGE once hid it: it ran uncaptured
    assertWrite(
        "WITH s AS (SELECT 1 AS a) MERGE INTO t USING s ON t.a = s.a WHEN MATCHED THEN DELETE",
        WriteKind.MERGE,
        "main",
        "t");
    assertWrite("EXPLAIN ANALYZE DELETE FROM t", WriteKind.UNCAPTURABLE, "main", "t");
    assertWrite("WITH x AS (SELECT 1) DELETE FROM t", WriteKind.DELETE, "main", "t");
    assertWrite("WITH x AS (SELECT 1) UPDATE t SET a = 1", WriteKind.UPDATE, "main", "t");
  }

  @Test
  void alterTableNamesWhatItChanges() throws SQLException {
    assertAlter("ALTER TABLE t ADD COLUMN c INT", TableAlteration.ADD_COLUMN, "c");
    assertAlter("alter table s.t add if not exists \"C d\" int", TableAlteration.ADD_COLUMN, "C d");
    assertAlter("ALTER TABLE t ADD PRIMARY KEY (a)", TableAlteration.ADD_CONSTRAINT, null);
    assertAlter(
        "ALTER TABLE IF EXISTS t DROP COLUMN IF EXISTS c", TableAlteration.DROP_COLUMN, "c");
    assertAlter("ALTER TABLE t DROP c CASCADE", TableAlteration.DROP_COLUMN, "c");
    assertAlter("ALTER TABLE t RENAME COLUMN c TO d", TableAlteration.RENAME_COLUMN, "c");
    assertAlter("ALTER TABLE t RENAME c TO d", TableAlteration.RENAME_COLUMN, "c");
    assertAlter("ALTER TABLE t RENAME TO u", TableAlteration.RENAME_TABLE, null);
    assertAlter("ALTER TABLE t ALTER c TYPE BIGINT", TableAlteration.CHANGE_COLUMN_TYPE, "c");
    assertAlter(
        "ALTER TABLE t ALTER COLUMN c SET DATA TYPE BIGINT USING c + 1",
        TableAlteration.CHANGE_COLUMN_TYPE,
        "c");
    assertAlter("ALTER TABLE t ALTER c SET DEFAULT 1", TableAlteration.CHANGE_COLUMN_RULE, "c");
    assertAlter("ALTER TABLE t ALTER c DROP NOT NULL", TableAlteration.CHANGE_COLUMN_RULE, "c");
    assertAlter("ALTER TABLE t SET PARTITIONED BY (a)", TableAlteration.OTHER, null);
    assertThat(StatementParser.parse("ALTER VIEW v RENAME TO w")).isInstanceOf(SchemaChange.class);
  }

  private static void assertAlter(String sql, TableAlteration alteration, String column)
      throws SQLException {
    assertThat(StatementParser.parse(sql))
        .isInstanceOfSatisfying(
            AlterTable.class,
            a -> {
              assertThat(a.alteration()).as(sql).isEqualTo(alteration);
              assertThat(a.column()).as(sql).isEqualTo(column);
            });
  }

  @Test
  void readsAreOther() throws SQLException {
    assertThat(StatementParser.parse("COPY t TO 'x.csv'")).isInstanceOf(Other.class);
    assertThat(StatementParser.parse("COPY (SELECT 1) TO 'x.csv'")).isInstanceOf(Other.class);
    assertThat(StatementParser.parse("WITH x AS (SELECT 1) SELECT * FROM x"))
        .isInstanceOf(Other.class);
    assertThat(StatementParser.parse("SELECT 'DELETE FROM t'")).isInstanceOf(Other.class);
    assertThat(StatementParser.parse("SET threads = 2")).isInstanceOf(Other.class);
  }

  @Test
  void schemaChangesNameEveryTarget() throws SQLException {
    assertThat(StatementParser.parse("DROP TABLE IF EXISTS a, s.b CASCADE"))
        .isInstanceOfSatisfying(
            SchemaChange.class,
            c ->
                assertThat(c.targets())
                    .extracting(ObjectName::toString)
                    .containsExactly("a", "s.b"));
  }

  @Test
  void schemaChangesSayWhatTheyDo() throws SQLException {
    assertSchemaChange("CREATE TEMP TABLE t (a INT)", SchemaChangeKind.CREATE_TEMPORARY_TABLE);
    assertSchemaChange(
        "create temporary view if not exists v as select 1",
        SchemaChangeKind.CREATE_TEMPORARY_VIEW);
    assertSchemaChange("CREATE OR REPLACE TABLE t AS SELECT 1", SchemaChangeKind.REPLACE_TABLE);
    assertSchemaChange("CREATE OR REPLACE VIEW v AS SELECT 1", SchemaChangeKind.REPLACE_VIEW);
    assertSchemaChange("DROP VIEW IF EXISTS v", SchemaChangeKind.DROP_VIEW);
    assertSchemaChange("DROP SCHEMA s CASCADE", SchemaChangeKind.DROP_SCHEMA);
    assertSchemaChange("ALTER VIEW v RENAME TO w", SchemaChangeKind.ALTER_VIEW);
    assertThat(StatementParser.parse("CREATE TABLE t (a INT)")).isInstanceOf(Other.class);
    assertThat(SchemaChangeKind.DROP_TABLE.words()).isEqualTo("drop table");
  }

  private static void assertSchemaChange(String sql, SchemaChangeKind kind) throws SQLException {
    assertThat(StatementParser.parse(sql))
        .isInstanceOfSatisfying(
            SchemaChange.class, c -> assertThat(c.kind()).as(sql).isEqualTo(kind));
  }

  @Test
  void settings() throws SQLException {
    assertThat(StatementParser.parse("SET ivm_skip_projection_delete TO false"))
        .isEqualTo(new SetSetting("ivm_skip_projection_delete", "false"));
    assertThatThrownBy(() -> StatementParser.parse("REFRESH MATERIALIZED VIEW v extra"))
        .hasMessageContaining("unexpected \"extra\"");
  }

  @Test
  void writesInsideWithAreListed() throws SQLException {
    Write insert =
        (Write)
            StatementParser.parse(
                "WITH d AS (DELETE FROM a WHERE k = 1 RETURNING *), u AS (UPDATE s.b SET v = 1"
                    + " RETURNING *) INSERT INTO c SELECT * FROM d");
    assertThat(insert.kind()).isEqualTo(WriteKind.INSERT);
    assertThat(insert.target().name()).isEqualTo("c");
    assertThat(insert.nestedWrites())
        .extracting(n -> n.schema() + "." + n.name())
        .containsExactly("main.a", "s.b");
    // a query whose only writes are nested is one of them, which cannot be captured
    assertWrite(
        "WITH d AS (INSERT OR IGNORE INTO a VALUES (1) RETURNING *) SELECT * FROM d",
        WriteKind.UNCAPTURABLE,
        "main",
        "a");
    assertThat(StatementParser.parse("WITH x AS (SELECT (1)) SELECT * FROM x"))
        .isInstanceOf(Other.class);
    assertThat(((Write) StatementParser.parse("WITH x AS (SELECT 1) DELETE FROM t")).nestedWrites())
        .isEmpty();
  }

  private static void assertWrite(String sql, WriteKind kind, String schema, String name)
      throws SQLException {
    assertThat(StatementParser.parse(sql))
        .isInstanceOfSatisfying(
            Write.class,
            w -> {
              assertThat(w.kind()).isEqualTo(kind);
              assertThat(w.target().schema()).isEqualTo(schema);
              assertThat(w.target().name()).isEqualTo(name);
            });
  }
}
