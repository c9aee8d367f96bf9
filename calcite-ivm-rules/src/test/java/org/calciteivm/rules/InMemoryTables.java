package org.calciteivm.rules;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import org.apache.calcite.DataContext;
import org.apache.calcite.jdbc.CalciteConnection;
import org.apache.calcite.linq4j.Enumerable;
import org.apache.calcite.linq4j.Linq4j;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelReferentialConstraint;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.ScannableTable;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.Statistic;
import org.apache.calcite.schema.Statistics;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.RelRunner;
import org.calciteivm.rules.api.DeltaRelations;
import org.calciteivm.rules.api.IvmCompiler;

/**
 * Changing tables held in memory, and plans over them run on Calcite's enumerable engine: no
 * DuckDB, no calcite-ivm driver.
 *
 * <p>How a plan runs: one {@code jdbc:calcite:} connection is opened, and the schemas {@code main}
 * (the tables) and {@code temp} (their delta relations, {@code <table>_delta}) are added to its
 * root schema. The {@link #compiler()} plans views over that same {@code main}, so the scans in its
 * plans name tables the connection resolves at run time. A plan (a view, a delta plan, a state
 * query) is handed to the connection's {@link RelRunner}, which optimizes it with the Volcano
 * planner of the plan's cluster (Calcite's default rules, enumerable convention) and compiles it to
 * Java. A table reads its rows when the plan runs, so a prepared plan is rerun on new contents by
 * {@link #setRows} and {@link #setDelta} alone.
 */
final class InMemoryTables implements AutoCloseable {
  private final Connection connection;
  private final SchemaPlus main;
  private final SchemaPlus temp;
  private final Map<String, MemoryTable> tables = new LinkedHashMap<>();
  private final Map<String, MemoryTable> deltas = new LinkedHashMap<>();

  /** A column: a name and a type; every column is nullable unless {@code notNull}. */
  record Column(String name, SqlTypeName type, int precision, int scale, boolean notNull) {
    static Column of(String name, SqlTypeName type) {
      return new Column(name, type, -1, -1, false);
    }

    static Column decimal(String name, int precision, int scale) {
      return new Column(name, SqlTypeName.DECIMAL, precision, scale, false);
    }

    Column withNotNull() {
      return new Column(name, type, precision, scale, true);
    }

    RelDataType type(RelDataTypeFactory f) {
      RelDataType t =
          precision < 0 ? f.createSqlType(type) : f.createSqlType(type, precision, scale);
      return f.createTypeWithNullability(t, !notNull);
    }
  }

  InMemoryTables() throws SQLException {
    connection = DriverManager.getConnection("jdbc:calcite:");
    SchemaPlus root = connection.unwrap(CalciteConnection.class).getRootSchema();
    main = root.add("main", new AbstractSchema());
    temp = root.add("temp", new AbstractSchema());
  }

  /**
   * Creates the changing table {@code main.name} and its delta relation {@code temp.name_delta},
   * both empty, the table with the given foreign keys (with none, its statistics are unknown).
   */
  void create(String name, List<Column> columns, RelReferentialConstraint... foreignKeys) {
    // without foreign keys, statistics as Calcite's AbstractTable has them: no referential
    // constraints at all (null), which the rules must take as none
    MemoryTable table =
        new MemoryTable(
            f -> rowType(f, columns),
            foreignKeys.length == 0 ? Statistics.UNKNOWN : Statistics.of(List.of(foreignKeys)));
    MemoryTable delta =
        new MemoryTable(f -> DeltaRelations.rowType(f, rowType(f, columns)), Statistics.UNKNOWN);
    tables.put(name, table);
    deltas.put(name, delta);
    main.add(name, table);
    temp.add(name + "_delta", delta);
  }

  /** The names of the tables, in the order they were created. */
  List<String> tableNames() {
    return List.copyOf(tables.keySet());
  }

  /** Replaces the rows of {@code table}. */
  void setRows(String table, List<List<Object>> rows) {
    tables.get(table).rows = toArrays(rows);
  }

  /** Replaces the rows of {@code table}'s delta relation: its columns, then the weight. */
  void setDelta(String table, List<List<Object>> weightedRows) {
    deltas.get(table).rows = toArrays(weightedRows);
  }

  /**
   * A compiler of views over {@code main}, with the conventions the driver plans with (but sums
   * typed as the enumerable engine runs them, {@link EnumerableTypeSystem}); the change of {@code
   * main.t} is in {@code temp.t_delta}.
   */
  IvmCompiler compiler() {
    return IvmCompiler.duckDb(main)
        .withTypeSystem(EnumerableTypeSystem.INSTANCE)
        .withDeltaRelations(
            table -> {
              List<String> name = table.getQualifiedName();
              return name.size() == 2 && name.get(0).equals("main")
                  ? Optional.of(List.of("temp", name.get(1) + "_delta"))
                  : Optional.empty();
            });
  }

  /** Compiles {@code rel} for the enumerable engine; the statement can be run again and again. */
  PreparedStatement prepare(RelNode rel) throws SQLException {
    return connection.unwrap(RelRunner.class).prepareStatement(rel);
  }

  /** Runs a prepared plan on the tables' current contents and returns its rows. */
  static List<List<Object>> run(PreparedStatement statement) throws SQLException {
    List<List<Object>> rows = new ArrayList<>();
    try (ResultSet resultSet = statement.executeQuery()) {
      int columns = resultSet.getMetaData().getColumnCount();
      while (resultSet.next()) {
        List<Object> row = new ArrayList<>(columns);
        for (int i = 1; i <= columns; i++) {
          row.add(resultSet.getObject(i));
        }
        rows.add(row);
      }
    }
    return rows;
  }

  @Override
  public void close() throws SQLException {
    connection.close();
  }

  private static RelDataType rowType(RelDataTypeFactory f, List<Column> columns) {
    RelDataTypeFactory.Builder builder = f.builder();
    for (Column column : columns) {
      builder.add(column.name(), column.type(f));
    }
    return builder.build();
  }

  private static List<Object[]> toArrays(List<List<Object>> rows) {
    List<Object[]> arrays = new ArrayList<>(rows.size());
    for (List<Object> row : rows) {
      arrays.add(row.toArray());
    }
    return arrays;
  }

  /** A table whose rows are a list that the test replaces between runs: an ordinary table. */
  private static class MemoryTable extends AbstractTable implements ScannableTable {
    private final Function<RelDataTypeFactory, RelDataType> rowType;
    private final Statistic statistic;
    private volatile List<Object[]> rows = List.of();

    MemoryTable(Function<RelDataTypeFactory, RelDataType> rowType, Statistic statistic) {
      this.rowType = rowType;
      this.statistic = statistic;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory typeFactory) {
      return rowType.apply(typeFactory);
    }

    @Override
    public Statistic getStatistic() {
      return statistic;
    }

    @Override
    public Enumerable<Object[]> scan(DataContext root) {
      // copies: the engine must not see a later setRows while it reads
      List<Object[]> snapshot = new ArrayList<>(rows.size());
      rows.forEach(row -> snapshot.add(Arrays.copyOf(row, row.length)));
      return Linq4j.asEnumerable(snapshot);
    }
  }
}
