package org.calciteivm.rules.analysis;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.avatica.util.TimeUnit;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rex.RexCall;
import org.apache.calcite.rex.RexDigestIncludeType;
import org.apache.calcite.rex.RexInputRef;
import org.apache.calcite.rex.RexLiteral;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.sql.SqlBinaryOperator;
import org.apache.calcite.sql.SqlIntervalQualifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlSyntax;
import org.apache.calcite.sql.type.SqlTypeFamily;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * An expression of a plan written back roughly as SQL, with column names instead of Calcite's
 * {@code $n}, for messages that name the user's expression: {@code CAST(tz AS DATE)} rather than
 * {@code CAST($4):DATE NOT NULL}.
 */
final class ExpressionText {
  private ExpressionText() {}

  /** {@code node}, whose input references point at the fields {@code input}, as SQL-like text. */
  static String of(RexNode node, List<String> input) {
    if (node instanceof RexInputRef ref) {
      return ref.getIndex() < input.size() ? input.get(ref.getIndex()) : ref.toString();
    }
    if (node instanceof RexLiteral literal) {
      return literal(literal);
    }
    if (!(node instanceof RexCall call)) {
      return node.toString();
    }
    // operands of an operator written between or beside them are parenthesized if they are too
    SqlSyntax syntax = call.getOperator().getSyntax();
    boolean operator = binary(call) || syntax == SqlSyntax.PREFIX || syntax == SqlSyntax.POSTFIX;
    List<String> args = new ArrayList<>();
    for (RexNode operand : call.getOperands()) {
      String text = of(operand, input);
      args.add(
          operator && operand instanceof RexCall inner && binary(inner) ? "(" + text + ")" : text);
    }
    String name = call.getOperator().getName();
    switch (call.getKind()) {
      case CAST:
        return "CAST(" + of(call.getOperands().get(0), input) + " AS " + type(call.getType()) + ")";
      case SAFE_CAST:
        // Calcite's name of DuckDB's TRY_CAST
        return "TRY_CAST("
            + of(call.getOperands().get(0), input)
            + " AS "
            + type(call.getType())
            + ")";
      case EXTRACT:
        return "EXTRACT(" + args.get(0) + " FROM " + args.get(1) + ")";
      case CASE:
        StringBuilder text = new StringBuilder("CASE");
        for (int i = 0; i + 1 < args.size(); i += 2) {
          text.append(" WHEN ").append(args.get(i)).append(" THEN ").append(args.get(i + 1));
        }
        return text.append(" ELSE ").append(args.get(args.size() - 1)).append(" END").toString();
      default:
        break;
    }
    if (binary(call)) {
      return args.get(0) + " " + name + " " + args.get(1);
    }
    if (syntax == SqlSyntax.POSTFIX && args.size() == 1) {
      return args.get(0) + " " + name;
    }
    if (syntax == SqlSyntax.PREFIX && args.size() == 1) {
      return name + " " + args.get(0);
    }
    return name + "(" + String.join(", ", args) + ")";
  }

  private static boolean binary(RexCall call) {
    return call.getOperator() instanceof SqlBinaryOperator
        && call.getOperands().size() == 2
        && call.getKind() != SqlKind.CAST;
  }

  private static String literal(RexLiteral literal) {
    if (literal.isNull()) {
      return "NULL";
    }
    if (literal.getTypeName() == SqlTypeName.SYMBOL) {
      return String.valueOf(literal.getValue()); // EXTRACT's unit
    }
    SqlIntervalQualifier interval = literal.getType().getIntervalQualifier();
    if (interval != null && literal.getValue() instanceof BigDecimal amount) {
      // Calcite keeps intervals in milliseconds or months; written in their own unit
      TimeUnit unit = interval.getStartUnit();
      BigDecimal count = amount.divide(unit.multiplier, MathContext.DECIMAL64).stripTrailingZeros();
      return "INTERVAL '" + count.toPlainString() + "' " + unit.name();
    }
    String value = literal.computeDigest(RexDigestIncludeType.NO_TYPE);
    RelDataType type = literal.getType();
    if (SqlTypeFamily.DATETIME.contains(type) || SqlTypeFamily.TIMESTAMP.contains(type)) {
      return type(type) + " '" + value + "'";
    }
    return value;
  }

  /** A type as DuckDB spells it where the two differ (zoned types), else as Calcite does. */
  static String type(RelDataType type) {
    SqlTypeName name = type.getSqlTypeName();
    switch (name) {
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
      case TIMESTAMP_TZ:
        return "TIMESTAMP WITH TIME ZONE";
      case TIME_WITH_LOCAL_TIME_ZONE:
      case TIME_TZ:
        return "TIME WITH TIME ZONE";
      case CHAR:
      case VARCHAR:
        return "VARCHAR";
      case DECIMAL:
        return "DECIMAL(" + type.getPrecision() + ", " + type.getScale() + ")";
      default:
        return name.getSpaceName();
    }
  }
}
