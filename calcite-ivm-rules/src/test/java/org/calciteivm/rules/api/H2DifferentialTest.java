package org.calciteivm.rules.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.math.MathContext;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.apache.calcite.adapter.jdbc.JdbcSchema;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.sql.dialect.H2SqlDialect;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.core.MergeStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The library on another engine, through its public API only: views over H2 tables (Calcite's
 * {@link JdbcSchema}, tables as they are, their delta relations found by a {@link DeltaRelations}),
 * maintained by the delta SQL and standard {@code MERGE} statements in H2's dialect, run on H2.
 * After every step of random inserts, deletes and updates (duplicates, NULLs, groups that empty,
 * both sides of joins at once) the stored rows and their counts equal their recompute ({@link
 * MaintainedView#storedContentSql()}) and the view read from its state ({@link
 * MaintainedView#readSql}) equals the view's query run by H2, as bags. {@code -Divm.seed} replays a
 * run.
 */
class H2DifferentialTest {
  private static final int STEPS = 12;

  /** The base tables, their column definitions. */
  private static final Map<String, List<String>> TABLES =
      Map.of(
          "R", List.of("A INT", "B VARCHAR(10)", "C DECIMAL(10,2)", "D DOUBLE PRECISION"),
          "S", List.of("A INT", "E VARCHAR(10)"),
          "U", List.of("E VARCHAR(10)", "F INT"));

  private static int databases;

  private Connection h2;
  private IvmCompiler compiler;

  @BeforeEach
  void open() throws SQLException {
    String url = "jdbc:h2:mem:ivm" + databases++ + ";DB_CLOSE_DELAY=-1";
    h2 = DriverManager.getConnection(url, "sa", "");
    try (Statement s = h2.createStatement()) {
      s.execute("CREATE SCHEMA DELTAS");
      s.execute("CREATE SCHEMA VIEWS");
      for (Map.Entry<String, List<String>> table : TABLES.entrySet()) {
        String columns = String.join(", ", table.getValue());
        s.execute("CREATE TABLE PUBLIC." + table.getKey() + " (" + columns + ")");
        s.execute(
            "CREATE TABLE DELTAS."
                + table.getKey()
                + " ("
                + columns
                + ", \"_ivm_weight\" BIGINT NOT NULL)");
      }
    }
    SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
    DataSource source = JdbcSchema.dataSource(url, "org.h2.Driver", "sa", "");
    SchemaPlus main = root.add("PUBLIC", JdbcSchema.create(root, "PUBLIC", source, null, "PUBLIC"));
    root.add("DELTAS", JdbcSchema.create(root, "DELTAS", source, null, "DELTAS"));
    compiler =
        IvmCompiler.over(main)
            .withTarget(SqlTarget.standard(H2SqlDialect.DEFAULT))
            .withDeltaRelations(
                table ->
                    table.getQualifiedName().get(0).equals("PUBLIC")
                        ? Optional.of(List.of("DELTAS", table.getQualifiedName().get(1)))
                        : Optional.empty());
  }

  @AfterEach
  void close() throws SQLException {
    try (Statement s = h2.createStatement()) {
      s.execute("SHUTDOWN");
    }
    h2.close();
  }

  @Test
  void filterAndProjection() throws Exception {
    maintain("SELECT b, c, a + 1 AS a1 FROM r WHERE a >= 2 OR a IS NULL");
  }

  @Test
  void groupedSumCountAvg() throws Exception {
    maintain(
        "SELECT b, SUM(c) AS sc, COUNT(*) AS n, COUNT(a) AS na, AVG(d) AS ad FROM r"
            + " WHERE a IS NULL OR a < 5 GROUP BY b");
  }

  @Test
  void scalarAggregate() throws Exception {
    maintain("SELECT SUM(c) AS sc, COUNT(*) AS n, AVG(d) AS ad FROM r");
  }

  @Test
  void threeWayJoin() throws Exception {
    maintain("SELECT r.b, s.e, u.f FROM r JOIN s ON r.a = s.a JOIN u ON s.e = u.e");
  }

  @Test
  void aggregateOverAJoin() throws Exception {
    maintain(
        "SELECT s.e, SUM(r.c) AS sc, COUNT(*) AS n, AVG(r.d) AS ad FROM r JOIN s ON r.a = s.a"
            + " GROUP BY s.e HAVING COUNT(*) > 1");
  }

  @Test
  void outerJoins() throws Exception {
    maintain("SELECT r.b, s.e, r.c FROM r LEFT JOIN s ON r.a = s.a");
    maintain(
        "SELECT s.e, COUNT(*) AS n, SUM(r.c) AS sc FROM r RIGHT JOIN s ON r.a = s.a GROUP BY s.e");
  }

  @Test
  void distinctAndSetOperations() throws Exception {
    maintain("SELECT DISTINCT b, a FROM r");
    maintain("SELECT a, b FROM r WHERE c > 0 UNION ALL SELECT a, e FROM s");
    maintain("SELECT a FROM r UNION SELECT a FROM s");
  }

  @Test
  void minAndMaxRecomputeTheGroupsADeleteTouches() throws Exception {
    maintain("SELECT b, MIN(c) AS lo, MAX(a) AS hi, COUNT(*) AS n FROM r GROUP BY b");
  }

  /** Creates the view's stored state, then maintains it through random changes. */
  private void maintain(String sql) throws Exception {
    long seed = Long.getLong("ivm.seed", System.nanoTime());
    Random random = new Random(seed);
    update("DROP TABLE IF EXISTS VIEWS.V");
    for (String table : TABLES.keySet()) {
      update("DELETE FROM PUBLIC." + table);
      for (int i = random.nextInt(12); i > 0; i--) {
        update("INSERT INTO PUBLIC." + table + " VALUES " + randomRow(random, table));
      }
    }
    MaintainedView view = compiler.compile("v", sql);
    update("CREATE TABLE VIEWS.V AS " + view.storedContentSql());
    List<String> columns = view.plan().getRowType().getFieldNames();
    StoredView stored = new StoredView("VIEWS.V", columns, "unused");
    for (int step = 0; step < STEPS; step++) {
      String where = "seed " + seed + " (-Divm.seed=" + seed + "), step " + step + ", view " + sql;
      Change change = randomChange(random, view.baseTables());
      DeltaProgram delta = view.delta(change);
      Map<MergeStrategy, List<String>> merges = view.mergeStatements(delta, stored);
      MergeStrategy merge = chooseMerge(view, change, merges, random);
      h2.setAutoCommit(false);
      for (String statement : merges.get(merge)) {
        update(statement);
      }
      for (String table : TABLES.keySet()) {
        update("DELETE FROM DELTAS." + table);
      }
      h2.commit();
      h2.setAutoCommit(true);
      // the stored rows and their counts; a hidden SUM over no values may be 0 or NULL
      StateLayout layout = view.stateLayout();
      String keysAndCounts =
          Stream.concat(
                  layout.keys().stream(),
                  layout.columns().stream()
                      .filter(c -> c.kind() == StateLayout.Kind.COUNT)
                      .map(StateLayout.Column::name))
              .map(c -> '"' + c + '"')
              .collect(Collectors.joining(", "));
      assertThat(rows("SELECT " + keysAndCounts + " FROM VIEWS.V"))
          .as("stored state after %s (%s)", where, merge)
          .isEqualTo(rows("SELECT " + keysAndCounts + " FROM (" + view.storedContentSql() + ")"));
      assertThat(rows(view.readSql("VIEWS.V")))
          .as("view read from its state after %s (%s)", where, merge)
          .isEqualTo(rows(sql));
    }
  }

  /**
   * The view's own strategy, or with only inserts the append merge (half the time) or, for MIN and
   * MAX, the folding merge.
   */
  private static MergeStrategy chooseMerge(
      MaintainedView view, Change change, Map<MergeStrategy, List<String>> merges, Random random) {
    boolean insertOnly = change.insertOnlyTables().equals(change.changedTables());
    if (insertOnly && random.nextBoolean()) {
      for (MergeStrategy append :
          List.of(
              MergeStrategy.BAG_APPEND, MergeStrategy.GROUP_APPEND, MergeStrategy.GROUP_MERGE)) {
        if (merges.containsKey(append)) {
          return append;
        }
      }
    }
    return view.strategy();
  }

  /**
   * Random inserts, deletes and updates of some tables, written to them and their deltas; the
   * change names those the view reads.
   */
  private Change randomChange(Random random, List<List<String>> read) throws SQLException {
    Set<List<String>> changed = new HashSet<>();
    Set<List<String>> insertOnly = new HashSet<>();
    for (String table : TABLES.keySet()) {
      if (random.nextInt(3) == 0) {
        continue;
      }
      boolean deleted = false;
      for (int i = random.nextInt(5); i >= 0; i--) {
        int kind = random.nextInt(3);
        if (kind > 0 && deleteOne(table, random)) {
          deleted = true;
          if (kind == 1) {
            continue; // a delete; otherwise an update: the delete and an insert
          }
        }
        insert(table, randomRow(random, table));
      }
      changed.add(List.of("PUBLIC", table));
      if (!deleted) {
        insertOnly.add(List.of("PUBLIC", table));
      }
    }
    changed.retainAll(read);
    insertOnly.retainAll(read);
    JoinStrategy joins = JoinStrategy.values()[random.nextInt(JoinStrategy.values().length)];
    return new Change(changed, insertOnly, joins);
  }

  private void insert(String table, String row) throws SQLException {
    update("INSERT INTO PUBLIC." + table + " VALUES " + row);
    update(
        "INSERT INTO DELTAS." + table + " VALUES " + row.substring(0, row.length() - 1) + ", 1)");
  }

  /** Deletes one row of {@code table}, if it has any, and records it with weight -1. */
  private boolean deleteOne(String table, Random random) throws SQLException {
    long rows = count("SELECT COUNT(*) FROM PUBLIC." + table);
    if (rows == 0) {
      return false;
    }
    long victim;
    try (Statement s = h2.createStatement();
        ResultSet r =
            s.executeQuery(
                "SELECT _ROWID_ FROM PUBLIC."
                    + table
                    + " ORDER BY _ROWID_ OFFSET "
                    + random.nextInt((int) rows)
                    + " ROWS FETCH NEXT 1 ROWS ONLY")) {
      r.next();
      victim = r.getLong(1);
    }
    update(
        "INSERT INTO DELTAS."
            + table
            + " SELECT *, -1 FROM PUBLIC."
            + table
            + " WHERE _ROWID_ = "
            + victim);
    update("DELETE FROM PUBLIC." + table + " WHERE _ROWID_ = " + victim);
    return true;
  }

  /** A row of small domains, with NULLs, so that duplicates, matches and NULL groups are common. */
  private static String randomRow(Random random, String table) {
    List<String> values = new ArrayList<>();
    for (String column : TABLES.get(table)) {
      if (random.nextInt(6) == 0) {
        values.add("NULL");
      } else if (column.contains("INT")) {
        values.add(String.valueOf(random.nextInt(6)));
      } else if (column.contains("VARCHAR")) {
        values.add("'" + (char) ('w' + random.nextInt(4)) + "'");
      } else if (column.contains("DECIMAL")) {
        values.add(random.nextInt(2000) - 1000 + "." + random.nextInt(10) + "5");
      } else {
        values.add(String.valueOf(random.nextInt(100) / 8.0));
      }
    }
    return "(" + String.join(", ", values) + ")";
  }

  private void update(String sql) throws SQLException {
    try (Statement s = h2.createStatement()) {
      s.execute(sql);
    } catch (SQLException e) {
      throw new SQLException(e.getMessage() + "\n  in: " + sql, e);
    }
  }

  private long count(String sql) throws SQLException {
    try (PreparedStatement s = h2.prepareStatement(sql);
        ResultSet r = s.executeQuery()) {
      r.next();
      return r.getLong(1);
    }
  }

  /**
   * The rows of {@code sql} as a sorted bag of texts; numbers compared by value to 10 digits (H2
   * computes an average as DECFLOAT, the state as DOUBLE).
   */
  private List<String> rows(String sql) throws SQLException {
    List<String> rows = new ArrayList<>();
    try (Statement s = h2.createStatement();
        ResultSet r = s.executeQuery(sql)) {
      int columns = r.getMetaData().getColumnCount();
      while (r.next()) {
        List<String> row = new ArrayList<>();
        for (int i = 1; i <= columns; i++) {
          Object value = r.getObject(i);
          row.add(
              value instanceof Number n
                  ? new BigDecimal(n.toString())
                      .round(new MathContext(10))
                      .stripTrailingZeros()
                      .toPlainString()
                  : String.valueOf(value));
        }
        rows.add(row.toString());
      }
    } catch (SQLException e) {
      throw new SQLException(e.getMessage() + "\n  in: " + sql, e);
    }
    Collections.sort(rows);
    return rows;
  }
}
