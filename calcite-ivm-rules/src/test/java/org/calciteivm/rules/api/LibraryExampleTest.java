package org.calciteivm.rules.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.ImmutableList;
import java.util.List;
import java.util.Map;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.plan.Contexts;
import org.apache.calcite.plan.hep.HepPlanner;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.rules.IvmPrograms;
import org.calciteivm.rules.delta.ChangeOf;
import org.calciteivm.rules.delta.ChangingTable;
import org.calciteivm.rules.delta.DeltaContext;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.calciteivm.rules.sql.DuckDbTypeSystem;
import org.junit.jupiter.api.Test;

/**
 * The examples of {@code docs/LIBRARY.md}, compiled and run: if this test changes, the document
 * changes with it.
 */
class LibraryExampleTest {

  // --- docs/LIBRARY.md, "A schema with a changing table" ---

  /** orders(id, customer, amount): its changes are in temp.orders_delta. */
  static class Orders extends AbstractTable implements ChangingTable {
    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
      return types
          .builder()
          .add("id", SqlTypeName.INTEGER)
          .add("customer", SqlTypeName.VARCHAR)
          .add("amount", types.createSqlType(SqlTypeName.DECIMAL, 10, 2))
          .build();
    }

    @Override
    public List<String> deltaTableName() {
      return List.of("temp", "orders_delta");
    }
  }

  /** The delta relation: the columns of orders and the weight column. */
  static class OrdersDelta extends AbstractTable {
    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
      return ChangeOf.weightedRowType(types, new Orders().getRowType(types));
    }
  }

  static SchemaPlus schema() {
    SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
    SchemaPlus main = root.add("main", new AbstractSchema());
    main.add("orders", new Orders());
    root.add("temp", new AbstractSchema()).add("orders_delta", new OrdersDelta());
    return main;
  }

  // --- docs/LIBRARY.md, "View SQL in, SQL out" ---

  @Test
  void viewSqlInSqlOut() throws Exception {
    MaintainedView view =
        IvmCompiler.over(schema())
            .compile("big_orders", "SELECT customer, amount FROM orders WHERE amount > 100");
    DeltaProgram delta = view.delta(Change.of(JoinStrategy.TELESCOPING, view.baseTables()));

    assertThat(view.strategy().name()).isEqualTo("BAG_COUNTED");
    assertThat(delta.sql())
        .isEqualTo(
            """
            SELECT "customer", "amount", CAST(SUM("_ivm_weight") AS BIGINT) AS "_ivm_weight"
            FROM "temp"."orders_delta"
            WHERE CAST("amount" AS DECIMAL(12, 2)) > 100.00
            GROUP BY "customer", "amount"
            HAVING SUM("_ivm_weight") <> 0""");
  }

  @Test
  void aggregateViewsStoreStateAndTheirDeltaIsAStateChange() throws Exception {
    MaintainedView view =
        IvmCompiler.over(schema())
            .compile(
                "totals",
                "SELECT customer, SUM(amount) AS total, COUNT(*) AS n FROM orders GROUP BY"
                    + " customer");
    DeltaProgram delta = view.delta(Change.of(JoinStrategy.TELESCOPING, view.baseTables()));

    assertThat(view.stateColumns()).containsExactly("_ivm_count", "a1_sum", "a1_count", "a2_count");
    assertThat(delta.explain()).startsWith("LogicalProject(k1=[$0], _ivm_count=[$1], a1_sum=[$2]");
    assertThat(view.usedColumns().get(List.of("main", "orders")))
        .containsExactly("customer", "amount");
  }

  // --- docs/LIBRARY.md, "Stored state and merge statements" ---

  @Test
  void storedContentAndMergeStatements() throws Exception {
    MaintainedView view =
        IvmCompiler.over(schema())
            .compile("big_orders", "SELECT customer, amount FROM orders WHERE amount > 100");
    DeltaProgram delta = view.delta(Change.of(JoinStrategy.TELESCOPING, view.baseTables()));

    String create = "CREATE TABLE big_orders AS " + view.storedContentSql();
    Map<MergeStrategy, ImmutableList<String>> merge =
        view.mergeStatements(
            delta,
            new StoredView(
                "big_orders", ImmutableList.of("customer", "amount"), "big_orders_delta"));

    assertThat(create)
        .isEqualTo(
            """
            CREATE TABLE big_orders AS SELECT "customer", "amount"
            FROM "main"."orders"
            WHERE CAST("amount" AS DECIMAL(12, 2)) > 100.00""");
    // any change: consolidate, delete the net deleted copies, insert the net inserted ones
    assertThat(merge.get(MergeStrategy.BAG_COUNTED)).hasSize(3);
    assertThat(merge.get(MergeStrategy.BAG_COUNTED).get(2))
        .isEqualTo(
            "INSERT INTO big_orders SELECT v.\"c1\", v.\"c2\" FROM \"big_orders_delta\" AS v,"
                + " generate_series(1, v.\"_ivm_weight\") WHERE v.\"_ivm_weight\" > 0");
    // inserts only: append the delta rows, fanned out by weight
    assertThat(merge.get(MergeStrategy.BAG_APPEND)).hasSize(1);
  }

  @Test
  void unsupportedViewsAreRefusedWithTheConstruct() {
    assertThatThrownBy(
            () ->
                IvmCompiler.over(schema())
                    .compile(
                        "ranked", "SELECT id, row_number() OVER (ORDER BY amount) FROM orders"))
        .isInstanceOf(UnsupportedViewException.class)
        .hasMessageContaining("ranked");
  }

  // --- docs/LIBRARY.md, "RelNode in, delta RelNode out, in your own HepPlanner" ---

  @Test
  void relNodeInDeltaRelNodeOut() throws Exception {
    RelNode view =
        new ViewSqlPlanner(schema(), DuckDbTypeSystem.INSTANCE)
            .toRel("v", "SELECT id, amount * 2 AS doubled FROM orders WHERE customer = 'a'");

    HepPlanner planner =
        new HepPlanner(
            IvmPrograms.delta(JoinStrategy.INCLUSION_EXCLUSION),
            Contexts.of(DeltaContext.EVERY_CHANGING_TABLE));
    planner.setRoot(ChangeOf.create(view));
    RelNode delta = planner.findBestExp();

    assertThat(ViewSqlPlanner.explain(delta).trim())
        .isEqualTo(
            """
            LogicalProject(id=[$0], doubled=[*($2, 2)], _ivm_weight=[$3])
              LogicalFilter(condition=[=($1, 'a')])
                LogicalTableScan(table=[[temp, orders_delta]])""");
  }
}
