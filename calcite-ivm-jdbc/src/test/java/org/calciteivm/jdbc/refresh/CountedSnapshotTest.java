package org.calciteivm.jdbc.refresh;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.calciteivm.jdbc.TestRows;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A refresh that counts its change from the driver's ledger lets its merge's statement take its
 * snapshot. A write that commits after the count and before that statement is seen by the snapshot
 * but not counted: the refresh must notice and run again. Here another connection commits a delete
 * and an update in exactly that window; an insert-only plan would keep the deleted rows.
 */
class CountedSnapshotTest {
  @TempDir Path dir;

  @AfterEach
  void noMoreWrites() {
    RefreshExecutor.afterCounting = () -> {};
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(
      strings = {
        "SELECT k, v FROM t WHERE v > 0",
        "SELECT k, MIN(v) AS lo, MAX(v) AS hi FROM t GROUP BY k",
        "SELECT k, SUM(v) AS s, COUNT(*) AS n FROM t GROUP BY k"
      })
  void aWriteCommittedBetweenCountAndSnapshotIsConsumed(String query) throws SQLException {
    String url = "jdbc:ivm:duckdb:" + dir.resolve("window.duckdb");
    try (Connection connection = DriverManager.getConnection(url);
        Connection writer = DriverManager.getConnection(url);
        Statement s = connection.createStatement();
        Statement w = writer.createStatement()) {
      // the plans that count on the change's signs, not the recompute auto takes for tiny tables
      s.execute("SET ivm_refresh_mode = 'incremental'");
      s.execute("CREATE TABLE t (k INTEGER, v INTEGER)");
      s.execute("INSERT INTO t VALUES (1, 1), (1, 9), (2, 5)");
      s.execute("CREATE MATERIALIZED VIEW m AS " + query);
      s.execute("INSERT INTO t VALUES (3, 3)");
      s.execute("REFRESH MATERIALIZED VIEW m"); // the next refresh counts from here
      s.execute("INSERT INTO t VALUES (4, 4), (1, 12)");
      AtomicInteger calls = new AtomicInteger();
      RefreshExecutor.afterCounting =
          () -> {
            if (calls.incrementAndGet() == 1) {
              try {
                w.execute("DELETE FROM t WHERE v = 9");
                w.execute("UPDATE t SET v = v + 100 WHERE k = 2");
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            }
          };
      s.execute("REFRESH MATERIALIZED VIEW m");
      assertThat(TestRows.of(connection, "SELECT * FROM m EXCEPT ALL (" + query + ")")).isEmpty();
      assertThat(TestRows.of(connection, "(" + query + ") EXCEPT ALL SELECT * FROM m")).isEmpty();
      // the first attempt saw the write it had not counted, and ran again
      assertThat(calls.get()).as("attempts that counted").isEqualTo(2);
    }
  }
}
