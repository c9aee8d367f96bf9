package org.calciteivm.rules.sql;

import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlLambda;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.util.SqlShuttle;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Lambdas written the way DuckDB reads them: {@code lambda x, y: body}. Calcite writes {@code (x,
 * y) -> body}, which DuckDB 2.0 refuses as deprecated, and {@link SqlLambda} writes itself without
 * asking the dialect, so each is replaced by one that writes DuckDB's form.
 */
final class DuckDbLambdas {
  private DuckDbLambdas() {}

  /** {@code statement} with every lambda written in DuckDB's form. */
  static SqlNode write(SqlNode statement) {
    SqlNode written =
        statement.accept(
            new SqlShuttle() {
              @Override
              public @Nullable SqlNode visit(SqlCall call) {
                if (call instanceof SqlLambda lambda) {
                  SqlNode body = lambda.getExpression().accept(this);
                  return new DuckDbLambda(
                      lambda.getParameters(), body == null ? lambda.getExpression() : body);
                }
                return super.visit(call);
              }
            });
    return written == null ? statement : written;
  }

  /** A lambda that writes itself as {@code lambda x, y: body}. */
  private static final class DuckDbLambda extends SqlLambda {
    DuckDbLambda(SqlNodeList parameters, SqlNode body) {
      super(parameters.getParserPosition(), parameters, body);
    }

    @Override
    public void unparse(SqlWriter writer, int leftPrec, int rightPrec) {
      SqlWriter.Frame frame = writer.startList("(", ")");
      writer.keyword("LAMBDA");
      for (int i = 0; i < getParameters().size(); i++) {
        if (i > 0) {
          writer.print(",");
        }
        getParameters().get(i).unparse(writer, 0, 0);
      }
      writer.print(":");
      getExpression().unparse(writer, 0, 0);
      writer.endList(frame);
    }
  }
}
