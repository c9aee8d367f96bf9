package org.calciteivm.rules.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.common.collect.ImmutableSet;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.tools.FrameworkConfig;
import org.apache.calcite.tools.Frameworks;
import org.apache.calcite.tools.Planner;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.rules.delta.ChangeOf;
import org.calciteivm.rules.delta.ChangingTable;
import org.junit.jupiter.api.Test;

/**
 * The library on ordinary Calcite tables ({@link AbstractTable}, whose statistics declare no keys
 * and no referential constraints) and plans from Calcite's own planner, as an engine built on
 * Calcite has them: regressions of what broke outside the driver's own schema.
 */
class OrdinaryTablesTest {

  /** A changing table of the given columns, its change in {@code temp.<name>_delta}. */
  static class Changing extends AbstractTable implements ChangingTable {
    private final String name;
    private final Function<RelDataTypeFactory, RelDataType> rowType;

    Changing(String name, Function<RelDataTypeFactory, RelDataType> rowType) {
      this.name = name;
      this.rowType = rowType;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
      return rowType.apply(types);
    }

    @Override
    public List<String> deltaTableName() {
      return List.of("temp", name + "_delta");
    }
  }

  /** A relation of the given row type (a delta relation). */
  static class Relation extends AbstractTable {
    private final Function<RelDataTypeFactory, RelDataType> rowType;

    Relation(Function<RelDataTypeFactory, RelDataType> rowType) {
      this.rowType = rowType;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
      return rowType.apply(types);
    }
  }

  private static RelDataType orders(RelDataTypeFactory types) {
    return types
        .builder()
        .add("id", SqlTypeName.INTEGER)
        .add("customer", SqlTypeName.VARCHAR)
        .add("amount", types.createSqlType(SqlTypeName.DECIMAL, 10, 2))
        .build();
  }

  private static RelDataType customers(RelDataTypeFactory types) {
    return types
        .builder()
        .add("name", SqlTypeName.VARCHAR)
        .add("region", SqlTypeName.VARCHAR)
        .build();
  }

  /**
   * {@code main.orders} and {@code main.customers}, both changing, with {@code ordersDelta} as the
   * delta relation of orders.
   */
  private static SchemaPlus schema(Function<RelDataTypeFactory, RelDataType> ordersDelta) {
    SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
    SchemaPlus main = root.add("main", new AbstractSchema());
    main.add("orders", new Changing("orders", OrdinaryTablesTest::orders));
    main.add("customers", new Changing("customers", OrdinaryTablesTest::customers));
    SchemaPlus temp = root.add("temp", new AbstractSchema());
    temp.add("orders_delta", new Relation(ordersDelta));
    temp.add(
        "customers_delta",
        new Relation(types -> ChangeOf.weightedRowType(types, customers(types))));
    return main;
  }

  private static SchemaPlus schema() {
    return schema(types -> ChangeOf.weightedRowType(types, orders(types)));
  }

  private static final String JOIN =
      "SELECT o.id, c.region FROM orders o JOIN customers c ON o.customer = c.name";

  /**
   * An insert-only change of one side of a join: the rule that prunes a term by a foreign key asks
   * the tables for their referential constraints, which ordinary tables give as null (none).
   */
  @Test
  void insertOnlyChangeOfAJoinOverTablesWithoutConstraints() throws Exception {
    MaintainedView view = IvmCompiler.duckDb(schema()).compile("regions", JOIN);
    List<String> orders = List.of("main", "orders");
    for (JoinStrategy joins : List.of(JoinStrategy.TELESCOPING, JoinStrategy.INCLUSION_EXCLUSION)) {
      DeltaProgram delta =
          view.delta(new Change(ImmutableSet.of(orders), ImmutableSet.of(orders), joins));
      assertThat(delta.sql())
          .contains("\"temp\".\"orders_delta\"")
          .doesNotContain("customers_delta");
    }
  }

  /**
   * A view compiled from a plan of Calcite's own planner ({@link Frameworks#getPlanner}), whose
   * delta is derived on another thread than the one that planned it.
   */
  @Test
  void viewCompiledFromAPlanOfCalcitesPlannerDerivesItsDeltaOnAnotherThread() throws Exception {
    FrameworkConfig config =
        Frameworks.newConfigBuilder()
            .defaultSchema(schema())
            .parserConfig(SqlParser.config().withCaseSensitive(false))
            .build();
    Planner planner = Frameworks.getPlanner(config);
    SqlNode parsed = planner.parse(JOIN);
    RelNode plan = planner.rel(planner.validate(parsed)).project();
    MaintainedView view = IvmCompiler.ofPlans(SqlTarget.duckDb()).compile("regions", plan);
    ExecutorService other = Executors.newSingleThreadExecutor();
    try {
      Future<String> sql =
          other.submit(
              () -> view.delta(Change.of(JoinStrategy.TELESCOPING, view.baseTables())).sql());
      assertThat(sql.get(60, TimeUnit.SECONDS))
          .contains("orders_delta")
          .contains("customers_delta");
    } finally {
      other.shutdown();
    }
  }

  /** A change naming a table the view does not read is refused, naming the view's tables. */
  @Test
  void changeOfATableTheViewDoesNotReadIsRefused() throws Exception {
    MaintainedView view = IvmCompiler.duckDb(schema()).compile("regions", JOIN);
    assertThatThrownBy(
            () -> view.delta(Change.of(JoinStrategy.TELESCOPING, List.of(List.of("orders")))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the change names table [orders], which view regions does not read")
        .hasMessageContaining("[[main, orders], [main, customers]]");
  }

  /**
   * A delta relation of another row type than the table's columns and the weight (other
   * nullability, an INTEGER weight, no weight) is refused, saying what is expected.
   */
  @Test
  void deltaRelationOfAnotherRowTypeIsRefused() throws Exception {
    List<Function<RelDataTypeFactory, RelDataType>> wrong =
        List.of(
            // nullability: a NOT NULL id
            types ->
                types
                    .builder()
                    .add("id", SqlTypeName.INTEGER)
                    .add("customer", SqlTypeName.VARCHAR)
                    .nullable(true)
                    .add("amount", types.createSqlType(SqlTypeName.DECIMAL, 10, 2))
                    .nullable(true)
                    .add("_ivm_weight", SqlTypeName.BIGINT)
                    .build(),
            // an INTEGER weight
            types ->
                types
                    .builder()
                    .addAll(orders(types).getFieldList())
                    .add("_ivm_weight", SqlTypeName.INTEGER)
                    .build(),
            // no weight
            OrdinaryTablesTest::orders);
    for (Function<RelDataTypeFactory, RelDataType> delta : wrong) {
      MaintainedView view =
          IvmCompiler.duckDb(schema(delta))
              .compile("big", "SELECT customer, amount FROM orders WHERE amount > 100");
      assertThatThrownBy(() -> view.delta(Change.of(JoinStrategy.TELESCOPING, view.baseTables())))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("the delta relation [temp, orders_delta] of table [main, orders]")
          .hasMessageContaining("but must have")
          .hasMessageContaining("_ivm_weight BIGINT NOT NULL");
    }
  }
}
