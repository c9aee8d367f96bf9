package org.calciteivm.rules;

import java.util.List;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.rel.RelReferentialConstraintImpl;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.Statistic;
import org.apache.calcite.schema.Statistics;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.mapping.IntPair;
import org.calciteivm.rules.delta.ChangeOf;
import org.calciteivm.rules.delta.ChangingTable;

/** Small Calcite schemas for rule tests: no database, only row types. */
final class TestSchemas {
  private TestSchemas() {}

  /** A table of {@code orders(id INTEGER, status VARCHAR, amount DECIMAL(10,2))}. */
  static class Orders extends AbstractTable implements ChangingTable {
    @Override
    public RelDataType getRowType(RelDataTypeFactory f) {
      return f.builder()
          .add("id", SqlTypeName.INTEGER)
          .add("status", SqlTypeName.VARCHAR)
          .nullable(true)
          .add("amount", f.createSqlType(SqlTypeName.DECIMAL, 10, 2))
          .nullable(true)
          .build();
    }

    @Override
    public List<String> deltaTableName() {
      return List.of("temp", "orders_delta");
    }
  }

  /** The change of {@link Orders}: its columns and a weight. */
  static class OrdersDelta extends AbstractTable {
    @Override
    public RelDataType getRowType(RelDataTypeFactory f) {
      return ChangeOf.weightedRowType(f, new Orders().getRowType(f));
    }
  }

  /** A table of {@code customers(id INTEGER, name VARCHAR)} that is not changing. */
  static class Customers extends AbstractTable {
    @Override
    public RelDataType getRowType(RelDataTypeFactory f) {
      return f.builder().add("id", SqlTypeName.INTEGER).add("name", SqlTypeName.VARCHAR).build();
    }
  }

  /**
   * A table of {@code items(order_id INTEGER, qty INTEGER)} whose delta is {@code items_delta},
   * with {@code FOREIGN KEY (order_id) REFERENCES orders (id)}.
   */
  static class Items extends AbstractTable implements ChangingTable {
    @Override
    public Statistic getStatistic() {
      return Statistics.of(
          List.of(
              RelReferentialConstraintImpl.of(
                  List.of("main", "items"), List.of("main", "orders"), List.of(IntPair.of(0, 0)))));
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory f) {
      return f.builder()
          .add("order_id", SqlTypeName.INTEGER)
          .nullable(true)
          .add("qty", SqlTypeName.INTEGER)
          .build();
    }

    @Override
    public List<String> deltaTableName() {
      return List.of("temp", "items_delta");
    }
  }

  /** The change of {@link Items}. */
  static class ItemsDelta extends AbstractTable {
    @Override
    public RelDataType getRowType(RelDataTypeFactory f) {
      return ChangeOf.weightedRowType(f, new Items().getRowType(f));
    }
  }

  /**
   * A root schema with {@code main.orders}, {@code main.items} (both changing, deltas in {@code
   * temp}) and {@code main.customers} (not changing); returns main.
   */
  static SchemaPlus ordersSchema() {
    SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
    SchemaPlus main = root.add("main", new AbstractSchema());
    main.add("orders", new Orders());
    main.add("customers", new Customers());
    SchemaPlus temp = root.add("temp", new AbstractSchema());
    temp.add("orders_delta", new OrdersDelta());
    main.add("items", new Items());
    temp.add("items_delta", new ItemsDelta());
    return main;
  }
}
