package org.calciteivm.cli.bench;

import static org.calciteivm.cli.bench.TpchStaging.STAGE;

import java.io.IOException;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.calciteivm.cli.bench.TpchSchema.Table;
import org.duckdb.DuckDBConnection;
import org.duckdb.DuckDBPreparedStatement;
import org.duckdb.QueryProgress;

/**
 * The second step of a generation: each staged table ({@link TpchStaging}) copied in key order into
 * its table with its constraints by one {@code INSERT ... SELECT}, its holdout table loaded with
 * the rank ({@link Holdout}), and the staged copies dropped, so that memory holds at most one
 * staged table. Long statements report DuckDB's progress of them.
 */
final class TpchLoading {
  private final DuckDBConnection connection;
  private final ExecutorService executor;
  private final TpchData.ProgressListener progress;

  /**
   * Creates the loading of one generation.
   *
   * @param connection the database being generated, with {@value TpchStaging#STAGE} attached
   * @param executor runs the statements whose progress is reported, so that this thread can poll it
   */
  TpchLoading(
      DuckDBConnection connection, ExecutorService executor, TpchData.ProgressListener progress) {
    this.connection = connection;
    this.executor = executor;
    this.progress = progress;
  }

  /** Copies a staged table in key order into its constrained table, and drops the stage. */
  void load(Table table) throws SQLException, IOException {
    String name = table.name();
    String columns = TpchSchema.columnDefinitions(table.source());
    try (Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE " + name + " (" + columns + ", " + table.constraints() + ")");
      execute(
          "INSERT INTO "
              + name
              + " SELECT * FROM "
              + STAGE
              + "."
              + name
              + " ORDER BY "
              + table.sortKey(),
          "load " + name);
      statement.execute("DROP TABLE " + STAGE + "." + name);
      if (table.split()) {
        String holdout = Holdout.tableOf(table);
        String staged = STAGE + "." + holdout;
        statement.execute("CREATE TABLE " + holdout + " (" + Holdout.loadedColumns(table) + ")");
        statement.execute("INSERT INTO " + holdout + " " + Holdout.selectStaged(table, staged));
        statement.execute("DROP TABLE " + staged);
      }
    }
  }

  /** Executes a statement, reporting DuckDB's progress of it as a percentage. */
  void execute(String sql, String phase) throws SQLException, IOException {
    progress.progress(phase, 0, 100);
    try (DuckDBPreparedStatement statement =
        connection.prepareStatement(sql).unwrap(DuckDBPreparedStatement.class)) {
      Future<Boolean> future = executor.submit((Callable<Boolean>) statement::execute);
      try {
        TaskPolling.await(
            future,
            () -> {
              QueryProgress now = statement.getQueryProgress();
              if (now.getPercentage() >= 0) {
                progress.progress(phase, Math.round(now.getPercentage()), 100);
              }
            });
      } catch (IOException | SQLException | RuntimeException | Error e) {
        // Interrupted or the listener failed: stop the statement before closing it.
        statement.cancel();
        TaskPolling.awaitQuietly(future);
        throw e;
      }
    }
    progress.progress(phase, 100, 100);
  }
}
