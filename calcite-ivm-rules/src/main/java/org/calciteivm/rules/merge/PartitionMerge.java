package org.calciteivm.rules.merge;

import com.google.common.collect.ImmutableList;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Project;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexOver;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.type.SqlTypeUtil;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.ZSets;
import org.calciteivm.rules.IvmRelBuilders;
import org.calciteivm.rules.analysis.RecomputedPartitions;
import org.calciteivm.rules.sql.SqlUnparser;

/**
 * The refresh of a view kept by recomputing partitions ({@link RecomputedPartitions}: window
 * functions, {@code INTERSECT ALL}, {@code EXCEPT ALL}): the partitions of the operator's input
 * that its change touches are recomputed, and their rows replace the view's rows of those
 * partitions.
 *
 * <p>Identity: an output row of the operator depends only on the input rows of its partition, so
 * {@code ΔV = V'|P - V|P}, where {@code P} is the set of partition key values the inputs' change
 * touches (its rows before and after), {@code V'|P} the view's query over the inputs' rows of those
 * partitions (the current state, each input restricted by a join with {@code P}) and {@code V|P}
 * the stored rows of those partitions. The difference is consolidated, so rows whose values did not
 * change cancel, and the view delta is merged as a bag view's ({@link BagMerge#counted}). Without
 * partition keys that the view outputs, {@code P} is everything: the view is recomputed (its top
 * rows by a sort that keeps only them, {@link TopRowFilters}).
 */
public final class PartitionMerge {
  private PartitionMerge() {}

  private static final SqlUnparser UNPARSER = SqlUnparser.duckDb();

  /**
   * The plan whose change gives the touched partitions: the partitioned inputs projected to the
   * partition keys (or the inputs themselves, where a refresh recomputes everything), in one {@code
   * UNION ALL}.
   */
  public static RelNode touchedPartitions(RecomputedPartitions partitions) {
    List<RelNode> inputs = partitions.partitionedInputs();
    RelBuilder builder = IvmRelBuilders.create(partitions.operator().getCluster());
    for (RelNode input : inputs) {
      builder.push(input);
      if (!partitions.inputKeys().isEmpty()) {
        builder.project(partitions.inputKeys().stream().map(builder::field).toList());
      }
    }
    if (inputs.size() > 1) {
      builder.union(true, inputs.size());
    }
    return builder.build();
  }

  /**
   * The statements that apply the change of {@code touched} (the delta plan of {@link
   * #touchedPartitions}) to {@code view}, stored in {@code table} with {@code columns}: the touched
   * partitions into a temporary table, then the view delta merged as {@code BAG_COUNTED}.
   */
  public static ImmutableList<String> statements(
      RelNode view,
      RecomputedPartitions partitions,
      RelNode touched,
      String table,
      List<String> columns,
      String deltaTable,
      List<Integer> rowKey) {
    ImmutableList.Builder<String> statements = ImmutableList.builder();
    String recompute;
    String old;
    if (partitions.inputKeys().isEmpty()) {
      RelNode topRows = TopRowFilters.asSort(view);
      recompute = UNPARSER.toSql(topRows == null ? view : topRows);
      old = "SELECT * FROM " + table;
    } else {
      String partitionTable = deltaTable + "_partitions";
      String keys = names("p", partitions.inputKeys().size());
      statements.add(
          "CREATE OR REPLACE TEMP TABLE "
              + IvmNames.quote(partitionTable)
              + " AS SELECT DISTINCT "
              + keys
              + " FROM ("
              + UNPARSER.toSql(touched)
              + ") AS d("
              + keys
              + ", w)");
      recompute = UNPARSER.toSql(restricted(view, partitions, partitionTable));
      List<String> same = new ArrayList<>();
      for (int i = 0; i < partitions.viewKeys().size(); i++) {
        same.add(
            "p.p"
                + (i + 1)
                + " IS NOT DISTINCT FROM s."
                + IvmNames.quote(columns.get(partitions.viewKeys().get(i))));
      }
      old =
          "SELECT * FROM "
              + table
              + " AS s WHERE EXISTS (SELECT 1 FROM "
              + IvmNames.quote(partitionTable)
              + " AS p WHERE "
              + String.join(" AND ", same)
              + ")";
    }
    String tuple =
        IntStream.range(0, columns.size())
            .mapToObj(i -> IvmNames.quote(BagMerge.deltaColumn(i)))
            .collect(Collectors.joining(", "));
    String viewDelta =
        "SELECT "
            + tuple
            + ", CAST(SUM(w) AS BIGINT) AS "
            + IvmNames.quote(ZSets.WEIGHT_COLUMN)
            + " FROM (SELECT *, 1 AS w FROM ("
            + recompute
            + ") AS r("
            + tuple
            + ") UNION ALL SELECT *, -1 AS w FROM ("
            + old
            + ") AS o("
            + tuple
            + ")) AS z GROUP BY "
            + tuple
            + " HAVING SUM(w) <> 0";
    statements.addAll(
        BagMerge.counted(table, columns, IvmNames.quote(deltaTable), viewDelta, rowKey));
    return statements.build();
  }

  /** {@code prefix1, prefix2, ...}. */
  private static String names(String prefix, int count) {
    return IntStream.rangeClosed(1, count)
        .mapToObj(i -> prefix + i)
        .collect(Collectors.joining(", "));
  }

  /**
   * {@code view} with each partitioned input restricted to the rows of the partitions in the
   * temporary table {@code partitionTable} (joined {@code IS NOT DISTINCT FROM} on the keys).
   */
  private static RelNode restricted(
      RelNode view, RecomputedPartitions partitions, String partitionTable) {
    RelBuilder builder = IvmRelBuilders.withSchemaOf(view);
    RelNode operator = partitions.operator();
    RelNode restricted;
    if (operator instanceof Project window) {
      RelNode rows = restricted(builder, window.getInput(), partitions, partitionTable);
      // Calcite casts a windowed SUM to its argument's type; DuckDB sums integers as HUGEINT, so
      // the cast would overflow where the user's query does not
      RexShuttle uncast =
          new RexShuttle() {
            @Override
            public RexNode visitCall(RexCall call) {
              if (call.getKind() == SqlKind.CAST
                  && call.getOperands().get(0) instanceof RexOver over
                  && SqlTypeUtil.isExactNumeric(call.getType())) {
                return over;
              }
              return super.visitCall(call);
            }
          };
      List<RexNode> projects = window.getProjects().stream().map(e -> e.accept(uncast)).toList();
      restricted = window.copy(window.getTraitSet(), rows, projects, window.getRowType());
    } else {
      restricted = restrictedSetOp(builder, operator, partitions, partitionTable);
    }
    return replaced(view, operator, restricted);
  }

  /** The bag set operation {@code setOp} with each of its partitioned inputs restricted. */
  private static RelNode restrictedSetOp(
      RelBuilder builder, RelNode setOp, RecomputedPartitions partitions, String partitionTable) {
    List<RelNode> inputs = new ArrayList<>();
    for (RelNode input : setOp.getInputs()) {
      inputs.add(
          partitions.partitionedInputs().contains(input)
              ? restricted(builder, input, partitions, partitionTable)
              : restrictedSetOp(builder, input, partitions, partitionTable));
    }
    return setOp.copy(setOp.getTraitSet(), inputs);
  }

  /** {@code input}'s rows of the partitions in {@code partitionTable}. */
  private static RelNode restricted(
      RelBuilder builder, RelNode input, RecomputedPartitions partitions, String partitionTable) {
    RelDataTypeFactory types = builder.getTypeFactory();
    RelDataTypeFactory.Builder keyType = types.builder();
    for (int i = 0; i < partitions.inputKeys().size(); i++) {
      RelDataType type =
          input.getRowType().getFieldList().get(partitions.inputKeys().get(i)).getType();
      keyType.add("p" + (i + 1), types.createTypeWithNullability(type, true));
    }
    builder.push(input);
    IvmRelBuilders.joinKeysIn(builder, partitions.inputKeys(), partitionTable, keyType.build());
    int width = input.getRowType().getFieldCount();
    builder.project(builder.fields().subList(0, width), input.getRowType().getFieldNames(), true);
    return builder.build();
  }

  /** {@code rel} with {@code target} (a node of its single-input spine) replaced. */
  private static RelNode replaced(RelNode rel, RelNode target, RelNode replacement) {
    if (rel == target) {
      return replacement;
    }
    return rel.copy(rel.getTraitSet(), List.of(replaced(rel.getInput(0), target, replacement)));
  }
}
