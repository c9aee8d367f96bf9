package org.calciteivm.rules.frontend;

import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql2rel.SqlRexConvertlet;
import org.apache.calcite.sql2rel.SqlRexConvertletTable;
import org.apache.calcite.sql2rel.StandardConvertletTable;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Calcite's convertlets, except that {@code greatest} and {@code least} stay calls of those
 * functions. Calcite writes them as a {@code CASE} over {@code <} and {@code >}, which equals the
 * engine's function only where the comparison is the function's order: DuckDB compares INTERVALs
 * normalized ({@code 1 day 25:00:00 > 2 days}) but its {@code least} and {@code greatest} do not,
 * so a refresh stored the other of two such intervals than the view's query.
 */
final class EngineConvertlets implements SqlRexConvertletTable {
  static final EngineConvertlets INSTANCE = new EngineConvertlets();

  private EngineConvertlets() {}

  @Override
  public @Nullable SqlRexConvertlet get(SqlCall call) {
    return switch (call.getKind()) {
      case GREATEST, LEAST, GREATEST_PG, LEAST_PG -> EngineConvertlets::asCall;
      default -> StandardConvertletTable.INSTANCE.get(call);
    };
  }

  private static RexNode asCall(org.apache.calcite.sql2rel.SqlRexContext context, SqlCall call) {
    List<RexNode> operands = new ArrayList<>();
    for (SqlNode operand : call.getOperandList()) {
      operands.add(context.convertExpression(operand));
    }
    return context
        .getRexBuilder()
        .makeCall(context.getValidator().getValidatedNodeType(call), call.getOperator(), operands);
  }
}
