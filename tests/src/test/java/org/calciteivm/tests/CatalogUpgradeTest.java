package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A database whose catalog an earlier version wrote (no refresh statistics, no {@code ivm_views},
 * no stored refresh programs) is brought up to date when the driver opens it, and its views keep
 * working.
 */
class CatalogUpgradeTest {
  @TempDir Path dir;

  @Test
  void catalogOfAnEarlierVersionIsUpgradedOnOpen() throws SQLException {
    String path = dir.resolve("old.duckdb").toString();
    createTableAndView(path);
    // what the catalog looked like before the statistics (plain DuckDB, not the driver)
    try (Connection plain = DriverManager.getConnection("jdbc:duckdb:" + path);
        Statement s = plain.createStatement()) {
      s.execute("DROP VIEW ivm_views");
      s.execute("DROP TABLE _ivm.programs");
      s.execute("DROP TABLE _ivm.schedules");
      s.execute("ALTER TABLE _ivm.view_inputs DROP COLUMN columns_read");
      for (String column :
          new String[] {
            "hidden_columns",
            "last_refresh_at",
            "refresh_count",
            "last_refresh_ms",
            "scanned_table_ids",
            "refresh_timing",
            "refresh_interval_ms"
          }) {
        s.execute("ALTER TABLE _ivm.views DROP COLUMN " + column);
      }
    }
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:" + path);
        Statement s = ivm.createStatement()) {
      s.execute("INSERT INTO t VALUES (3, 'c')");
      s.execute("REFRESH MATERIALIZED VIEW f");
      ViewCheck.assertMatches(ivm, "f", "SELECT k, v FROM t WHERE k > 1", "after the upgrade");
      try (ResultSet rs =
          s.executeQuery("SELECT name, refresh_count, pending_rows_total FROM ivm_views")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("f");
        assertThat(rs.getLong(2)).isEqualTo(1);
        assertThat(rs.getLong(3)).isZero();
        assertThat(rs.next()).isFalse();
      }
      // the columns each view reads were not recorded: ALTER TABLE plans the view to know them
      s.execute("ALTER TABLE t ADD COLUMN extra INTEGER");
      assertThatThrownBy(() -> s.execute("ALTER TABLE t DROP COLUMN v"))
          .hasMessageContaining("materialized view \"f\" reads it");
      s.execute("INSERT INTO t VALUES (4, 'd', 0)");
      s.execute("REFRESH MATERIALIZED VIEW f");
      ViewCheck.assertMatches(ivm, "f", "SELECT k, v FROM t WHERE k > 1", "after ALTER TABLE");
      // planned again, since the old catalog had no program: its shape is now recorded
      try (ResultSet rs = s.executeQuery("SELECT scanned_table_ids FROM _ivm.views")) {
        assertThat(rs.next()).isTrue();
        assertThat(rs.getString(1)).isEqualTo("[1]");
      }
      // views of before refresh timing are deferred, and can be made immediate or scheduled
      assertThat(ViewCheck.rows(ivm, "SELECT refresh FROM ivm_views")).containsExactly("deferred");
      s.execute("ALTER MATERIALIZED VIEW f SET (refresh = 'immediate')");
      s.execute("INSERT INTO t VALUES (5, 'e', 0)");
      ViewCheck.assertMatches(ivm, "f", "SELECT k, v FROM t WHERE k > 1", "immediate");
    }
  }

  /**
   * A MIN/MAX view stored before the counts of its extremes were kept gets them, unknown (NULL),
   * when a new build plans it; a delete at an extreme then recomputes the group, which counts it.
   */
  @Test
  void extremesStoredWithoutTheirCountsAreCountedAgain() throws SQLException {
    String path = dir.resolve("old-extremes.duckdb").toString();
    String query = "SELECT g, MIN(x) AS lo, MAX(x) AS hi FROM e GROUP BY g";
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:" + path);
        Statement s = ivm.createStatement()) {
      s.execute("CREATE TABLE e (id INTEGER, g INTEGER, x INTEGER)");
      s.execute("INSERT INTO e VALUES (1, 1, 5), (2, 1, 5), (3, 1, 7), (4, 2, 3), (5, NULL, 1)");
      s.execute("CREATE MATERIALIZED VIEW m AS " + query);
    }
    // what an earlier build stored: no counts, and programs of another build
    try (Connection plain = DriverManager.getConnection("jdbc:duckdb:" + path);
        Statement s = plain.createStatement()) {
      s.execute("ALTER TABLE _ivm.view_1_m DROP COLUMN a1_min_count");
      s.execute("ALTER TABLE _ivm.view_1_m DROP COLUMN a2_max_count");
      s.execute("UPDATE _ivm.programs SET build = 'an earlier build'");
    }
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:" + path);
        Statement s = ivm.createStatement()) {
      s.execute("DELETE FROM e WHERE id = 1");
      s.execute("INSERT INTO e VALUES (6, 2, 9)");
      s.execute("REFRESH MATERIALIZED VIEW m");
      ViewCheck.assertMatches(ivm, "m", query, "after the upgrade");
      assertThat(ViewCheck.rows(ivm, "SELECT k1, a1_min_count FROM _ivm.view_1_m ORDER BY k1"))
          .containsExactly("1\t1", "2\tNULL", "NULL\tNULL");
      s.execute("DELETE FROM e WHERE x = 5");
      s.execute("REFRESH MATERIALIZED VIEW m");
      ViewCheck.assertMatches(ivm, "m", query, "after the last 5 went");
    }
  }

  /**
   * An aggregate view stored before aggregates shared their sums and counts (a column per call and
   * measure) keeps that layout when a new build plans it, every column maintained.
   */
  @Test
  void aggregateStateStoredPerCallKeepsItsLayout() throws SQLException {
    String path = dir.resolve("old-state.duckdb").toString();
    String query = "SELECT g, SUM(x) AS s, AVG(x) AS a, COUNT(*) AS n FROM p GROUP BY g";
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:" + path);
        Statement s = ivm.createStatement()) {
      s.execute("CREATE TABLE p (id INTEGER, g INTEGER, x INTEGER NOT NULL)");
      s.execute("INSERT INTO p VALUES (1, 1, 5), (2, 1, 6), (3, 2, 7), (4, NULL, 1)");
      s.execute("CREATE MATERIALIZED VIEW o AS " + query);
      assertThat(ViewCheck.rows(ivm, "SELECT hidden_columns FROM ivm_views"))
          .containsExactly("[_ivm_count, a1_sum]");
    }
    // what an earlier build stored: each call's own sum and count, read by its user view, and
    // programs of another build
    try (Connection plain = DriverManager.getConnection("jdbc:duckdb:" + path);
        Statement s = plain.createStatement()) {
      for (String column : new String[] {"a1_count", "a2_count", "a3_count"}) {
        s.execute("ALTER TABLE _ivm.view_1_o ADD COLUMN " + column + " BIGINT");
      }
      s.execute("ALTER TABLE _ivm.view_1_o ADD COLUMN a2_sum HUGEINT");
      s.execute(
          "UPDATE _ivm.view_1_o SET a1_count = _ivm_count, a2_sum = a1_sum,"
              + " a2_count = _ivm_count, a3_count = _ivm_count");
      s.execute(
          "CREATE OR REPLACE VIEW o AS SELECT k1 AS g,"
              + " CASE WHEN a1_count = 0 THEN NULL ELSE a1_sum END AS s,"
              + " CASE WHEN a2_count = 0 THEN NULL ELSE a2_sum / a2_count END AS a,"
              + " a3_count AS n FROM _ivm.view_1_o");
      s.execute("UPDATE _ivm.programs SET build = 'an earlier build'");
    }
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:" + path);
        Statement s = ivm.createStatement()) {
      s.execute("INSERT INTO p VALUES (5, 2, 8), (6, 3, 2)");
      s.execute("DELETE FROM p WHERE id = 1");
      s.execute("UPDATE p SET x = x + 10 WHERE g = 2");
      s.execute("REFRESH MATERIALIZED VIEW o");
      ViewCheck.assertMatches(ivm, "o", query, "after the upgrade");
      s.execute("DELETE FROM p WHERE g = 1");
      s.execute("REFRESH MATERIALIZED VIEW o");
      ViewCheck.assertMatches(ivm, "o", query, "after a group went");
    }
  }

  /**
   * A sum of floating-point values stored before its NaNs and infinities were counted apart (one
   * running sum) keeps that layout when a new build plans it, and stays maintained for finite
   * values.
   */
  @Test
  void floatingSumStoredWithoutSpecialValueCountsKeepsItsLayout() throws SQLException {
    String path = dir.resolve("old-float-state.duckdb").toString();
    String query = "SELECT g, SUM(x) AS s, AVG(x) AS a FROM p GROUP BY g";
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:" + path);
        Statement s = ivm.createStatement()) {
      s.execute("CREATE TABLE p (id INTEGER, g INTEGER, x DOUBLE)");
      s.execute("INSERT INTO p VALUES (1, 1, 0.5), (2, 1, 6), (3, 2, 7), (4, NULL, NULL)");
      s.execute("CREATE MATERIALIZED VIEW o AS " + query);
      assertThat(ViewCheck.rows(ivm, "SELECT hidden_columns FROM ivm_views"))
          .containsExactly("[_ivm_count, a1_sum, a1_count, a1_nan, a1_posinf, a1_neginf]");
    }
    // what an earlier build stored: the sum and its count only, read by its user view, and
    // programs of another build
    try (Connection plain = DriverManager.getConnection("jdbc:duckdb:" + path);
        Statement s = plain.createStatement()) {
      s.execute(
          "CREATE OR REPLACE VIEW o AS SELECT k1 AS g,"
              + " CASE WHEN a1_count = 0 THEN NULL ELSE a1_sum END AS s,"
              + " CASE WHEN a1_count = 0 THEN NULL ELSE a1_sum / a1_count END AS a"
              + " FROM _ivm.view_1_o");
      for (String column : new String[] {"a1_nan", "a1_posinf", "a1_neginf"}) {
        s.execute("ALTER TABLE _ivm.view_1_o DROP COLUMN " + column);
      }
      s.execute("UPDATE _ivm.programs SET build = 'an earlier build'");
    }
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:" + path);
        Statement s = ivm.createStatement()) {
      s.execute("INSERT INTO p VALUES (5, 2, 8.25), (6, 3, 2)");
      s.execute("DELETE FROM p WHERE id = 1");
      s.execute("UPDATE p SET x = x + 10 WHERE g = 2");
      s.execute("REFRESH MATERIALIZED VIEW o");
      ViewCheck.assertMatches(ivm, "o", query, "after the upgrade");
      s.execute("DELETE FROM p WHERE g = 1");
      s.execute("REFRESH MATERIALIZED VIEW o");
      ViewCheck.assertMatches(ivm, "o", query, "after a group went");
    }
  }

  /**
   * A delta table an earlier build made without its table's collations (from the catalog's type
   * names) is rebuilt with them, its rows kept, when a new build opens the database: two spellings
   * of one NOCASE group in one change are one group again.
   */
  @Test
  void deltaTablesThatLostCollationsGetThemBack() throws SQLException {
    String path = dir.resolve("old-delta.duckdb").toString();
    String query = "SELECT name, SUM(amt) AS s, COUNT(*) AS n FROM c GROUP BY name";
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:" + path);
        Statement s = ivm.createStatement()) {
      s.execute("CREATE TABLE c (id INTEGER, name VARCHAR COLLATE NOCASE, amt INTEGER)");
      s.execute("INSERT INTO c VALUES (1, 'Ab', 1), (2, 'x', 2)");
      s.execute("CREATE MATERIALIZED VIEW v AS " + query);
    }
    // what an earlier build made: the delta table without the collation, holding a captured
    // insert the view has not consumed, and programs of another build
    try (Connection plain = DriverManager.getConnection("jdbc:duckdb:" + path);
        Statement s = plain.createStatement()) {
      s.execute("DROP TABLE _ivm.delta_1_c");
      s.execute(
          "CREATE TABLE _ivm.delta_1_c (name VARCHAR, amt INTEGER,"
              + " _ivm_weight BIGINT NOT NULL, _ivm_epoch BIGINT)");
      s.execute("INSERT INTO c VALUES (3, 'AB', 4)");
      s.execute("INSERT INTO _ivm.delta_1_c VALUES ('AB', 4, 1, NULL)");
      s.execute("UPDATE _ivm.programs SET build = 'an earlier build'");
    }
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:" + path);
        Statement s = ivm.createStatement()) {
      s.execute("INSERT INTO c VALUES (4, 'aB', 8), (5, 'X', 16)");
      s.execute("REFRESH MATERIALIZED VIEW v");
      ViewCheck.assertMatches(ivm, "v", query, "after the upgrade");
      assertThat(ViewCheck.rows(ivm, "SELECT s, n FROM v WHERE name = 'ab'"))
          .containsExactly("13\t3");
    }
  }

  /** Creates table t and materialized view f over it in the database at {@code path}. */
  private static void createTableAndView(String path) throws SQLException {
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:" + path);
        Statement s = ivm.createStatement()) {
      s.execute("CREATE TABLE t (k INTEGER, v VARCHAR)");
      s.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')");
      s.execute("CREATE MATERIALIZED VIEW f AS SELECT k, v FROM t WHERE k > 1");
    }
  }

  /**
   * A read-only database whose catalog an earlier version wrote cannot be upgraded; its views are
   * still read, as deferred views.
   */
  @Test
  void readOnlyCatalogOfAnEarlierVersionIsRead() throws SQLException {
    String path = dir.resolve("old-read-only.duckdb").toString();
    createTableAndView(path);
    try (Connection plain = DriverManager.getConnection("jdbc:duckdb:" + path);
        Statement s = plain.createStatement()) {
      s.execute("DROP TABLE _ivm.schedules");
      s.execute("ALTER TABLE _ivm.views DROP COLUMN refresh_timing");
      s.execute("ALTER TABLE _ivm.views DROP COLUMN refresh_interval_ms");
    }
    Properties readOnly = new Properties();
    readOnly.setProperty("duckdb.read_only", "true");
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:" + path, readOnly)) {
      assertThat(ViewCheck.rows(ivm, "SELECT * FROM f")).containsExactly("2\tb");
      assertThatThrownBy(() -> ivm.createStatement().execute("INSERT INTO t VALUES (3, 'c')"))
          .hasMessageContaining("read-only");
    }
  }

  @Test
  void aUserTableNamedLikeTheSystemViewIsLeftAloneUntilRenamed() throws SQLException {
    String path = dir.resolve("mine.duckdb").toString();
    try (Connection plain = DriverManager.getConnection("jdbc:duckdb:" + path);
        Statement s = plain.createStatement()) {
      s.execute("CREATE TABLE ivm_views (a INTEGER)");
      s.execute("CREATE TABLE t (k INTEGER)");
    }
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:" + path);
        Statement s = ivm.createStatement()) {
      assertThat(ViewCheck.rows(ivm, "SELECT count(*) FROM ivm_views")).containsExactly("0");
      assertThatThrownBy(() -> s.execute("CREATE MATERIALIZED VIEW f AS SELECT k FROM t"))
          .hasMessageContaining("a table named ivm_views exists in the schema main")
          .hasMessageContaining("rename the table first");
    }
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:" + path);
        Statement s = ivm.createStatement()) {
      s.execute("ALTER TABLE ivm_views RENAME TO my_views");
      s.execute("CREATE MATERIALIZED VIEW f AS SELECT k FROM t");
      assertThat(ViewCheck.rows(ivm, "SELECT name FROM ivm_views")).containsExactly("f");
    }
  }
}
