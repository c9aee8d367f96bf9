package org.calciteivm.rules.frontend;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.calcite.rel.RelHomogeneousShuttle;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexFieldAccess;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.rex.RexShuttle;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperatorBinding;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.util.SqlShuttle;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * DuckDB's {@code struct_pack(a => x, b => y)}, a struct of named fields (its literal {@code {'a':
 * x, 'b': y}} and its other spelling {@code a := x} are written so at CREATE), for Calcite: a call
 * of {@link #STRUCT_PACK} whose operands alternate each field's name, a character literal, and its
 * value, typed as the row of those fields. Calcite's validator reads named arguments only of
 * functions that declare their parameters, which {@code struct_pack} cannot (any names, any
 * number), so the parsed call is made positional before validation ({@link #positional}); the SQL
 * written back for DuckDB names the fields again ({@code
 * org.calciteivm.rules.sql.IvmDuckDbDialect}).
 */
public final class StructPacks {
  private StructPacks() {}

  /** {@code struct_pack('a', x, 'b', y)}: the struct of fields {@code a} and {@code b}. */
  public static final SqlFunction STRUCT_PACK =
      new SqlFunction(
          "struct_pack",
          SqlKind.OTHER_FUNCTION,
          StructPacks::rowType,
          null,
          OperandTypes.VARIADIC,
          SqlFunctionCategory.SYSTEM);

  private static RelDataType rowType(SqlOperatorBinding binding) {
    List<String> names = new ArrayList<>();
    List<RelDataType> types = new ArrayList<>();
    for (int i = 0; i + 1 < binding.getOperandCount(); i += 2) {
      names.add(binding.getOperandLiteralValue(i, String.class));
      types.add(binding.getOperandType(i + 1));
    }
    return binding.getTypeFactory().createStructType(types, names);
  }

  /** The field names of a call of {@link #STRUCT_PACK}, its operands at even positions. */
  public static List<String> fieldNames(SqlCall call) {
    List<String> names = new ArrayList<>();
    for (int i = 0; i + 1 < call.operandCount(); i += 2) {
      names.add(((SqlLiteral) call.operand(i)).getValueAs(String.class));
    }
    return names;
  }

  /**
   * {@code parsed} with each {@code struct_pack} whose arguments are all named written as a call of
   * {@link #STRUCT_PACK}.
   */
  public static SqlNode positional(SqlNode parsed) {
    SqlNode result =
        parsed.accept(
            new SqlShuttle() {
              @Override
              public @Nullable SqlNode visit(SqlCall call) {
                SqlCall visited = (SqlCall) super.visit(call);
                SqlCall packed = visited == null ? null : packed(visited);
                return packed != null ? packed : visited;
              }
            });
    return result == null ? parsed : result;
  }

  private static @Nullable SqlCall packed(SqlCall call) {
    if (!call.getOperator().getName().toLowerCase(Locale.ROOT).equals("struct_pack")
        || call.getOperator() == STRUCT_PACK
        || call.operandCount() == 0) {
      return null;
    }
    List<SqlNode> operands = new ArrayList<>();
    for (SqlNode operand : call.getOperandList()) {
      if (!(operand instanceof SqlCall named
          && named.getKind() == SqlKind.ARGUMENT_ASSIGNMENT
          && named.operand(1) instanceof SqlIdentifier name)) {
        return null; // DuckDB's parser refuses unnamed fields, and so does Calcite's validator
      }
      operands.add(SqlLiteral.createCharString(name.getSimple(), name.getParserPosition()));
      operands.add(named.operand(0));
    }
    return new SqlBasicCall(STRUCT_PACK, operands, call.getParserPosition());
  }

  /**
   * {@code plan} with each field read from a struct it packs ({@code struct_pack(a => x).a}) as the
   * field's value ({@code x}): Calcite writes SQL for a field of a column only.
   */
  public static RelNode fieldsRead(RelNode plan) {
    RexBuilder rexBuilder = plan.getCluster().getRexBuilder();
    RexShuttle fields =
        new RexShuttle() {
          @Override
          public RexNode visitFieldAccess(RexFieldAccess access) {
            RexNode struct = access.getReferenceExpr().accept(this);
            if (struct instanceof RexCall call && call.getOperator() == STRUCT_PACK) {
              RexNode value = call.getOperands().get(2 * access.getField().getIndex() + 1);
              return rexBuilder.ensureType(access.getType(), value, true);
            }
            return struct == access.getReferenceExpr()
                ? access
                : rexBuilder.makeFieldAccess(struct, access.getField().getIndex());
          }
        };
    return plan.accept(
        new RelHomogeneousShuttle() {
          @Override
          public RelNode visit(RelNode other) {
            return super.visit(other).accept(fields);
          }
        });
  }

  /** Writes {@code call}, a call of {@link #STRUCT_PACK}, as DuckDB reads it: fields named. */
  public static void unparse(SqlWriter writer, SqlCall call) {
    writer.print("struct_pack");
    SqlWriter.Frame frame = writer.startList("(", ")");
    List<String> names = fieldNames(call);
    for (int i = 0; i < names.size(); i++) {
      writer.sep(",");
      writer.identifier(names.get(i), true);
      writer.print(" => ");
      call.operand(2 * i + 1).unparse(writer, 0, 0);
    }
    writer.endList(frame);
  }
}
