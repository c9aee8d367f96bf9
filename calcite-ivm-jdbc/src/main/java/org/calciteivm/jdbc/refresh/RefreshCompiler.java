package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.core.RefreshProgram;
import org.calciteivm.core.ZSets;
import org.calciteivm.core.analysis.ViewAnalyzer;
import org.calciteivm.jdbc.catalog.CalciteSchemas;
import org.calciteivm.jdbc.catalog.DuckDbCatalog;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.merge.BagMerge;
import org.calciteivm.rules.IvmRelBuilders;
import org.calciteivm.rules.consolidate.Consolidation;
import org.calciteivm.rules.delta.DeltaDerivation;
import org.calciteivm.rules.delta.LogicalDelta;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.calciteivm.rules.sql.DuckDbTypeSystem;
import org.calciteivm.rules.sql.SqlUnparser;

/**
 * Compiles a view into its {@link RefreshProgram}: plans the view with Calcite, derives its delta
 * plan with the delta rules, and writes the SQL of each step for DuckDB. This is the only place
 * that plans; a refresh only executes what was compiled here.
 */
public final class RefreshCompiler {
  private static final SqlUnparser UNPARSER = SqlUnparser.duckDb();

  private RefreshCompiler() {}

  /** The plan of {@code view}'s query, checked to be maintainable. */
  public static RelNode plan(
      Connection connection, String viewName, String query, Collection<TrackedTable> tracked)
      throws SQLException {
    return planner(connection, tracked).toRel(viewName, query);
  }

  private static ViewSqlPlanner planner(Connection connection, Collection<TrackedTable> tracked)
      throws SQLException {
    SchemaPlus root = CalciteSchemas.build(DuckDbCatalog.read(connection), tracked);
    return new ViewSqlPlanner(
        root.getSubSchema("main"), DuckDbTypeSystem.INSTANCE, DuckDbFunctions.read(connection));
  }

  /** Compiles the refresh program of {@code view}, whose base tables are among {@code tracked}. */
  public static RefreshProgram compile(
      Connection connection, ViewEntry view, Collection<TrackedTable> tracked) throws SQLException {
    ViewSqlPlanner planner = planner(connection, tracked);
    RelNode plan = planner.toRel(view.name(), view.query());
    ViewAnalyzer.analyze(view.name(), plan);
    RelNode delta = DeltaDerivation.derive(plan);
    RelBuilder builder = IvmRelBuilders.create(delta.getCluster());
    RelNode named = withDeltaColumnNames(builder, delta);
    String deltaSql = UNPARSER.toSql(named);
    String consolidatedSql = UNPARSER.toSql(Consolidation.consolidate(builder, named));

    List<RefreshProgram.Input> inputs = new ArrayList<>();
    RelBuilder scans = planner.relBuilder();
    for (int tableId : view.inputTableIds()) {
      TrackedTable table =
          tracked.stream()
              .filter(t -> t.id() == tableId)
              .findFirst()
              .orElseThrow(() -> new IllegalStateException("untracked input " + tableId));
      inputs.add(
          new RefreshProgram.Input(
              tableId,
              table.pendingTable(),
              "CREATE OR REPLACE TEMP TABLE "
                  + table.pendingTable()
                  + " AS "
                  + UNPARSER.toSql(pendingChange(scans, table))));
    }

    List<String> dataColumns =
        DuckDbCatalog.columnNames(
            connection, IvmNames.SCHEMA, IvmNames.viewDataTable(view.id(), view.name()));
    String viewDeltaTable = IvmNames.qualified("temp", IvmNames.viewDeltaTable(view.id()));
    return new RefreshProgram(
        view.name(),
        MergeStrategy.BAG_COUNTED,
        ViewSqlPlanner.explain(delta),
        ImmutableList.copyOf(inputs),
        ImmutableMap.of(
            MergeStrategy.BAG_COUNTED,
            BagMerge.counted(view.dataTable(), dataColumns, viewDeltaTable, consolidatedSql),
            MergeStrategy.BAG_APPEND,
            BagMerge.append(view.dataTable(), dataColumns.size(), deltaSql)));
  }

  /** Renames a delta plan's columns to {@code c1..cn} and the weight, as the merge expects. */
  private static RelNode withDeltaColumnNames(RelBuilder builder, RelNode delta) {
    int columns = delta.getRowType().getFieldCount() - 1;
    List<String> names = new ArrayList<>();
    for (int i = 0; i < columns; i++) {
      names.add(BagMerge.deltaColumn(i));
    }
    names.add(ZSets.WEIGHT_COLUMN);
    return builder.push(delta).project(builder.fields(), names, true).build();
  }

  /**
   * The consolidated change of {@code table} between two epochs: {@code Σ_w σ(watermark < epoch <=
   * sealed)(ΔT)} with the watermark and the sealed epoch as parameters 1 and 2.
   */
  private static RelNode pendingChange(RelBuilder builder, TrackedTable table) {
    builder.scan(IvmNames.SCHEMA, IvmNames.deltaTable(table.id(), table.relation().name()));
    RelDataType epochType = LogicalDelta.weightType(builder.getTypeFactory());
    RexNode epoch = builder.field(IvmNames.EPOCH_COLUMN);
    builder.filter(
        builder.call(
            SqlStdOperatorTable.GREATER_THAN,
            epoch,
            builder.getRexBuilder().makeDynamicParam(epochType, 0)),
        builder.call(
            SqlStdOperatorTable.LESS_THAN_OR_EQUAL,
            epoch,
            builder.getRexBuilder().makeDynamicParam(epochType, 1)));
    int tupleAndWeight = table.relation().columns().size() + 1;
    builder.project(builder.fields().subList(0, tupleAndWeight));
    return Consolidation.consolidate(builder, builder.build());
  }
}
