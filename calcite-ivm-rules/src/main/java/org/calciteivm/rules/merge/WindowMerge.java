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
import org.calciteivm.rules.analysis.WindowPartitions;
import org.calciteivm.rules.sql.SqlUnparser;

/**
 * The refresh of a view with window functions: the partitions of the window's input that its change
 * touches are recomputed, and their rows replace the view's rows of those partitions.
 *
 * <p>Identity: a window function's value for a row depends only on the rows of its partition, so
 * {@code ΔV = V'|P - V|P}, where {@code P} is the set of partition key values the input's change
 * touches (its rows before and after), {@code V'|P} the view's query over the input's rows of those
 * partitions (the current state, restricted by a join with {@code P}) and {@code V|P} the stored
 * rows of those partitions. The difference is consolidated, so rows whose window values did not
 * change cancel, and the view delta is merged as a bag view's ({@link BagMerge#counted}). Without
 * partition keys that the view outputs, {@code P} is everything: the view is recomputed.
 */
public final class WindowMerge {
  private WindowMerge() {}

  private static final SqlUnparser UNPARSER = SqlUnparser.duckDb();

  /**
   * The plan whose change gives the touched partitions: the window's input projected to the
   * partition keys (or the input itself, where a refresh recomputes everything).
   */
  public static RelNode touchedPartitions(WindowPartitions windows) {
    RelNode input = windows.window().getInput();
    if (windows.inputKeys().isEmpty()) {
      return input;
    }
    RelBuilder builder = IvmRelBuilders.create(input.getCluster());
    builder.push(input);
    builder.project(windows.inputKeys().stream().map(builder::field).toList());
    return builder.build();
  }

  /**
   * The statements that apply the change of {@code touched} (the delta plan of {@link
   * #touchedPartitions}) to {@code view}, stored in {@code table} with {@code columns}: the touched
   * partitions into a temporary table, then the view delta merged as {@code BAG_COUNTED}.
   */
  public static ImmutableList<String> statements(
      RelNode view,
      WindowPartitions windows,
      RelNode touched,
      String table,
      List<String> columns,
      String deltaTable,
      List<Integer> rowKey) {
    ImmutableList.Builder<String> statements = ImmutableList.builder();
    String recompute;
    String old;
    if (windows.inputKeys().isEmpty()) {
      recompute = UNPARSER.toSql(view);
      old = "SELECT * FROM " + table;
    } else {
      String partitions = deltaTable + "_partitions";
      String keys = names("p", windows.inputKeys().size());
      statements.add(
          "CREATE OR REPLACE TEMP TABLE "
              + IvmNames.quote(partitions)
              + " AS SELECT DISTINCT "
              + keys
              + " FROM ("
              + UNPARSER.toSql(touched)
              + ") AS d("
              + keys
              + ", w)");
      recompute = UNPARSER.toSql(restricted(view, windows, partitions));
      List<String> same = new ArrayList<>();
      for (int i = 0; i < windows.viewKeys().size(); i++) {
        same.add(
            "p.p"
                + (i + 1)
                + " IS NOT DISTINCT FROM s."
                + IvmNames.quote(columns.get(windows.viewKeys().get(i))));
      }
      old =
          "SELECT * FROM "
              + table
              + " AS s WHERE EXISTS (SELECT 1 FROM "
              + IvmNames.quote(partitions)
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
   * {@code view} with the window's input restricted to the rows of the partitions in the temporary
   * table {@code partitions} (joined {@code IS NOT DISTINCT FROM} on the keys).
   */
  private static RelNode restricted(RelNode view, WindowPartitions windows, String partitions) {
    Project window = windows.window();
    RelNode input = window.getInput();
    RelBuilder builder = IvmRelBuilders.withSchemaOf(view);
    RelDataTypeFactory types = builder.getTypeFactory();
    RelDataTypeFactory.Builder keyType = types.builder();
    for (int i = 0; i < windows.inputKeys().size(); i++) {
      RelDataType type =
          input.getRowType().getFieldList().get(windows.inputKeys().get(i)).getType();
      keyType.add("p" + (i + 1), types.createTypeWithNullability(type, true));
    }
    builder.push(input);
    IvmRelBuilders.joinKeysIn(builder, windows.inputKeys(), partitions, keyType.build());
    int width = input.getRowType().getFieldCount();
    builder.project(builder.fields().subList(0, width), input.getRowType().getFieldNames(), true);
    RelNode rows = builder.build();
    // Calcite casts a windowed SUM to its argument's type; DuckDB sums integers as HUGEINT, so the
    // cast would overflow where the user's query does not
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
    return replaced(
        view, window, window.copy(window.getTraitSet(), rows, projects, window.getRowType()));
  }

  /** {@code rel} with {@code target} (a node of its single-input spine) replaced. */
  private static RelNode replaced(RelNode rel, RelNode target, RelNode replacement) {
    if (rel == target) {
      return replacement;
    }
    return rel.copy(rel.getTraitSet(), List.of(replaced(rel.getInput(0), target, replacement)));
  }
}
