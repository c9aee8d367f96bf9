package org.calciteivm.jdbc.refresh;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rel.type.RelDataTypeField;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.core.IvmNames;
import org.calciteivm.rules.IvmRelBuilders;
import org.calciteivm.rules.aggregate.AggregateState;
import org.calciteivm.rules.sql.SqlUnparser;

/** How users read an aggregate view: its values computed from its stored state. */
final class AggregateReads {
  private AggregateReads() {}

  private static final SqlUnparser UNPARSER = SqlUnparser.duckDb();

  /** The name the query gives the state rows it reads. */
  private static final String STATE = "_ivm_state";

  /** The name the query gives the groups' values computed from the state. */
  private static final String GROUPS = "_ivm_groups";

  /**
   * The query users read the aggregate view of {@code plan} through, over the state rows of {@code
   * stateSql}: the aggregates computed from the state (a SUM over no non-null value is NULL, an AVG
   * divides the sum by the non-null count; see {@link AggregateState#values}), then the plan above
   * the aggregate, written by the unparser; then each column cast to the type DuckDB gives the
   * view's query and named as DuckDB names it. The casts are written with DuckDB's type names,
   * which Calcite's types cannot all name (HUGEINT and DECIMAL(38,0) are one type to Calcite).
   */
  static String sql(
      RelNode plan,
      String stateSql,
      Aggregate aggregate,
      AggregateState state,
      List<DescribedColumn> columns) {
    RelBuilder builder = IvmRelBuilders.withSchemaOf(plan);
    // the stored state's row type: the state query's over the aggregate's input
    RelDataType stateType = state.stateAggregate(builder, aggregate.getInput()).getRowType();
    RelNode stored = builder.transientScan(STATE, stateType).build();
    // the groups' columns get plain names: the unparser would not keep Calcite's EXPR$0
    RelDataTypeFactory.Builder groupType = builder.getTypeFactory().builder();
    List<String> groupColumns = new ArrayList<>();
    for (RelDataTypeField field : aggregate.getRowType().getFieldList()) {
      groupColumns.add("g" + field.getIndex());
      groupType.add("g" + field.getIndex(), field.getType());
    }
    String groups = UNPARSER.toSql(state.values(builder, stored, groupColumns));
    // the plan above the aggregate reads the groups with the aggregate's own types, which may
    // differ from the values' (AVG of an INTEGER is a DOUBLE in DuckDB); DuckDB computes it all
    String above =
        plan == aggregate
            ? "SELECT * FROM " + IvmNames.quote(GROUPS)
            : UNPARSER.toSql(
                replace(plan, aggregate, builder.transientScan(GROUPS, groupType.build()).build()));
    List<String> aliases = new ArrayList<>();
    List<String> outputs = new ArrayList<>();
    for (int i = 0; i < columns.size(); i++) {
      String alias = IvmNames.quote("c" + i);
      aliases.add(alias);
      outputs.add(
          "CAST(q."
              + alias
              + " AS "
              + columns.get(i).type()
              + ") AS "
              + IvmNames.quote(columns.get(i).name()));
    }
    return "WITH "
        + IvmNames.quote(STATE)
        + " AS ("
        + stateSql
        + "), "
        + IvmNames.quote(GROUPS)
        + " AS ("
        + groups
        + ") SELECT "
        + String.join(", ", outputs)
        + " FROM ("
        + above
        + ") AS q("
        + String.join(", ", aliases)
        + ")";
  }

  /** {@code rel} with {@code target} (somewhere below it, through single inputs) replaced. */
  private static RelNode replace(RelNode rel, RelNode target, RelNode replacement) {
    if (rel == target) {
      return replacement;
    }
    return rel.copy(rel.getTraitSet(), List.of(replace(rel.getInput(0), target, replacement)));
  }
}
