package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableSet;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.IvmSettings;
import org.calciteivm.core.RefreshProgram;
import org.calciteivm.core.ZSets;
import org.calciteivm.jdbc.IvmConnection;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.calciteivm.jdbc.catalog.IvmCatalog;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Runs one refresh of a view from its compiled {@link RefreshProgram}, in one transaction: seal the
 * base tables' captured changes, consolidate each table's pending change, choose the merge
 * strategy, merge, move the view's watermarks and drop delta rows no view needs any more.
 */
public final class RefreshExecutor {
  private RefreshExecutor() {}

  /**
   * What a refresh did.
   *
   * @param pendingRows the consolidated change rows it applied, over all base tables
   * @param choice how it applied them, or null if there was nothing to apply
   */
  public record Outcome(long pendingRows, RefreshProgram.@Nullable Choice choice) {}

  /**
   * Refreshes {@code view}. A view with no pending change returns at once, without a transaction,
   * after one cheap query per base table.
   */
  public static Outcome refresh(IvmConnection connection, ViewEntry view, RefreshProgram program)
      throws SQLException {
    CatalogSnapshot catalog = connection.database().catalog();
    Connection duckDb = connection.duckDb();
    if (pendingInputs(duckDb, catalog, view).isEmpty()) {
      return new Outcome(0, null);
    }
    return connection
        .database()
        .refreshing(() -> refreshRetryingConflicts(connection, view, program));
  }

  /**
   * Refreshes, starting over when the transaction conflicts with another one that sealed the same
   * change log (possible when a refresh inside a user's transaction commits later).
   */
  private static Outcome refreshRetryingConflicts(
      IvmConnection connection, ViewEntry view, RefreshProgram program) throws SQLException {
    for (int attempt = 1; ; attempt++) {
      try {
        return refreshOnce(connection, view, program);
      } catch (SQLException e) {
        if (connection.inTransaction() || attempt == MAX_ATTEMPTS || !isConflict(e)) {
          throw e;
        }
        try {
          Thread.sleep(attempt * 10L);
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
          throw e;
        }
      }
    }
  }

  private static final int MAX_ATTEMPTS = 5;

  private static boolean isConflict(SQLException e) {
    return String.valueOf(e.getMessage()).contains("Conflict");
  }

  private static Outcome refreshOnce(
      IvmConnection connection, ViewEntry view, RefreshProgram program) throws SQLException {
    CatalogSnapshot catalog = connection.database().catalog();
    Connection duckDb = connection.duckDb();
    IvmSettings settings = connection.settings();
    return connection.atomically(
        () -> {
          long rows = 0;
          ImmutableSet.Builder<Integer> changed = ImmutableSet.builder();
          ImmutableSet.Builder<Integer> insertOnly = ImmutableSet.builder();
          try (Statement statement = duckDb.createStatement()) {
            for (RefreshProgram.Input input : program.inputs()) {
              TrackedTable table = catalog.trackedTable(input.tableId());
              long sealed = IvmCatalog.seal(duckDb, table);
              long watermark = IvmCatalog.watermark(duckDb, view.id(), table.id());
              try (PreparedStatement materialize =
                  duckDb.prepareStatement(input.materializeSql())) {
                materialize.setLong(1, watermark);
                materialize.setLong(2, sealed);
                materialize.execute();
                long inputRows = materialize.getLargeUpdateCount();
                rows += inputRows;
                if (inputRows > 0) {
                  changed.add(input.tableId());
                  if (minimumWeight(statement, input.pendingTable()) > 0) {
                    insertOnly.add(input.tableId());
                  }
                }
              }
              IvmCatalog.advance(duckDb, view.id(), table.id(), sealed);
            }
            RefreshProgram.Choice choice = null;
            if (rows > 0) {
              choice =
                  program.choose(
                      new RefreshProgram.PendingChange(changed.build(), insertOnly.build()),
                      settings);
              for (String sql : choice.delta().statementsFor(choice.merge())) {
                statement.execute(sql);
              }
            }
            for (RefreshProgram.Input input : program.inputs()) {
              IvmCatalog.collectGarbage(duckDb, catalog.trackedTable(input.tableId()));
              statement.execute("DROP TABLE IF EXISTS " + input.pendingTable());
            }
            return new Outcome(rows, choice);
          }
        });
  }

  private static long minimumWeight(Statement statement, String pendingTable) throws SQLException {
    try (ResultSet rs =
        statement.executeQuery(
            "SELECT min(" + IvmNames.quote(ZSets.WEIGHT_COLUMN) + ") FROM " + pendingTable)) {
      rs.next();
      return rs.getLong(1);
    }
  }

  /**
   * The base tables of {@code view} with captured rows the view has not consumed (their changes may
   * still cancel out when consolidated).
   */
  public static ImmutableSet<Integer> pendingInputs(
      Connection duckDb, CatalogSnapshot catalog, ViewEntry view) throws SQLException {
    String epoch = IvmNames.quote(IvmNames.EPOCH_COLUMN);
    // one statement for all base tables: on a refresh with nothing to do, this is all it costs
    List<String> probes = new ArrayList<>();
    for (int tableId : view.inputTableIds()) {
      probes.add(
          "SELECT "
              + tableId
              + " WHERE EXISTS (SELECT 1 FROM "
              + catalog.trackedTable(tableId).deltaTable()
              + " WHERE "
              + epoch
              + " IS NULL OR "
              + epoch
              + " > (SELECT watermark FROM "
              + IvmNames.qualified(IvmNames.SCHEMA, "view_inputs")
              + " WHERE view_id = "
              + view.id()
              + " AND table_id = "
              + tableId
              + "))");
    }
    ImmutableSet.Builder<Integer> pending = ImmutableSet.builder();
    try (Statement statement = duckDb.createStatement();
        ResultSet rs = statement.executeQuery(String.join(" UNION ALL ", probes))) {
      while (rs.next()) {
        pending.add(rs.getInt(1));
      }
    }
    return pending.build();
  }
}
