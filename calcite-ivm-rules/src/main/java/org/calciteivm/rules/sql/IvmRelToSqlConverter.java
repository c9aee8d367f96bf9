package org.calciteivm.rules.sql;

import org.apache.calcite.rel.core.Correlate;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.rel2sql.RelToSqlConverter;
import org.apache.calcite.sql.JoinConditionType;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlDialect;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.parser.SqlParserPos;

/**
 * Calcite's converter of plans to SQL, with a left {@link Correlate} written as a left join:
 * Calcite writes every correlate as {@code left, LATERAL (right)}, an inner one, so that a left row
 * whose right side is empty ({@code LEFT JOIN LATERAL unnest(xs) ON TRUE} of an empty list) was
 * lost.
 */
public final class IvmRelToSqlConverter extends RelToSqlConverter {
  /** A converter to {@code dialect}. */
  public IvmRelToSqlConverter(SqlDialect dialect) {
    super(dialect);
  }

  /** Visits a Correlate; called by {@link #dispatch} via reflection, as Calcite's own. */
  @Override
  public Result visit(Correlate e) {
    Result result = super.visit(e);
    if (e.getJoinType() == JoinRelType.LEFT && result.asFrom() instanceof SqlJoin join) {
      join.setOperand(2, JoinType.LEFT.symbol(SqlParserPos.ZERO));
      join.setOperand(4, JoinConditionType.ON.symbol(SqlParserPos.ZERO));
      join.setOperand(5, SqlLiteral.createBoolean(true, SqlParserPos.ZERO));
    }
    return result;
  }
}
