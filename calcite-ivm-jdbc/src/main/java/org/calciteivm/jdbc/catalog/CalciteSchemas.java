package org.calciteivm.jdbc.catalog;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.rel.RelReferentialConstraint;
import org.apache.calcite.rel.RelReferentialConstraintImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.Statistic;
import org.apache.calcite.schema.Statistics;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.util.ImmutableBitSet;
import org.apache.calcite.util.mapping.IntPair;
import org.calciteivm.core.IvmNames;
import org.calciteivm.rules.analysis.UniqueRowsTable;
import org.calciteivm.rules.delta.ChangeOf;
import org.calciteivm.rules.delta.ChangingTable;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Builds the Calcite schema that views are planned in, from DuckDB's catalog.
 *
 * <p>Each DuckDB schema becomes a sub-schema of the root with its tables and views. A tracked table
 * is a {@link ChangingTable} whose delta relation is the view's pending view of it in the {@link
 * IvmNames#SCHEMA} schema ({@link ChangeLogs#pendingViewSql}): a schema is built to plan one view,
 * whose id it learns when the view is registered ({@link PlanningSchema#forView}). A table tracked
 * after the schema was built (by the CREATE MATERIALIZED VIEW that planned in it) becomes changing
 * when it is {@linkplain PlanningSchema#track tracked}, so that a view is planned once.
 */
public final class CalciteSchemas {
  private CalciteSchemas() {}

  /**
   * The schema a view is planned in, which of its tables are tracked, and the id of the view: a
   * CREATE MATERIALIZED VIEW plans the view before it tracks its tables and registers it, and
   * compiles its delta programs after, from the same plan.
   */
  public static final class PlanningSchema {
    private final SchemaPlus root;
    private final Map<String, TrackedTable> tracked = new HashMap<>();
    private int viewId = -1;

    private PlanningSchema(SchemaPlus root) {
      this.root = root;
    }

    /** The root schema. */
    public SchemaPlus root() {
      return root;
    }

    /** Makes {@code table} changing from now on (or updates what it captures). */
    public void track(TrackedTable table) {
      tracked.put(table.relation().qualifiedName(), table);
      addPendingView(table);
    }

    /** Names the view planned in this schema, whose pending views its delta plans read. */
    public void forView(int id) {
      viewId = id;
      tracked.values().forEach(this::addPendingView);
    }

    private void addPendingView(TrackedTable table) {
      if (viewId >= 0) {
        root.getSubSchema(IvmNames.SCHEMA)
            .add(IvmNames.pendingView(viewId, table.id()), new ZSetTable(table.relation()));
      }
    }

    private List<String> pendingView(TrackedTable table) {
      if (viewId < 0) {
        throw new IllegalStateException("no view named yet for the pending view of " + table);
      }
      return List.of(IvmNames.SCHEMA, IvmNames.pendingView(viewId, table.id()));
    }
  }

  /**
   * The schema for {@code catalog}, the relations of the database of {@code connection}, in which
   * {@code tracked} tables are changing.
   */
  public static PlanningSchema build(
      Connection connection, DuckDbCatalog catalog, Collection<TrackedTable> tracked)
      throws SQLException {
    Map<List<String>, List<Integer>> uniqueColumns = uniqueColumns(connection);
    SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
    root.add(IvmNames.SCHEMA, new AbstractSchema());
    PlanningSchema planning = new PlanningSchema(root);
    for (Relation relation : catalog.relations()) {
      SchemaPlus schema = root.getSubSchema(relation.schema());
      if (schema == null) {
        schema = root.add(relation.schema(), new AbstractSchema());
      }
      Statistic statistic =
          Statistics.of(null, keys(relation), referentialConstraints(catalog, relation), null);
      List<Integer> unique =
          uniqueColumns.getOrDefault(List.of(relation.schema(), relation.name()), List.of());
      // a view is changing too once tracked: the user view of a materialized view that another
      // materialized view reads
      schema.add(
          relation.name(),
          new DuckDbBaseTable(
              relation,
              statistic,
              unique.isEmpty() ? List.of() : List.of(ImmutableBitSet.of(unique)),
              planning));
    }
    tracked.forEach(planning::track);
    if (root.getSubSchema("main") == null) {
      root.add("main", new AbstractSchema());
    }
    return planning;
  }

  /**
   * Per materialized view that records them, keyed by the schema and name of its user view (for a
   * hidden view, in {@link IvmNames#SCHEMA}), the positions of its columns no two of its rows agree
   * on, NULL equal to NULL: an aggregate view's group keys, a DISTINCT view's columns. Planning a
   * view over such a view knows from them that ordering by them leaves no ties.
   */
  private static Map<List<String>, List<Integer>> uniqueColumns(Connection connection)
      throws SQLException {
    Map<List<String>, List<Integer>> unique = new HashMap<>();
    if (!DuckDbCatalog.columnNames(connection, IvmNames.SCHEMA, "views")
        .contains("unique_columns")) {
      return unique; // a read-only catalog of an earlier version
    }
    try (Statement s = connection.createStatement();
        ResultSet rs =
            s.executeQuery(
                "SELECT CASE WHEN owner_view_id IS NULL THEN schema_name ELSE "
                    + IvmNames.literal(IvmNames.SCHEMA)
                    + " END, view_name, unique_columns FROM "
                    + IvmCatalog.VIEWS
                    + " WHERE len(unique_columns) > 0")) {
      while (rs.next()) {
        List<Integer> columns = new ArrayList<>();
        for (Object column : (Object[]) rs.getArray(3).getArray()) {
          columns.add(((Number) column).intValue());
        }
        unique.put(List.of(rs.getString(1), rs.getString(2)), columns);
      }
    }
    return unique;
  }

  /**
   * {@code relation}'s primary key as Calcite states keys: column positions. Rules that rely on
   * keys (a bag view deleting by key, see {@code RowKeys}) need a key DuckDB enforces.
   */
  private static List<ImmutableBitSet> keys(Relation relation) {
    if (relation.primaryKey().isEmpty()) {
      return List.of();
    }
    List<Integer> columns = new ArrayList<>();
    for (String column : relation.primaryKey()) {
      int index = relation.columnIndex(column);
      if (index < 0) {
        return List.of();
      }
      columns.add(index);
    }
    return List.of(ImmutableBitSet.of(columns));
  }

  /**
   * {@code relation}'s foreign keys as Calcite states them: source and target columns by position.
   * The delta rules rely on them (a declared key lets them leave out join terms that must be
   * empty), so only constraints that DuckDB enforces are listed.
   */
  private static List<RelReferentialConstraint> referentialConstraints(
      DuckDbCatalog catalog, Relation relation) {
    List<RelReferentialConstraint> constraints = new ArrayList<>();
    for (Relation.ForeignKey key : relation.foreignKeys()) {
      Relation target = catalog.find(relation.schema(), key.referencedTable()).orElse(null);
      if (target == null) {
        continue;
      }
      List<IntPair> pairs = new ArrayList<>();
      for (int i = 0; i < key.columns().size(); i++) {
        int source = relation.columnIndex(key.columns().get(i));
        int referenced = target.columnIndex(key.referencedColumns().get(i));
        if (source >= 0 && referenced >= 0) {
          pairs.add(IntPair.of(source, referenced));
        }
      }
      if (pairs.size() == key.columns().size()) {
        constraints.add(
            RelReferentialConstraintImpl.of(
                List.of(relation.schema(), relation.name()),
                List.of(target.schema(), target.name()),
                pairs));
      }
    }
    return constraints;
  }

  /** The row type of {@code relation}'s columns. */
  static RelDataType rowType(RelDataTypeFactory factory, Relation relation) {
    RelDataTypeFactory.Builder builder = factory.builder();
    for (Column column : relation.columns()) {
      builder.add(
          column.name(), DuckDbTypes.toCalcite(factory, column.dataType(), column.nullable()));
    }
    return builder.build();
  }

  /**
   * A DuckDB table or view as Calcite sees it: a row type, its declared keys and the unique columns
   * of a materialized view, nothing to execute.
   */
  static class DuckDbTable extends AbstractTable implements UniqueRowsTable {
    final Relation relation;
    private final Statistic statistic;
    private final List<ImmutableBitSet> uniqueColumns;

    DuckDbTable(Relation relation, Statistic statistic, List<ImmutableBitSet> uniqueColumns) {
      this.relation = relation;
      this.statistic = statistic;
      this.uniqueColumns = uniqueColumns;
    }

    @Override
    public List<ImmutableBitSet> uniqueColumns() {
      return uniqueColumns;
    }

    @Override
    public Statistic getStatistic() {
      return statistic;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory factory) {
      return rowType(factory, relation);
    }
  }

  /**
   * A table or view: a {@link ChangingTable} while it is tracked (a base table, or the user view of
   * a materialized view that other materialized views read, whose change log its refresh fills).
   */
  static final class DuckDbBaseTable extends DuckDbTable implements ChangingTable {
    private final PlanningSchema planning;

    DuckDbBaseTable(
        Relation relation,
        Statistic statistic,
        List<ImmutableBitSet> uniqueColumns,
        PlanningSchema planning) {
      super(relation, statistic, uniqueColumns);
      this.planning = planning;
    }

    private @Nullable TrackedTable tracked() {
      return planning.tracked.get(relation.qualifiedName());
    }

    @Override
    public <C> @Nullable C unwrap(Class<C> type) {
      if (type == ChangingTable.class && tracked() == null) {
        return null; // not changing: no view reads it
      }
      return super.unwrap(type);
    }

    @Override
    public List<String> deltaTableName() {
      TrackedTable table = tracked();
      if (table == null) {
        throw new IllegalStateException("table " + relation.qualifiedName() + " is not tracked");
      }
      return planning.pendingView(table);
    }
  }

  /** A Z-set of a table's rows: its columns and a weight. */
  static final class ZSetTable extends DuckDbTable {
    ZSetTable(Relation relation) {
      super(relation, Statistics.UNKNOWN, List.of());
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory factory) {
      return ChangeOf.weightedRowType(factory, rowType(factory, relation));
    }
  }
}
