package org.calciteivm.rules.api;

import java.util.List;
import java.util.Optional;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.calciteivm.rules.delta.ChangeOf;
import org.calciteivm.rules.delta.DeltaContext;

/**
 * Where each base table's change is: the qualified name of its delta relation in the schema the
 * view is planned in, or empty for a table that never changes. Given to {@link
 * IvmCompiler#withDeltaRelations}, it lets any table ({@code JdbcTable}s, an engine's own) be
 * maintained as it is; by default ({@link #changingTables()}) tables name their delta relation by
 * implementing {@link org.calciteivm.rules.delta.ChangingTable}.
 *
 * <p>A delta relation has exactly the row type {@link #rowType} gives: the table's columns with
 * their types and nullability, then {@code _ivm_weight BIGINT NOT NULL}. It holds the change since
 * the view was last brought up to date, not necessarily consolidated.
 */
@FunctionalInterface
public interface DeltaRelations {

  /** The qualified name of the delta relation of {@code table}, or empty if it never changes. */
  Optional<List<String>> of(RelOptTable table);

  /** Tables that implement {@link org.calciteivm.rules.delta.ChangingTable} name their own. */
  static DeltaRelations changingTables() {
    return DeltaContext.CHANGING_TABLES::apply;
  }

  /** The row type a delta relation of a table of row type {@code tableType} must have. */
  static RelDataType rowType(RelDataTypeFactory types, RelDataType tableType) {
    return ChangeOf.weightedRowType(types, tableType);
  }
}
