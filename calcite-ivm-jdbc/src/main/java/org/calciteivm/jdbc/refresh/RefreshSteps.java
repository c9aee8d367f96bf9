package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableList;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.calciteivm.jdbc.catalog.CatalogSnapshot;
import org.checkerframework.checker.nullness.qual.Nullable;

/** Runs a refresh's statements, prepared once per connection, timing them when asked. */
final class RefreshSteps {
  private final RefreshStatements statements;
  private final Object catalogVersion;
  private final @Nullable List<RefreshExecutor.Step> timings;

  RefreshSteps(RefreshStatements statements, CatalogSnapshot catalog, boolean timed) {
    this.statements = statements;
    this.catalogVersion = catalog;
    this.timings = timed ? new ArrayList<>() : null;
  }

  ImmutableList<RefreshExecutor.Step> timings() {
    return timings == null ? ImmutableList.of() : ImmutableList.copyOf(timings);
  }

  Map<Integer, PendingChanges.Input> pending(String sql) throws SQLException {
    Map<Integer, PendingChanges.Input> pending = new LinkedHashMap<>();
    query(
        "find the pending change",
        sql,
        rs ->
            pending.put(
                rs.getInt("table_id"),
                new PendingChanges.Input(
                    rs.getInt("table_id"),
                    rs.getLong("change_rows"),
                    rs.getLong("min_weight"),
                    rs.getLong("max_weight"))));
    return pending;
  }

  /** Runs one statement; returns its update count (-1 if it has none). */
  long execute(String what, String sql, Object... parameters) throws SQLException {
    long start = System.nanoTime();
    PreparedStatement statement = prepared(sql, parameters);
    statement.execute();
    record(what, sql, start);
    return statement.getUpdateCount();
  }

  void query(String what, String sql, RowReader reader, Object... parameters) throws SQLException {
    long start = System.nanoTime();
    try (ResultSet rs = prepared(sql, parameters).executeQuery()) {
      while (rs.next()) {
        reader.read(rs);
      }
    }
    record(what, sql, start);
  }

  private PreparedStatement prepared(String sql, Object... parameters) throws SQLException {
    PreparedStatement statement = statements.prepared(sql, catalogVersion);
    for (int i = 0; i < parameters.length; i++) {
      statement.setObject(i + 1, parameters[i]);
    }
    return statement;
  }

  void record(String what, String sql, long start) {
    if (timings != null) {
      timings.add(new RefreshExecutor.Step(what, sql, System.nanoTime() - start));
    }
  }

  /** Reads one row of a result. */
  @FunctionalInterface
  interface RowReader {
    void read(ResultSet rs) throws SQLException;
  }
}
