package org.calciteivm.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.calciteivm.server.IvmServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Stopping the server (what its shutdown hook does on SIGTERM or Ctrl-C) while clients write: a
 * statement in flight finishes and is kept with its capture, a transaction a client left open is
 * rolled back with its capture, and the database file closes. Afterwards the file is opened
 * embedded: the base table holds exactly the committed rows and every view, refreshed, equals its
 * query.
 */
class ServerShutdownTest {
  private static final String VIEW =
      "SELECT grp, count(*) AS n, sum(val) AS total FROM t GROUP BY grp";
  private static final long BIG_INSERT = 3_000_000;

  @TempDir Path dir;

  @Test
  void aWriteInFlightFinishesAndAnOpenTransactionRollsBack() throws Exception {
    Path file = dir.resolve("shutdown.duckdb");
    IvmServer server = RemoteServer.start(file);
    Connection writer = RemoteServer.connect(server);
    Connection open = RemoteServer.connect(server);
    try (Statement s = writer.createStatement()) {
      s.execute("CREATE TABLE t (id BIGINT, grp INTEGER, val INTEGER)");
      s.execute("INSERT INTO t SELECT i, i % 7, i % 100 FROM range(1000) r(i)");
      s.execute("CREATE MATERIALIZED VIEW v AS " + VIEW);
    }
    open.setAutoCommit(false);
    try (Statement s = open.createStatement()) {
      s.execute("INSERT INTO t VALUES (-1, 1, 1), (-2, 2, 2)");
      s.execute("DELETE FROM t WHERE id < 10");
    }

    // Not closed: once the server has stopped, closing a statement fails (nothing to close).
    Statement big = writer.createStatement();
    CompletableFuture<Integer> write =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return big.executeUpdate(
                    "INSERT INTO t SELECT 1000 + i, i % 7, i % 100 FROM range("
                        + BIG_INSERT
                        + ") r(i)");
              } catch (SQLException e) {
                throw new IllegalStateException(e);
              }
            });
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
    while (server.activeRequests() == 0 && System.nanoTime() < deadline) {
      Thread.sleep(5);
    }
    assertThat(server.activeRequests()).as("requests in flight when the stop begins").isPositive();
    server.close();

    assertThat(write.get(60, TimeUnit.SECONDS))
        .as("the in-flight statement completed and its client got the answer")
        .isEqualTo((int) BIG_INSERT);
    assertThat(server.openConnections()).isZero();
    assertThatThrownBy(() -> RemoteServer.connect(server).createStatement().execute("SELECT 1"))
        .as("a stopped server accepts nothing")
        .isInstanceOf(Exception.class);

    String url = "jdbc:ivm:duckdb:" + file;
    try (Connection c = DriverManager.getConnection(url);
        Statement s = c.createStatement()) {
      assertThat(ViewCheck.rows(c, "SELECT count(*), min(id) FROM t"))
          .as("the big insert is kept, the open transaction is not")
          .isEqualTo(List.of((1000 + BIG_INSERT) + "\t0"));
      s.execute("REFRESH MATERIALIZED VIEW v");
      ViewCheck.assertMatches(c, "v", VIEW, "after the shutdown");
    }
  }
}
