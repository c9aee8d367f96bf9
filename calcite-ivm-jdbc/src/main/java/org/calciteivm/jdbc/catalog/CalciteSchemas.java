package org.calciteivm.jdbc.catalog;

import java.util.Collection;
import java.util.List;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.calciteivm.core.IvmNames;
import org.calciteivm.rules.delta.ChangingTable;
import org.calciteivm.rules.delta.LogicalDelta;

/**
 * Builds the Calcite schema that views are planned in, from DuckDB's catalog.
 *
 * <p>Each DuckDB schema becomes a sub-schema of the root with its tables and views. A tracked table
 * is a {@link ChangingTable} whose delta relation is its pending table in the {@code temp} schema
 * (filled by each refresh); the delta tables themselves are in the {@link IvmNames#SCHEMA} schema,
 * with their epoch column.
 */
public final class CalciteSchemas {
  private CalciteSchemas() {}

  /** The root schema for {@code catalog}, in which {@code tracked} tables are changing. */
  public static SchemaPlus build(DuckDbCatalog catalog, Collection<TrackedTable> tracked) {
    SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
    SchemaPlus temp = root.add("temp", new AbstractSchema());
    SchemaPlus internal = root.add(IvmNames.SCHEMA, new AbstractSchema());
    for (Relation relation : catalog.relations()) {
      SchemaPlus schema = root.getSubSchema(relation.schema());
      if (schema == null) {
        schema = root.add(relation.schema(), new AbstractSchema());
      }
      TrackedTable table =
          tracked.stream()
              .filter(t -> t.relation().qualifiedName().equals(relation.qualifiedName()))
              .findFirst()
              .orElse(null);
      if (table == null) {
        schema.add(relation.name(), new DuckDbTable(relation));
      } else {
        schema.add(relation.name(), new DuckDbChangingTable(relation, table));
        temp.add(IvmNames.pendingTable(table.id()), new ZSetTable(relation, false));
        internal.add(
            IvmNames.deltaTable(table.id(), relation.name()), new ZSetTable(relation, true));
      }
    }
    if (root.getSubSchema("main") == null) {
      root.add("main", new AbstractSchema());
    }
    return root;
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

  /** A DuckDB table or view as Calcite sees it: a row type, nothing to execute. */
  static class DuckDbTable extends AbstractTable {
    final Relation relation;

    DuckDbTable(Relation relation) {
      this.relation = relation;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory factory) {
      return rowType(factory, relation);
    }
  }

  /** A tracked base table. */
  static final class DuckDbChangingTable extends DuckDbTable implements ChangingTable {
    private final TrackedTable table;

    DuckDbChangingTable(Relation relation, TrackedTable table) {
      super(relation);
      this.table = table;
    }

    @Override
    public List<String> deltaTableName() {
      return List.of("temp", IvmNames.pendingTable(table.id()));
    }
  }

  /**
   * A Z-set of a table's rows: its columns and a weight, and for a delta table also the epoch the
   * rows were sealed into.
   */
  static final class ZSetTable extends DuckDbTable {
    private final boolean withEpoch;

    ZSetTable(Relation relation, boolean withEpoch) {
      super(relation);
      this.withEpoch = withEpoch;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory factory) {
      RelDataType weighted = LogicalDelta.weightedRowType(factory, rowType(factory, relation));
      if (!withEpoch) {
        return weighted;
      }
      return factory
          .builder()
          .addAll(weighted.getFieldList())
          .add(IvmNames.EPOCH_COLUMN, LogicalDelta.weightType(factory))
          .nullable(true)
          .build();
    }
  }
}
