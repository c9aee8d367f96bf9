package org.calciteivm.cli.bench;

import io.trino.tpch.TpchColumn;
import io.trino.tpch.TpchEntity;
import io.trino.tpch.TpchTable;
import java.io.IOException;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.calciteivm.cli.bench.TpchSchema.Table;
import org.duckdb.DuckDBAppender;
import org.duckdb.DuckDBConnection;

/**
 * The first step of a generation: dbgen's rows of a table appended, by one generator thread per
 * processor, to an unconstrained table of the in-memory database {@value #STAGE}, and the held-out
 * rows of orders and lineitem to their holdout tables there ({@link Holdout}).
 *
 * <p>The stage exists because appending to tables with primary and foreign keys is slow (DuckDB
 * checks and indexes each appended chunk: at SF 1 the load took twice as long); {@link TpchLoading}
 * then copies each staged table into its constrained one.
 */
final class TpchStaging {
  /** The in-memory database the generators append to, attached to the one being generated. */
  static final String STAGE = "tpch_stage";

  /** Rows a generator thread produces between two updates of the shared progress counter. */
  private static final int PROGRESS_BATCH = 10_000;

  private final DuckDBConnection connection;
  private final ExecutorService executor;
  private final int threads;
  private final double scaleFactor;
  private final double holdoutFraction;
  private final TpchData.ProgressListener progress;

  /** Set when a part of a table failed, to stop the others. */
  private volatile boolean stopped;

  /**
   * Creates the staging of one generation.
   *
   * @param connection the database being generated, with {@value #STAGE} attached
   * @param executor runs the generator threads, {@code threads} at once
   */
  TpchStaging(
      DuckDBConnection connection,
      ExecutorService executor,
      int threads,
      double scaleFactor,
      double holdoutFraction,
      TpchData.ProgressListener progress) {
    this.connection = connection;
    this.executor = executor;
    this.threads = threads;
    this.scaleFactor = scaleFactor;
    this.holdoutFraction = holdoutFraction;
    this.progress = progress;
  }

  /** Generates a table into the stage, and its held-out rows into the holdout's stage. */
  void stage(Table table) throws SQLException, IOException {
    String columns = TpchSchema.columnDefinitions(table.source());
    try (Statement statement = connection.createStatement()) {
      statement.execute("CREATE TABLE " + STAGE + "." + table.name() + " (" + columns + ")");
      if (table.split()) {
        statement.execute(
            "CREATE TABLE "
                + STAGE
                + "."
                + Holdout.tableOf(table)
                + " ("
                + Holdout.stagedColumns(table)
                + ")");
      }
    }
    long total = table.progressTotal(scaleFactor);
    // region and nation are constants: one generator (dbgen does not split them either).
    int parts = total < 1000 ? 1 : threads;
    AtomicLong done = new AtomicLong();
    String phase = "generate " + table.name();
    progress.progress(phase, 0, total);
    // Connections are duplicated here, not in the tasks: DuckDB's driver does not promise that
    // duplicating one connection from several threads at once is safe.
    List<DuckDBConnection> duplicates = new ArrayList<>();
    List<Future<?>> futures = new ArrayList<>();
    try {
      for (int part = 1; part <= parts; part++) {
        DuckDBConnection duplicate = connection.duplicate().unwrap(DuckDBConnection.class);
        duplicates.add(duplicate);
        int thisPart = part;
        futures.add(
            executor.submit(
                () -> {
                  stagePart(duplicate, table.source(), table, thisPart, parts, done);
                  return null;
                }));
      }
      for (Future<?> future : futures) {
        TaskPolling.await(future, () -> progress.progress(phase, done.get(), total));
      }
    } catch (IOException | SQLException | RuntimeException | Error e) {
      // Stop the other parts before their connections are closed.
      stopped = true;
      futures.forEach(TaskPolling::awaitQuietly);
      throw e;
    } finally {
      for (DuckDBConnection duplicate : duplicates) {
        duplicate.close();
      }
    }
    progress.progress(phase, total, total);
  }

  /**
   * Generates part {@code part} of {@code parts} of a table through its own connection; progress
   * counts distinct order keys for the split tables, so that lineitem's total is known.
   */
  private <E extends TpchEntity> void stagePart(
      DuckDBConnection duplicate,
      TpchTable<E> source,
      Table table,
      int part,
      int parts,
      AtomicLong done)
      throws SQLException {
    List<TpchColumn<E>> columns = source.getColumns();
    TpchColumn<E> orderKeyColumn = columns.get(0); // o_orderkey, l_orderkey
    boolean split = table.split();
    boolean ranked = Holdout.ranked(table);
    try (DuckDBAppender loaded = duplicate.createAppender(STAGE, "main", table.name());
        DuckDBAppender held =
            split ? duplicate.createAppender(STAGE, "main", Holdout.tableOf(table)) : null) {
      long units = 0;
      long previousKey = -1;
      for (E row : source.createGenerator(scaleFactor, part, parts)) {
        long orderKey = split ? orderKeyColumn.getIdentifier(row) : 0;
        DuckDBAppender target =
            split && Holdout.isHeldOut(orderKey, holdoutFraction) ? held : loaded;
        target.beginRow();
        appendColumns(target, columns, row);
        if (ranked && target == held) {
          target.append(Holdout.hash(orderKey));
        }
        target.endRow();
        if (!split || orderKey != previousKey) {
          previousKey = orderKey;
          if (++units == PROGRESS_BATCH) {
            done.addAndGet(units);
            units = 0;
            if (stopped) {
              return; // another part failed
            }
          }
        }
      }
      done.addAndGet(units);
    }
  }

  /** Appends one generated row's columns to the current row of {@code appender}. */
  private static <E extends TpchEntity> void appendColumns(
      DuckDBAppender appender, List<TpchColumn<E>> columns, E row) throws SQLException {
    for (TpchColumn<E> column : columns) {
      switch (column.getType().getBase()) {
        case IDENTIFIER -> appender.append(column.getIdentifier(row));
        case INTEGER -> appender.append(column.getInteger(row));
        case DATE -> appender.appendEpochDays(column.getDate(row));
        // dbgen computes in cents and divides by 100: rounding recovers the cents exactly.
        case DOUBLE -> appender.appendDecimal(Math.round(column.getDouble(row) * 100));
        case VARCHAR -> appender.append(column.getString(row));
      }
    }
  }
}
