package org.calciteivm.rules;

import java.util.List;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.calciteivm.rules.delta.ChangingTable;
import org.calciteivm.rules.delta.LogicalDelta;

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
      return LogicalDelta.weightedRowType(f, new Orders().getRowType(f));
    }
  }

  /** A table of {@code customers(id INTEGER, name VARCHAR)} that is not changing. */
  static class Customers extends AbstractTable {
    @Override
    public RelDataType getRowType(RelDataTypeFactory f) {
      return f.builder().add("id", SqlTypeName.INTEGER).add("name", SqlTypeName.VARCHAR).build();
    }
  }

  /** A root schema with {@code main.orders} and {@code temp.orders_delta}; returns main. */
  static SchemaPlus ordersSchema() {
    SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
    SchemaPlus main = root.add("main", new AbstractSchema());
    main.add("orders", new Orders());
    main.add("customers", new Customers());
    SchemaPlus temp = root.add("temp", new AbstractSchema());
    temp.add("orders_delta", new OrdersDelta());
    return main;
  }
}
