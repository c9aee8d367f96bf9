package org.calciteivm.jdbc.catalog;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.jdbc.IvmBuild;
import org.calciteivm.jdbc.refresh.RefreshProgram;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Compiled refresh programs kept in the catalog table {@code _ivm.programs}, so that a process that
 * opens the database refreshes a view without planning it again: planning with Calcite costs
 * seconds in a new JVM and tens of milliseconds in a warm one, a refresh a few milliseconds.
 *
 * <p>One row per view, {@linkplain Variant variant} (the set of changed tables, those of them with
 * insert-only changes, the join expansion) and merge strategy, holding the statements of that merge
 * and what EXPLAIN shows of the variant. A program is valid as long as the view's query and the
 * columns of its base tables are unchanged, and only for the build of calcite-ivm that compiled it
 * ({@link IvmBuild#ID}, stored with every row): {@code ALTER TABLE} of a base table and {@code DROP
 * MATERIALIZED VIEW} delete the rows of the views concerned, and opening a database deletes the
 * rows of other builds.
 *
 * <p>Rows are only ever inserted or deleted, never updated, and have no key: two connections that
 * compile the same variant at once store two equal rows, which readers take as one, instead of
 * conflicting.
 */
public final class StoredPrograms {
  static final String TABLE = IvmNames.qualified(IvmNames.SCHEMA, "programs");

  private StoredPrograms() {}

  /**
   * For which pending change a delta program was compiled.
   *
   * @param changed the tables with a pending change
   * @param insertOnly those of them whose change has only inserts
   * @param deleteOnly those of them whose change has only deletes
   * @param joins the join expansion
   */
  public record Variant(
      ImmutableSet<Integer> changed,
      ImmutableSet<Integer> insertOnly,
      ImmutableSet<Integer> deleteOnly,
      JoinStrategy joins) {

    /** The variant of {@code pending} expanded by {@code joins}. */
    public static Variant of(RefreshProgram.PendingChange pending, JoinStrategy joins) {
      return new Variant(
          pending.changedTableIds(),
          pending.insertOnlyTableIds(),
          pending.deleteOnlyTableIds(),
          joins);
    }

    /** The pending change this variant was compiled for. */
    public RefreshProgram.PendingChange pending() {
      return new RefreshProgram.PendingChange(changed, insertOnly, deleteOnly);
    }
  }

  /** The columns of {@code programs} added after its first release, with their definitions. */
  static final List<String> ADDED_COLUMNS = List.of("delete_only INTEGER[]");

  static String createSql() {
    return "CREATE TABLE IF NOT EXISTS "
        + TABLE
        + " (view_id INTEGER NOT NULL, changed INTEGER[] NOT NULL,"
        + " insert_only INTEGER[] NOT NULL, joins VARCHAR NOT NULL, merge VARCHAR NOT NULL,"
        + " statements VARCHAR[] NOT NULL, terms VARCHAR[] NOT NULL, pruned VARCHAR[] NOT NULL,"
        + " delta_plan VARCHAR NOT NULL, negative_weights BOOLEAN NOT NULL,"
        + " build VARCHAR NOT NULL, "
        + String.join(", ", ADDED_COLUMNS)
        + ")";
  }

  /** The programs of view {@code viewId} that this build stored, per variant. */
  public static Map<Variant, RefreshProgram.Delta> load(Connection connection, int viewId)
      throws SQLException {
    Map<Variant, Map<MergeStrategy, ImmutableList<String>>> statements = new LinkedHashMap<>();
    Map<Variant, RefreshProgram.Delta> described = new HashMap<>();
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT changed, insert_only, joins, merge, statements, terms, pruned, delta_plan,"
                + " negative_weights, coalesce(delete_only, []::INTEGER[]) FROM "
                + TABLE
                + " WHERE view_id = ? AND build = ?")) {
      s.setInt(1, viewId);
      s.setString(2, IvmBuild.ID);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          Variant variant =
              new Variant(
                  ImmutableSet.copyOf(integers(rs.getArray(1))),
                  ImmutableSet.copyOf(integers(rs.getArray(2))),
                  ImmutableSet.copyOf(integers(rs.getArray(10))),
                  JoinStrategy.valueOf(rs.getString(3)));
          statements
              .computeIfAbsent(variant, v -> new LinkedHashMap<>())
              .put(MergeStrategy.valueOf(rs.getString(4)), strings(rs.getArray(5)));
          described.putIfAbsent(
              variant,
              new RefreshProgram.Delta(
                  variant.joins(),
                  strings(rs.getArray(6)),
                  strings(rs.getArray(7)),
                  rs.getString(8),
                  rs.getBoolean(9),
                  ImmutableMap.of()));
        }
      }
    }
    Map<Variant, RefreshProgram.Delta> programs = new HashMap<>();
    statements.forEach(
        (variant, merges) -> {
          RefreshProgram.Delta d = described.get(variant);
          programs.put(
              variant,
              new RefreshProgram.Delta(
                  d.joins(),
                  d.terms(),
                  d.pruned(),
                  d.deltaPlan(),
                  d.negativeWeightsPossible(),
                  ImmutableMap.copyOf(merges)));
        });
    return programs;
  }

  /** Stores the program {@code delta} of view {@code viewId} for {@code variant}. */
  public static void store(
      Connection connection, int viewId, Variant variant, RefreshProgram.Delta delta)
      throws SQLException {
    try (Statement s = connection.createStatement()) {
      for (Map.Entry<MergeStrategy, ImmutableList<String>> merge : delta.statements().entrySet()) {
        s.execute(
            "INSERT INTO "
                + TABLE
                + " (view_id, changed, insert_only, joins, merge, statements, terms, pruned,"
                + " delta_plan, negative_weights, build, delete_only) VALUES ("
                + String.join(
                    ", ",
                    String.valueOf(viewId),
                    integerList(variant.changed()),
                    integerList(variant.insertOnly()),
                    IvmNames.literal(variant.joins().name()),
                    IvmNames.literal(merge.getKey().name()),
                    stringList(merge.getValue()),
                    stringList(delta.terms()),
                    stringList(delta.pruned()),
                    IvmNames.literal(delta.deltaPlan()),
                    String.valueOf(delta.negativeWeightsPossible()),
                    IvmNames.literal(IvmBuild.ID),
                    integerList(variant.deleteOnly()))
                + ")");
      }
    }
  }

  /**
   * What a refresh of a view needs besides its delta programs: the hidden columns of its stored
   * table and the table read by each of its scans, in join order.
   *
   * @param scannedTableIds null for a view created by a version that did not store them
   * @param fullRefresh the statements that recompute the view; null for a view created by a version
   *     that did not store them
   */
  public record Shape(
      ImmutableList<String> hiddenColumns,
      @Nullable ImmutableList<Integer> scannedTableIds,
      @Nullable ImmutableList<String> fullRefresh) {

    /** Whether everything a refresh needs is recorded (else the view is planned). */
    public boolean complete() {
      return scannedTableIds != null && fullRefresh != null;
    }
  }

  /** The shape of view {@code viewId} as the catalog records it. */
  public static Shape shape(Connection connection, int viewId) throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement(
            "SELECT hidden_columns, scanned_table_ids, full_refresh_sql FROM "
                + IvmCatalog.VIEWS
                + " WHERE view_id = ?")) {
      s.setInt(1, viewId);
      try (ResultSet rs = s.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("calcite-ivm catalog has no view with id " + viewId);
        }
        Array scanned = rs.getArray(2);
        Array full = rs.getArray(3);
        return new Shape(
            strings(rs.getArray(1)),
            scanned == null ? null : ImmutableList.copyOf(integers(scanned)),
            full == null ? null : strings(full));
      }
    }
  }

  /**
   * Records what a refresh of view {@code viewId} needs besides its delta programs: which table
   * each of its scans reads, in join order, and the statements that recompute it.
   */
  public static void storeShape(
      Connection connection, int viewId, List<Integer> scannedTableIds, List<String> fullRefresh)
      throws SQLException {
    try (Statement s = connection.createStatement()) {
      s.execute(
          "UPDATE "
              + IvmCatalog.VIEWS
              + " SET scanned_table_ids = "
              + scannedTableIds.stream()
                  .map(String::valueOf)
                  .collect(Collectors.joining(", ", "[", "]::INTEGER[]"))
              + ", full_refresh_sql = "
              + stringList(fullRefresh)
              + " WHERE view_id = "
              + viewId);
    }
  }

  /** Deletes the programs of the views {@code viewIds}. */
  public static void forget(Connection connection, Collection<Integer> viewIds)
      throws SQLException {
    if (viewIds.isEmpty()) {
      return;
    }
    try (Statement s = connection.createStatement()) {
      s.execute(
          "DELETE FROM "
              + TABLE
              + " WHERE view_id IN ("
              + viewIds.stream().map(String::valueOf).collect(Collectors.joining(", "))
              + ")");
    }
  }

  /** Whether programs of another build than this one are stored. */
  static boolean hasOtherBuilds(Connection connection) throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement("SELECT count(*) FROM " + TABLE + " WHERE build <> ?")) {
      s.setString(1, IvmBuild.ID);
      try (ResultSet rs = s.executeQuery()) {
        rs.next();
        return rs.getLong(1) > 0;
      }
    }
  }

  /** Deletes the programs other builds stored. */
  static void forgetOtherBuilds(Connection connection) throws SQLException {
    try (PreparedStatement s =
        connection.prepareStatement("DELETE FROM " + TABLE + " WHERE build <> ?")) {
      s.setString(1, IvmBuild.ID);
      s.executeUpdate();
    }
  }

  private static List<Integer> integers(@Nullable Array array) throws SQLException {
    List<Integer> values = new ArrayList<>();
    if (array != null) {
      for (Object value : (Object[]) array.getArray()) {
        values.add(((Number) value).intValue());
      }
    }
    return values;
  }

  private static ImmutableList<String> strings(@Nullable Array array) throws SQLException {
    ImmutableList.Builder<String> values = ImmutableList.builder();
    if (array != null) {
      for (Object value : (Object[]) array.getArray()) {
        values.add((String) value);
      }
    }
    return values.build();
  }

  private static String integerList(Collection<Integer> values) {
    return values.stream()
        .sorted()
        .map(String::valueOf)
        .collect(Collectors.joining(", ", "[", "]::INTEGER[]"));
  }

  private static String stringList(List<String> values) {
    return values.stream()
        .map(IvmNames::literal)
        .collect(Collectors.joining(", ", "[", "]::VARCHAR[]"));
  }
}
