package org.calciteivm.rules.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.dialect.H2SqlDialect;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.Frameworks;
import org.apache.calcite.tools.Planner;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.core.UnsupportedViewException;
import org.junit.jupiter.api.Test;

/**
 * The examples of {@code docs/LIBRARY.md}, compiled and run: if this test changes, the document
 * changes with it.
 */
class LibraryExampleTest {

  // --- docs/LIBRARY.md, "A schema and where its changes are" ---

  /** orders(id, customer, amount), an ordinary table. */
  static class Orders extends AbstractTable {
    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
      return types
          .builder()
          .add("id", SqlTypeName.INTEGER)
          .add("customer", SqlTypeName.VARCHAR)
          .add("amount", types.createSqlType(SqlTypeName.DECIMAL, 10, 2))
          .build();
    }
  }

  /** The delta relation: the columns of orders and the weight column. */
  static class OrdersDelta extends AbstractTable {
    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
      return DeltaRelations.rowType(types, new Orders().getRowType(types));
    }
  }

  static SchemaPlus schema() {
    SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
    SchemaPlus main = root.add("main", new AbstractSchema());
    main.add("orders", new Orders());
    root.add("temp", new AbstractSchema()).add("orders_delta", new OrdersDelta());
    return main;
  }

  /** The changes of main.orders are in temp.orders_delta; no other table changes. */
  static final DeltaRelations DELTAS =
      table ->
          table.getQualifiedName().equals(List.of("main", "orders"))
              ? Optional.of(List.of("temp", "orders_delta"))
              : Optional.empty();

  // --- docs/LIBRARY.md, "View SQL in, SQL out" ---

  @Test
  void viewSqlInSqlOut() throws Exception {
    MaintainedView view =
        IvmCompiler.duckDb(schema())
            .withDeltaRelations(DELTAS)
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
        IvmCompiler.duckDb(schema())
            .withDeltaRelations(DELTAS)
            .compile(
                "totals",
                "SELECT customer, SUM(amount) AS total, COUNT(*) AS n FROM orders GROUP BY"
                    + " customer");
    DeltaProgram delta = view.delta(Change.of(JoinStrategy.TELESCOPING, view.baseTables()));

    // amount is never NULL: its non-null count and COUNT(*) are the row count, stored once
    assertThat(view.stateColumns()).containsExactly("_ivm_count", "a1_sum");
    assertThat(view.stateLayout().calls())
        .containsExactly(List.of("a1_sum", "_ivm_count"), List.of("_ivm_count"));
    // the state of the change's rows of each weight, times the weight, summed per group
    assertThat(delta.explain())
        .startsWith(
            "LogicalProject(k1=[$0], _ivm_count=[$1], a1_sum=[$2])\n"
                + "  LogicalAggregate(group=[{0}], _ivm_count=[SUM($1)], a1_sum=[SUM($2)])");
    assertThat(view.usedColumns().get(List.of("main", "orders")))
        .containsExactly("customer", "amount");
  }

  // --- docs/LIBRARY.md, "Stored state and merge statements" ---

  @Test
  void storedContentAndMergeStatements() throws Exception {
    MaintainedView view =
        IvmCompiler.duckDb(schema())
            .withDeltaRelations(DELTAS)
            .compile("big_orders", "SELECT customer, amount FROM orders WHERE amount > 100");
    DeltaProgram delta = view.delta(Change.of(JoinStrategy.TELESCOPING, view.baseTables()));

    String create = "CREATE TABLE big_orders AS " + view.storedContentSql();
    Map<MergeStrategy, List<String>> merge =
        view.mergeStatements(
            delta, new StoredView("big_orders", List.of("customer", "amount"), "big_orders_delta"));

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

  // --- docs/LIBRARY.md, "Another engine: standard SQL MERGE" ---

  @Test
  void standardTarget() throws Exception {
    MaintainedView view =
        IvmCompiler.over(schema())
            .withParser(SqlParser.config().withCaseSensitive(false))
            .withTarget(SqlTarget.standard(H2SqlDialect.DEFAULT))
            .withDeltaRelations(DELTAS)
            .compile(
                "totals", "SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer");
    DeltaProgram delta = view.delta(Change.of(JoinStrategy.AUTO, view.baseTables()));
    StateLayout layout = view.stateLayout();

    assertThat(layout.keys()).containsExactly("k1");
    assertThat(layout.columns())
        .containsExactly(
            new StateLayout.Column("_ivm_count", StateLayout.Kind.COUNT, -1, "COUNT()"),
            new StateLayout.Column("a1_sum", StateLayout.Kind.SUM, 0, "SUM($1)"));
    assertThat(layout.calls()).containsExactly(List.of("a1_sum", "_ivm_count"));
    assertThat(view.mergeStatements(delta, new StoredView("totals", List.of(), "unused")))
        .containsOnlyKeys(MergeStrategy.GROUP_MERGE, MergeStrategy.GROUP_APPEND);
    assertThat(
            view.mergeStatements(delta, new StoredView("totals", List.of(), "unused"))
                .get(MergeStrategy.GROUP_MERGE))
        .singleElement()
        .asString()
        .startsWith("MERGE INTO totals AS d USING (SELECT \"k1\", SUM(\"_ivm_count\")")
        .contains(
            ") AS v ON d.\"k1\" IS NOT DISTINCT FROM v.\"k1\" WHEN MATCHED AND d.\"_ivm_count\""
                + " + v.\"_ivm_count\" = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET");
    assertThat(view.readSql("totals"))
        .isEqualTo(
            """
            WITH "_ivm_state" AS (SELECT * FROM totals) SELECT "k1" AS "CUSTOMER", \
            CAST(CASE WHEN "_ivm_count" = 0 THEN NULL ELSE "a1_sum" END AS DECIMAL(19, 2)) AS "TOTAL"
            FROM "_ivm_state\"""");
  }

  @Test
  void unsupportedViewsAreRefusedWithTheConstruct() {
    assertThatThrownBy(
            () ->
                IvmCompiler.duckDb(schema())
                    .withDeltaRelations(DELTAS)
                    .compile(
                        "ranked", "SELECT id, row_number() OVER (ORDER BY amount) FROM orders"))
        .isInstanceOf(UnsupportedViewException.class)
        .hasMessageContaining("ranked");
  }

  // --- docs/LIBRARY.md, "RelNode in, delta RelNode out" ---

  @Test
  void relNodeInDeltaRelNodeOut() throws Exception {
    // a plan as an engine's own Calcite planner makes it
    Planner planner =
        Frameworks.getPlanner(
            Frameworks.newConfigBuilder()
                .defaultSchema(schema())
                .parserConfig(SqlParser.config().withCaseSensitive(false))
                .build());
    RelNode view =
        planner
            .rel(
                planner.validate(
                    planner.parse(
                        "SELECT id, amount * 2 AS doubled FROM orders WHERE customer = 'a'")))
            .project();

    RelNode delta =
        DeltaRules.derive(
            view, Change.of(JoinStrategy.AUTO, List.of(List.of("main", "orders"))), DELTAS);

    assertThat(RelOptUtil.toString(delta).trim())
        .isEqualTo(
            """
            LogicalProject(ID=[$0], DOUBLED=[*($2, 2)], _ivm_weight=[$3])
              LogicalFilter(condition=[=($1, 'a')])
                LogicalTableScan(table=[[temp, orders_delta]])""");
  }
}
