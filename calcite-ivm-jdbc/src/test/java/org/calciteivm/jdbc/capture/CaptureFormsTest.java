package org.calciteivm.jdbc.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.stream.Stream;
import org.calciteivm.jdbc.TestRows;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Both forms of a capture plan ({@link CapturePlan}): each write runs through a statement (the
 * direct form) and through a prepared statement (the staged form) and must change the table as
 * plain DuckDB does, report the same update count, and leave a delta that makes the views equal
 * their queries (duplicates, NULLs and joins that match a row twice included).
 */
class CaptureFormsTest {
  private static final String DATA =
      "INSERT INTO t VALUES (1, 10, 'a', 'x'), (1, 10, 'a', 'x'), (2, NULL, 'b', 'x'),"
          + " (3, 30, NULL, 'x'), (4, 40, 'd', 'x'), (NULL, 50, 'e', 'x')";

  private static final List<String> VIEWS =
      List.of(
          "SELECT k, v, s FROM t",
          "SELECT s, count(*) AS n, sum(v) AS total FROM t GROUP BY s",
          "SELECT t.k, u.w FROM t JOIN u ON t.k = u.k",
          "SELECT s, count(*) AS n, sum(v) AS total FROM p GROUP BY s");

  static Stream<Arguments> writes() throws IOException {
    // COPY FROM reads files: rows with duplicates and NULLs, and some columns only (note takes its
    // default)
    Path rows = Files.createTempFile("copy-rows", ".csv");
    Files.writeString(rows, "k,v,s,note\n9,90,c,n\n9,90,c,n\n10,,,n\n");
    Path some = Files.createTempFile("copy-some", ".csv");
    Files.writeString(some, "k,s\n1,q\n11,r\n");
    rows.toFile().deleteOnExit();
    some.toFile().deleteOnExit();
    return Stream.of(
        Arguments.of("COPY t FROM '" + rows + "' (HEADER)", List.of()),
        Arguments.of("COPY t (k, s) FROM '" + some + "' (HEADER);", List.of()),
        Arguments.of("INSERT INTO t VALUES (?, ?, ?, 'n')", List.of("5", "NULL", "'e'")),
        Arguments.of("INSERT INTO t (k, v) SELECT k, v FROM t WHERE k < ?", List.of("3")),
        Arguments.of(
            "WITH n AS (SELECT ? AS k) INSERT INTO t (k, v, s) SELECT k, 1, 'w' FROM n",
            List.of("7")),
        Arguments.of("INSERT INTO t VALUES (?, 1, 'c', 'n'); -- trailing", List.of("8")),
        Arguments.of("DELETE FROM t WHERE v IS NULL OR k = ?", List.of("1")),
        Arguments.of("DELETE FROM t AS x USING u WHERE x.k = u.k AND u.w > ?", List.of("0")),
        Arguments.of("DELETE FROM t WHERE k = ? -- trailing", List.of("3")),
        Arguments.of("UPDATE t SET v = v + ? WHERE k % 2 = 0", List.of("1")),
        Arguments.of(
            "UPDATE t AS x SET s = u.name, v = ? FROM u WHERE x.k = u.k AND u.w > ?",
            List.of("7", "0")),
        Arguments.of(
            "UPDATE t SET v = ?, s = ? WHERE k IN (SELECT k FROM u);", List.of("0", "'z'")),
        Arguments.of("UPDATE t SET note = ?", List.of("'uncaptured'")),
        // DEFAULT: the column's default ('d'), or NULL for a column without one
        Arguments.of("UPDATE t SET note = DEFAULT, v = ? WHERE k = 1", List.of("5")),
        Arguments.of("UPDATE t SET s = DEFAULT WHERE k > ?", List.of("2")),
        Arguments.of("TRUNCATE t", List.of()),
        // a WITH clause before an UPDATE or DELETE
        Arguments.of(
            "WITH x AS (SELECT ? AS k) DELETE FROM t WHERE k IN (SELECT k FROM x)", List.of("1")),
        Arguments.of(
            "WITH x AS (SELECT k, w FROM u WHERE w > ?) UPDATE t SET v = x.w FROM x WHERE t.k = x.k",
            List.of("1")),
        Arguments.of(
            "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < ?)"
                + " UPDATE t SET s = 'r' || s WHERE k IN (SELECT n FROM r)",
            List.of("3")),
        // upserts that leave existing rows alone: the rows of one statement that share a key keep
        // the first
        Arguments.of(
            "INSERT OR IGNORE INTO p VALUES (?, 1, 'new'), (5, 2, 'five'), (5, 3, 'again')",
            List.of("1")),
        Arguments.of(
            "INSERT INTO p SELECT k + ?, v, s FROM p ON CONFLICT DO NOTHING", List.of("1")),
        Arguments.of(
            "INSERT INTO p (k, s) VALUES (2, ?), (9, 'nine'), (9, 'ninety') ON CONFLICT (k) DO"
                + " NOTHING;",
            List.of("'two'")),
        Arguments.of("INSERT OR IGNORE INTO p VALUES (3, ?, 'x'), (4, 1, NULL)", List.of("30")),
        // upserts: existing rows updated (or left alone where DO UPDATE's WHERE is false), new rows
        // inserted, a column list's other columns at their defaults in EXCLUDED
        Arguments.of("INSERT OR REPLACE INTO p VALUES (?, 11, 'r'), (7, 70, 'new')", List.of("1")),
        Arguments.of(
            "INSERT INTO p VALUES (2, ?, 'u'), (8, 80, 'n') ON CONFLICT (k) DO UPDATE"
                + " SET v = excluded.v, s = excluded.s",
            List.of("21")),
        Arguments.of(
            "INSERT INTO p AS x (k, v) VALUES (1, ?), (3, 5), (6, 6) ON CONFLICT DO UPDATE"
                + " SET v = x.v + excluded.v, s = excluded.s WHERE x.v IS NOT NULL",
            List.of("1")),
        Arguments.of(
            "INSERT INTO p SELECT k, v + ?, 'c' FROM p ON CONFLICT (k) DO UPDATE"
                + " SET s = excluded.s || p.s",
            List.of("1")),
        Arguments.of(
            "INSERT INTO p VALUES (?, 1, 'x') ON CONFLICT (k) DO UPDATE SET v = p.v + 1; -- new",
            List.of("9")),
        Arguments.of(
            "INSERT INTO p VALUES (?, 1, 'x') ON CONFLICT (k) DO UPDATE SET v = 5 WHERE false",
            List.of("2")),
        // MERGE: rows the source matches updated, deleted or left alone, rows it does not match
        // inserted, target rows it does not match changed (BY SOURCE), a key changed (DuckDB
        // deletes and inserts the row), a WITH clause, a column list, USING (columns)
        Arguments.of(
            "MERGE INTO t USING (SELECT k, max(w) AS w, min(name) AS name FROM u GROUP BY k) AS s"
                + " ON t.k = s.k WHEN MATCHED AND s.w > 1 THEN UPDATE SET v = s.w"
                + " WHEN MATCHED AND s.w = 0 THEN DELETE"
                + " WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.w, s.name, 'm')",
            List.of()),
        Arguments.of(
            "MERGE INTO t AS x USING (SELECT 3 AS k) AS s ON x.k = s.k"
                + " WHEN MATCHED THEN UPDATE SET s = 'hit'"
                + " WHEN NOT MATCHED BY SOURCE AND x.v > 20 THEN DELETE"
                + " WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = coalesce(x.v, 0) + 1",
            List.of()),
        Arguments.of(
            "MERGE INTO p USING (VALUES (2, 0), (9, 90)) AS s(k, v) ON p.k = s.k"
                + " WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)",
            List.of()),
        Arguments.of(
            "MERGE INTO p USING (SELECT 1 AS k) AS s USING (k) WHEN MATCHED THEN UPDATE SET k = 100",
            List.of()),
        Arguments.of(
            "WITH s AS (SELECT 2 AS k, 5 AS v) MERGE INTO p USING s ON p.k = s.k"
                + " WHEN MATCHED THEN UPDATE SET v = s.v WHEN NOT MATCHED THEN INSERT VALUES"
                + " (s.k, s.v, 'w')",
            List.of()),
        Arguments.of(
            "MERGE INTO t USING u ON false WHEN NOT MATCHED THEN INSERT VALUES (u.k, 0, 'n', 'n');"
                + " -- all",
            List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("writes")
  void bothFormsWriteAsDuckDbDoes(String sql, List<String> params) throws SQLException {
    String literal = literal(sql, params);
    for (boolean prepared : new boolean[] {false, true}) {
      try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:");
          Connection plain = DriverManager.getConnection("jdbc:duckdb:")) {
        setUp(ivm);
        setUp(plain);
        createViews(ivm);
        long expected = update(plain, literal);
        long count;
        if (prepared) {
          try (PreparedStatement statement = ivm.prepareStatement(sql)) {
            for (int i = 0; i < params.size(); i++) {
              bind(statement, i + 1, params.get(i));
            }
            count = statement.executeUpdate();
          }
        } else {
          count = update(ivm, literal);
        }
        String form = prepared ? "prepared" : "direct";
        assertThat(count).as(form + " update count").isEqualTo(expected);
        assertTablesAndViewsMatch(ivm, plain, form);
      }
    }
  }

  static Stream<Arguments> returningWrites() {
    return Stream.of(
        Arguments.of("INSERT INTO t VALUES (?, 1, 'c', 'n') RETURNING *", List.of("5")),
        Arguments.of(
            "INSERT INTO t (k, v) SELECT k, v FROM t WHERE k < ? RETURNING k * 10 AS k10, note, t.s",
            List.of("3")),
        Arguments.of(
            "INSERT OR IGNORE INTO p VALUES (?, 1, 'new'), (5, 2, 'five'), (5, 3, 'again')"
                + " RETURNING k, s",
            List.of("1")),
        Arguments.of(
            "INSERT INTO p AS x (k) VALUES (?), (1) ON CONFLICT DO NOTHING RETURNING x.k, x.s",
            List.of("7")),
        Arguments.of(
            "INSERT INTO t VALUES (?, 1, 'c', 'n') RETURNING k; -- trailing", List.of("8")),
        Arguments.of("UPDATE t SET v = v + ? WHERE k % 2 = 0 RETURNING k, v, t.note", List.of("1")),
        Arguments.of(
            "UPDATE t AS x SET s = u.name, v = ? FROM u WHERE x.k = u.k AND u.w > 0"
                + " RETURNING x.k, x.s, v",
            List.of("7")),
        Arguments.of(
            "UPDATE p SET k = k + ?, v = v + 1 WHERE k = 1 RETURNING k, s", List.of("100")),
        Arguments.of("DELETE FROM t WHERE v IS NULL OR k = ? RETURNING *", List.of("1")),
        Arguments.of(
            "DELETE FROM t AS x USING u WHERE x.k = u.k AND u.w > ? RETURNING x.k, x.v;",
            List.of("0")),
        Arguments.of(
            "INSERT INTO p VALUES (2, ?, 'u'), (8, 80, 'n') ON CONFLICT (k) DO UPDATE"
                + " SET v = excluded.v RETURNING k, v",
            List.of("21")),
        Arguments.of(
            "INSERT OR REPLACE INTO p AS x VALUES (?, 11, 'r') RETURNING x.k, x.s", List.of("1")),
        Arguments.of(
            "MERGE INTO p USING (VALUES (2, 0), (9, 90)) AS s(k, v) ON p.k = s.k"
                + " WHEN MATCHED THEN UPDATE SET v = s.v"
                + " WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v) RETURNING merge_action, *",
            List.of()));
  }

  /**
   * A write with RETURNING (INSERT, UPDATE, DELETE, upserts, MERGE) returns the rows DuckDB
   * returns, in both forms, and is captured.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("returningWrites")
  void returningWritesReturnWhatDuckDbReturns(String sql, List<String> params) throws SQLException {
    String literal = literal(sql, params);
    for (boolean prepared : new boolean[] {false, true}) {
      try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:");
          Connection plain = DriverManager.getConnection("jdbc:duckdb:")) {
        setUp(ivm);
        setUp(plain);
        createViews(ivm);
        List<String> expected = TestRows.of(plain, literal);
        List<String> returned;
        if (prepared) {
          try (PreparedStatement statement = ivm.prepareStatement(sql)) {
            for (int i = 0; i < params.size(); i++) {
              bind(statement, i + 1, params.get(i));
            }
            // described before it runs, as a server describes a statement it prepares
            try (PreparedStatement described = plain.prepareStatement(literal)) {
              assertThat(statement.getMetaData().getColumnCount())
                  .isEqualTo(described.getMetaData().getColumnCount());
              assertThat(statement.getMetaData().getColumnLabel(1))
                  .isEqualTo(described.getMetaData().getColumnLabel(1));
            }
            assertThat(statement.execute()).isTrue();
            assertThat(statement.getUpdateCount()).isEqualTo(-1);
            returned = TestRows.of(statement.getResultSet());
          }
        } else {
          returned = TestRows.of(ivm, literal);
        }
        String form = prepared ? "prepared" : "direct";
        assertThat(returned).as(form + " returned rows").isEqualTo(expected);
        assertTablesAndViewsMatch(ivm, plain, form);
      }
    }
  }

  @Test
  void batchesDeleteARowOnce() throws SQLException {
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:")) {
      setUp(ivm);
      createViews(ivm);
      try (PreparedStatement delete = ivm.prepareStatement("DELETE FROM t WHERE k = ?")) {
        for (int k : new int[] {1, 1, 4}) {
          delete.setInt(1, k);
          delete.addBatch();
        }
        delete.executeBatch();
      }
      assertThat(TestRows.of(ivm, "SELECT k FROM t WHERE k IN (1, 4)")).isEmpty();
      assertViewsMatch(ivm, "batch");
    }
  }

  /**
   * A prepared upsert's batch is applied as one upsert: rows with distinct keys apply, and a key
   * proposed twice fails the batch (one upsert would keep the first row, the batch means the last)
   * and changes nothing.
   */
  @Test
  void upsertBatchesApplyAsOneStatement() throws SQLException {
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:")) {
      setUp(ivm);
      createViews(ivm);
      try (PreparedStatement upsert =
          ivm.prepareStatement(
              "INSERT INTO p VALUES (?, ?, 'b') ON CONFLICT (k) DO UPDATE SET v = excluded.v")) {
        for (int[] row : new int[][] {{1, 100}, {5, 500}}) {
          upsert.setInt(1, row[0]);
          upsert.setInt(2, row[1]);
          upsert.addBatch();
        }
        assertThat(upsert.executeBatch())
            .containsExactly(Statement.SUCCESS_NO_INFO, Statement.SUCCESS_NO_INFO);
        List<String> before = TestRows.of(ivm, "SELECT * FROM p ORDER BY k");
        assertThat(before).contains("1|100|a|", "5|500|b|");
        for (int v : new int[] {1, 2}) {
          upsert.setInt(1, 2);
          upsert.setInt(2, v);
          upsert.addBatch();
        }
        SQLException twice = catchThrowableOfType(SQLException.class, upsert::executeBatch);
        assertThat(twice.getMessage()).contains("proposes the key (k) = (2) more than once");
        assertThat(TestRows.of(ivm, "SELECT * FROM p ORDER BY k")).isEqualTo(before);
      }
      assertViewsMatch(ivm, "upsert batches");
    }
  }

  /**
   * An upsert or MERGE claims the existing rows it may update: one that changes a row a concurrent
   * open transaction changed fails with a conflict (whose transaction then commits), and runs once
   * that transaction has ended.
   */
  @Test
  void upsertsAndMergesConflictWithConcurrentWritesOfTheirRows(@TempDir Path dir)
      throws SQLException {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("upsert-conflict.duckdb");
    try (Connection a = DriverManager.getConnection(url);
        Connection b = DriverManager.getConnection(url)) {
      setUp(a);
      createViews(a);
      for (String upsert :
          List.of(
              "INSERT OR REPLACE INTO p VALUES (2, 7, 'r'), (12, 1, 'new')",
              "INSERT INTO p VALUES (2, 8, 'u') ON CONFLICT (k) DO UPDATE SET v = p.v + 1",
              "MERGE INTO p USING (SELECT 2 AS k) AS s ON p.k = s.k"
                  + " WHEN MATCHED THEN UPDATE SET v = p.v + 1")) {
        a.setAutoCommit(false);
        execute(a, "UPDATE p SET s = 'a' WHERE k = 2");
        SQLException conflict = catchThrowableOfType(SQLException.class, () -> update(b, upsert));
        assertThat(conflict.getSQLState()).as(upsert).isEqualTo("40001");
        a.commit();
        a.setAutoCommit(true);
        assertThat(update(b, upsert)).as(upsert).isEqualTo(upsert.contains("12") ? 2 : 1);
      }
      assertViewsMatch(a, "after upsert conflicts");
    }
  }

  /** Upserts whose change cannot be paired by key are refused, and change nothing. */
  @Test
  void upsertsThatCannotBeCapturedAreRefused() throws SQLException {
    try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:")) {
      setUp(ivm);
      createViews(ivm);
      List<String> p = TestRows.of(ivm, "SELECT * FROM p ORDER BY k");
      List<String> t = TestRows.of(ivm, "SELECT * FROM t ORDER BY ALL");
      assertThatThrownBy(() -> execute(ivm, "INSERT OR REPLACE INTO p (k, v) VALUES (1, 2)"))
          .hasMessageContaining("it names the columns it replaces");
      assertThatThrownBy(
              () ->
                  execute(
                      ivm,
                      "INSERT INTO p BY NAME SELECT 1 AS k ON CONFLICT DO" + " UPDATE SET v = 0"))
          .hasMessageContaining("it inserts BY NAME");
      assertThatThrownBy(
              () ->
                  execute(
                      ivm, "INSERT INTO p VALUES (1, 2, 'x') ON CONFLICT (k) DO UPDATE SET K = 5"))
          .hasMessageContaining("it sets K, a column of its conflict target");
      assertThatThrownBy(
              () ->
                  execute(
                      ivm, "INSERT INTO t VALUES (1, 2, 'x', 'y') ON CONFLICT DO UPDATE SET v = 0"))
          .hasMessageContaining("has no conflict target and the table no PRIMARY KEY");
      assertThat(TestRows.of(ivm, "SELECT * FROM p ORDER BY k")).isEqualTo(p);
      assertThat(TestRows.of(ivm, "SELECT * FROM t ORDER BY ALL")).isEqualTo(t);
    }
  }

  /** A conflict stages nothing in the user's statement, so it keeps working afterwards. */
  @Test
  void preparedWriteSurvivesAConflict(@TempDir Path dir) throws SQLException {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("conflict.duckdb");
    try (Connection a = DriverManager.getConnection(url);
        Connection b = DriverManager.getConnection(url)) {
      setUp(a);
      createViews(a);
      for (String sql :
          List.of("UPDATE t SET v = ? + 1 WHERE k = 4", "DELETE FROM t WHERE k = 4 AND v > ?")) {
        try (PreparedStatement write = b.prepareStatement(sql)) {
          write.setInt(1, 0);
          a.setAutoCommit(false);
          execute(a, "UPDATE t SET v = 42 WHERE k = 4");
          SQLException conflict = catchThrowableOfType(SQLException.class, write::executeUpdate);
          assertThat(conflict.getSQLState()).as(sql).isEqualTo("40001");
          a.commit();
          a.setAutoCommit(true);
          assertThat(write.executeUpdate()).as(sql).isEqualTo(1);
        }
      }
      assertViewsMatch(a, "after conflicts");
    }
  }

  /** A rollback drops the stage table created in its transaction; the next write makes it again. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("writes")
  void writesAfterARollbackCaptureAsBefore(String sql, List<String> params) throws SQLException {
    for (boolean prepared : new boolean[] {false, true}) {
      try (Connection ivm = DriverManager.getConnection("jdbc:ivm:duckdb:")) {
        setUp(ivm);
        createViews(ivm);
        ivm.setAutoCommit(false);
        try (PreparedStatement statement = prepared ? ivm.prepareStatement(sql) : null) {
          for (int attempt = 0; attempt < 2; attempt++) {
            if (prepared) {
              for (int i = 0; i < params.size(); i++) {
                bind(statement, i + 1, params.get(i));
              }
              statement.executeUpdate();
            } else {
              execute(ivm, literal(sql, params));
            }
            if (attempt == 0) {
              ivm.rollback();
            }
          }
        }
        ivm.commit();
        ivm.setAutoCommit(true);
        assertViewsMatch(ivm, (prepared ? "prepared" : "direct") + ", after a rollback");
      }
    }
  }

  /** A direct write claims its rowids' runs, or one range when it changes many rows. */
  @Test
  void directWritesClaimTheirRows(@TempDir Path dir) throws SQLException {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("claims.duckdb");
    try (Connection a = DriverManager.getConnection(url);
        Connection b = DriverManager.getConnection(url)) {
      execute(a, "CREATE TABLE big AS SELECT range::INTEGER AS k, 0 AS v FROM range(6000)");
      execute(a, "CREATE MATERIALIZED VIEW bv AS SELECT k, v FROM big");
      a.setAutoCommit(false);
      execute(a, "UPDATE big SET v = 1 WHERE k = 3000");
      // a few rows: their runs, which miss row 3000
      assertThat(update(b, "DELETE FROM big WHERE k IN (10, 11, 20)")).isEqualTo(3);
      // many rows: their first to last, which holds row 3000
      SQLException conflict =
          catchThrowableOfType(
              SQLException.class, () -> update(b, "UPDATE big SET v = 2 WHERE k > 100"));
      assertThat(conflict.getSQLState()).isEqualTo("40001");
      a.commit();
      a.setAutoCommit(true);
      assertThat(update(b, "UPDATE big SET v = 2 WHERE k > 100")).isEqualTo(5899);
      execute(b, "REFRESH MATERIALIZED VIEW bv");
      assertThat(TestRows.of(b, "SELECT * FROM bv EXCEPT ALL SELECT k, v FROM big")).isEmpty();
      assertThat(TestRows.of(b, "SELECT k, v FROM big EXCEPT ALL SELECT * FROM bv")).isEmpty();
    }
  }

  private static void setUp(Connection c) throws SQLException {
    execute(c, "CREATE TABLE t (k INTEGER, v INTEGER, s VARCHAR, note VARCHAR DEFAULT 'd')");
    execute(c, DATA);
    execute(c, "CREATE TABLE u (k INTEGER, w INTEGER, name VARCHAR)");
    execute(c, "INSERT INTO u VALUES (1, 1, 'one'), (1, 2, 'uno'), (3, 3, 'three'), (4, 0, 'no')");
    execute(c, "CREATE TABLE p (k INTEGER PRIMARY KEY, v INTEGER, s VARCHAR DEFAULT 'd')");
    execute(c, "INSERT INTO p VALUES (1, 10, 'a'), (2, 20, 'b'), (3, NULL, 'a')");
  }

  private static void createViews(Connection ivm) throws SQLException {
    for (int i = 0; i < VIEWS.size(); i++) {
      execute(ivm, "CREATE MATERIALIZED VIEW v" + i + " AS " + VIEWS.get(i));
    }
  }

  /** The tables of {@code ivm} equal those of {@code plain}, and its views their queries. */
  private static void assertTablesAndViewsMatch(Connection ivm, Connection plain, String form)
      throws SQLException {
    for (String table : List.of("t", "p")) {
      assertThat(TestRows.of(ivm, "SELECT * FROM " + table))
          .as(form + ", " + table)
          .isEqualTo(TestRows.of(plain, "SELECT * FROM " + table));
    }
    assertViewsMatch(ivm, form);
  }

  private static void assertViewsMatch(Connection ivm, String where) throws SQLException {
    for (int i = 0; i < VIEWS.size(); i++) {
      execute(ivm, "REFRESH MATERIALIZED VIEW v" + i);
      String query = "(" + VIEWS.get(i) + ")";
      String view = "(SELECT * FROM v" + i + ")";
      assertThat(TestRows.of(ivm, query + " EXCEPT ALL " + view)).as(where + ": v" + i).isEmpty();
      assertThat(TestRows.of(ivm, view + " EXCEPT ALL " + query)).as(where + ": v" + i).isEmpty();
    }
  }

  /** {@code sql} with its parameter markers replaced by {@code params}, SQL literals. */
  private static String literal(String sql, List<String> params) {
    String literal = sql;
    for (String param : params) {
      literal = literal.replaceFirst("\\?", param);
    }
    return literal;
  }

  private static void bind(PreparedStatement statement, int index, String literal)
      throws SQLException {
    if (literal.equals("NULL")) {
      statement.setObject(index, null);
    } else if (literal.startsWith("'")) {
      statement.setString(index, literal.substring(1, literal.length() - 1));
    } else {
      statement.setInt(index, Integer.parseInt(literal));
    }
  }

  private static void execute(Connection c, String sql) throws SQLException {
    try (Statement statement = c.createStatement()) {
      statement.execute(sql);
    }
  }

  private static long update(Connection c, String sql) throws SQLException {
    try (Statement statement = c.createStatement()) {
      statement.execute(sql);
      return statement.getLargeUpdateCount();
    }
  }
}
