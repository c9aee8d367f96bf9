package org.calciteivm.jdbc.refresh;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.jdbc.IvmDatabase;
import org.calciteivm.jdbc.catalog.StoredPrograms;
import org.calciteivm.jdbc.catalog.StoredPrograms.Variant;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The delta programs of one view: those stored in the catalog ({@link StoredPrograms}), and for a
 * variant that is not, compiled with Calcite on first use and stored for the next process. A new
 * process therefore refreshes a view without planning it as long as its programs are stored; the
 * view is planned (once) only when a refresh needs a variant no process compiled yet.
 *
 * <p>Compiling plans with Calcite, whose plan objects are not shared between threads, so one view
 * compiles one variant at a time.
 */
public final class StoredDeltas {
  private final IvmDatabase database;
  private final ViewEntry view;
  private final Map<Variant, RefreshProgram.Delta> programs;
  private ViewCompiler.@Nullable DeltaCompiler planned;

  /**
   * The programs {@code stored} for {@code view}; {@code planned}, if not null, compiles others
   * (else the view is planned when one is needed).
   */
  StoredDeltas(
      IvmDatabase database,
      ViewEntry view,
      Map<Variant, RefreshProgram.Delta> stored,
      ViewCompiler.@Nullable DeltaCompiler planned) {
    this.database = database;
    this.view = view;
    this.programs = new HashMap<>(stored);
    this.planned = planned;
  }

  /**
   * The program that applies {@code pending}, joins expanded by {@code joins} ({@code
   * INCLUSION_EXCLUSION} or {@code TELESCOPING}): the stored one, or compiled now and stored.
   */
  public synchronized RefreshProgram.Delta compile(
      RefreshProgram.PendingChange pending, JoinStrategy joins) throws SQLException {
    Variant variant = Variant.of(pending, joins);
    RefreshProgram.Delta delta = programs.get(variant);
    if (delta != null) {
      return delta;
    }
    // the driver's own connection: compiling must not depend on the caller's transaction, and
    // the stored program is worth keeping even if that transaction rolls back
    try (Connection connection = database.newConnection()) {
      delta = planned(connection).compile(pending, joins);
      try {
        StoredPrograms.store(connection, view.id(), variant, delta);
      } catch (SQLException e) {
        // only a cache: the next process compiles the variant again
      }
    }
    programs.put(variant, delta);
    return delta;
  }

  /** Whether the program of {@code pending} expanded by {@code joins} is at hand. */
  public synchronized boolean isCompiled(RefreshProgram.PendingChange pending, JoinStrategy joins) {
    return programs.containsKey(Variant.of(pending, joins));
  }

  /**
   * Compiles {@code variants} now, if not done yet, and stores them through {@code connection} (in
   * its transaction: CREATE MATERIALIZED VIEW, whose view exists only if it commits).
   */
  synchronized void precompile(Connection connection, List<Variant> variants) throws SQLException {
    for (Variant variant : variants) {
      if (!programs.containsKey(variant)) {
        RefreshProgram.Delta delta =
            planned(connection).compile(variant.pending(), variant.joins());
        StoredPrograms.store(connection, view.id(), variant, delta);
        programs.put(variant, delta);
      }
    }
  }

  private ViewCompiler.DeltaCompiler planned(Connection connection) throws SQLException {
    if (planned == null) {
      List<TrackedTable> tracked = database.catalog().trackedTables();
      planned = ViewCompiler.plan(connection, view, tracked).deltaCompiler(view, tracked);
    }
    return planned;
  }
}
