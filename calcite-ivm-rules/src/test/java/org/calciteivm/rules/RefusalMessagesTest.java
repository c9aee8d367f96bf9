package org.calciteivm.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.util.List;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.JoinRelType;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.rex.RexNode;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.SqlFunction;
import org.apache.calcite.sql.SqlFunctionCategory;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.type.OperandTypes;
import org.apache.calcite.sql.type.ReturnTypes;
import org.apache.calcite.sql.type.SqlReturnTypeInference;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelBuilder.AggCall;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.rules.api.IvmCompiler;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.calciteivm.rules.sql.DuckDbTypeSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Refusals name the user's construct: the SQL they wrote (not Calcite's operator classes or
 * expansions), and expressions whose value depends on the session's time zone.
 */
class RefusalMessagesTest {
  /** {@code ev(id, grp, x, ts TIMESTAMP, tz TIMESTAMPTZ, tz2 TIMESTAMPTZ, d DOUBLE)}, nullable. */
  static class Events extends AbstractTable {
    @Override
    public RelDataType getRowType(RelDataTypeFactory f) {
      return f.builder()
          .add("id", SqlTypeName.INTEGER)
          .nullable(true)
          .add("grp", SqlTypeName.VARCHAR)
          .nullable(true)
          .add("x", SqlTypeName.INTEGER)
          .nullable(true)
          .add("ts", f.createSqlType(SqlTypeName.TIMESTAMP, 6))
          .nullable(true)
          .add("tz", f.createSqlType(SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE, 6))
          .nullable(true)
          .add("tz2", f.createSqlType(SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE, 6))
          .nullable(true)
          .add("d", SqlTypeName.DOUBLE)
          .nullable(true)
          .build();
    }
  }

  /** DuckDB functions as the driver declares them: any operands, DuckDB's result type. */
  private static SqlFunction duckDb(String name, SqlReturnTypeInference type) {
    return new SqlFunction(
        name,
        SqlKind.OTHER_FUNCTION,
        type,
        null,
        OperandTypes.VARIADIC,
        SqlFunctionCategory.SYSTEM);
  }

  private static final SchemaPlus SCHEMA = schema();

  private static final IvmCompiler COMPILER = compiler();

  private static SchemaPlus schema() {
    SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
    SchemaPlus main = root.add("main", new AbstractSchema());
    main.add("ev", new Events());
    return main;
  }

  private static IvmCompiler compiler() {
    return IvmCompiler.duckDb(SCHEMA)
        .withFunctions(
            SqlOperatorTables.of(
                duckDb("epoch_us", ReturnTypes.BIGINT_NULLABLE),
                duckDb("strftime", ReturnTypes.VARCHAR_NULLABLE),
                duckDb("dayname", ReturnTypes.VARCHAR_NULLABLE),
                duckDb("timezone", b -> b.getTypeFactory().createSqlType(SqlTypeName.ANY)),
                duckDb(
                    "make_timestamptz",
                    b ->
                        b.getTypeFactory()
                            .createSqlType(SqlTypeName.TIMESTAMP_WITH_LOCAL_TIME_ZONE, 6))));
  }

  private static String refusal(String sql) {
    UnsupportedViewException e =
        catchThrowableOfType(UnsupportedViewException.class, () -> COMPILER.compile("v", sql));
    assertThat((Object) e).as("refused: %s", sql).isNotNull();
    return e.getMessage();
  }

  // --- the session's time zone

  @Test
  void castOfAnInstantToADateIsRefusedNamingTheExpression() {
    String message = refusal("SELECT id, CAST(tz AS DATE) AS day FROM ev");
    assertThat(message)
        .startsWith("materialized view \"v\" cannot be maintained incrementally: ")
        .contains("the expression CAST(tz AS DATE) is not supported: ")
        .contains("depends on the session's TimeZone setting");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "SELECT id FROM ev WHERE tz > '2024-01-01'|tz > CAST('2024-01-01' AS TIMESTAMP WITH TIME ZONE)",
        "SELECT id FROM ev WHERE tz > TIMESTAMP '2024-01-01 00:00:00'|tz > TIMESTAMP",
        "SELECT id FROM ev WHERE tz > DATE '2024-01-01'|tz > CAST(DATE '2024-01-01' AS TIMESTAMP WITH",
        "SELECT id FROM ev WHERE tz IN ('2024-01-01', '2024-01-02')|tz = CAST('2024-01-01' AS TIMESTAMP",
        "SELECT id FROM ev WHERE ts = tz|CAST(tz AS TIMESTAMP)",
        "SELECT EXTRACT(HOUR FROM tz) AS h FROM ev|EXTRACT(HOUR FROM tz)",
        "SELECT HOUR(tz) AS h FROM ev|HOUR(tz)",
        "SELECT strftime(tz, '%Y') AS y FROM ev|strftime(tz, '%Y')",
        "SELECT dayname(tz) AS day FROM ev|dayname(tz)",
        "SELECT tz + INTERVAL '1' DAY AS later FROM ev|tz + INTERVAL '1' DAY",
        "SELECT CAST(tz AS VARCHAR) AS s FROM ev|CAST(tz AS VARCHAR)",
        "SELECT TRY_CAST(ts AS TIMESTAMPTZ) AS s FROM ev|TRY_CAST(ts AS TIMESTAMP WITH TIME ZONE)",
        "SELECT CAST(ts AS TIMESTAMP WITH LOCAL TIME ZONE) AS i FROM ev|CAST(ts AS TIMESTAMP WITH",
        "SELECT make_timestamptz(id) AS i FROM ev|make_timestamptz(id)",
        "SELECT grp, COUNT(*) AS n FROM ev GROUP BY grp, CAST(tz AS DATE)|CAST(tz AS DATE)",
        "SELECT grp, MAX(CAST(tz AS TIME)) AS t FROM ev GROUP BY grp|CAST(tz AS TIME)",
        "SELECT a.id FROM ev a JOIN ev b ON CAST(a.tz AS DATE) = b.ts|CAST(tz AS DATE)",
        "SELECT CASE WHEN id > 1 THEN tz ELSE ts END AS i FROM ev|CASE WHEN id > 1 THEN tz ELSE CAST(ts",
        "SELECT timezone(grp, tz) AS local FROM ev|timezone(grp, tz)",
        "SELECT CAST(timezone('UTC', ts) AS DATE) AS day FROM ev|CAST(timezone('UTC', ts) AS DATE)",
        "SELECT TIMESTAMP WITH LOCAL TIME ZONE '2024-01-01 00:00:00' AS i FROM ev|"
            + "TIMESTAMP WITH TIME ZONE '2024-01-01 00:00:00"
      })
  void expressionsReadingTheSessionTimeZoneAreRefused(String caseText) {
    String[] parts = caseText.split("\\|");
    assertThat(refusal(parts[0]))
        .contains("the expression " + parts[1])
        .contains("depends on the session's TimeZone setting");
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "SELECT * FROM ev",
        "SELECT id, tz FROM ev WHERE tz = tz2 OR tz < tz2 OR tz IS NULL",
        "SELECT id FROM ev WHERE tz IS NOT DISTINCT FROM tz2 AND tz BETWEEN tz2 AND tz2",
        "SELECT tz, COUNT(*) AS n, MIN(tz2) AS lo, MAX(tz2) AS hi, COUNT(tz2) AS c FROM ev GROUP BY tz",
        "SELECT a.id, b.id AS other FROM ev a JOIN ev b ON a.tz = b.tz2",
        "SELECT COALESCE(tz, tz2) AS t, CASE WHEN id > 1 THEN tz ELSE NULL END AS u FROM ev",
        "SELECT NULLIF(tz, tz2) AS t FROM ev",
        "SELECT epoch_us(tz) AS us, EXTRACT(EPOCH FROM tz) AS s FROM ev",
        "SELECT timezone('UTC', tz) AS utc, CAST(timezone('UTC', tz) AS DATE) AS day FROM ev",
        "SELECT timezone('UTC', ts) AS i, epoch_us(timezone('UTC', ts)) AS us FROM ev",
        "SELECT CAST(timezone('UTC', timezone('Asia/Tokyo', ts)) AS DATE) AS day FROM ev",
        "SELECT id FROM ev WHERE ts > TIMESTAMP '2024-01-01 00:00:00'",
        "SELECT CAST(ts AS DATE) AS day, HOUR(ts) AS h FROM ev"
      })
  void instantsUsedAsTheyAreAreMaintained(String sql) {
    assertThatCode(() -> COMPILER.compile("v", sql)).as(sql).doesNotThrowAnyException();
  }

  // --- window functions, recursion and set operations, named as written

  @Test
  void windowsOfTheViewsRowsAreMaintainedOthersNamed() {
    assertThatCode(
            () -> COMPILER.compile("v", "SELECT id, SUM(x) OVER (PARTITION BY grp) AS s FROM ev"))
        .doesNotThrowAnyException();
    assertThatCode(
            () ->
                COMPILER.compile(
                    "v", "SELECT id, SUM(x) OVER w AS s FROM ev WINDOW w AS (PARTITION BY grp)"))
        .doesNotThrowAnyException();
    // below a join: named by the function the user wrote, not as Calcite expands it
    assertThat(
            refusal(
                "SELECT e.id, w.s FROM ev e JOIN (SELECT id, SUM(x) OVER (PARTITION BY grp) AS s"
                    + " FROM ev) w ON e.id = w.id"))
        .contains("window function SUM(...) OVER (...) is not supported yet");
    assertThat(refusal("SELECT id, avg(x)  over\n (partition by grp) AS s FROM ev"))
        .contains("window function AVG, STDDEV or VARIANCE(...) OVER (...) of exact numbers");
    assertThat(refusal("SELECT id, ROW_NUMBER() OVER (PARTITION BY grp ORDER BY x) AS r FROM ev"))
        .contains("window function ROW_NUMBER(...) OVER (...) whose ORDER BY can tie");
    // % of a DOUBLE is DuckDB's remainder in DOUBLE (ApproximateRemainders), not Calcite's MOD
    // of a DECIMAL cast
    assertThatCode(() -> COMPILER.compile("v", "SELECT id, d % 2 AS m, MOD(3, d) AS n FROM ev"))
        .doesNotThrowAnyException();
    // Calcite writes SUM(x) OVER w with a COUNT(x) OVER w: the message names the SUM written
    assertThat(
            refusal(
                "SELECT id, SUM(x) OVER (PARTITION BY grp ORDER BY x ROWS BETWEEN 1 PRECEDING"
                    + " AND 1 FOLLOWING) AS s FROM ev"))
        .contains("window function SUM(...) OVER (...) whose ORDER BY can tie");
    // in QUALIFY: a filter over the window, checked as one in the select list
    assertThat(
            refusal(
                "SELECT id FROM ev QUALIFY ROW_NUMBER() OVER (PARTITION BY grp ORDER BY x) = 1"))
        .contains("window function ROW_NUMBER(...) OVER (...) whose ORDER BY can tie");
    // below another operator (here a semi-join)
    assertThat(
            refusal(
                "SELECT id FROM ev WHERE id IN (SELECT RANK() OVER (PARTITION BY grp ORDER BY x)"
                    + " FROM ev)"))
        .contains("window function RANK(...) OVER (...) is not supported yet");
  }

  @Test
  void windowedSumAndAvgInAPlanAreNamedByTheirFunction() throws Exception {
    // a plan given to the library, not SQL: the analyzer recognizes Calcite's expansions
    RelBuilder builder = new ViewSqlPlanner(SCHEMA, DuckDbTypeSystem.INSTANCE).relBuilder();
    for (String function : List.of("SUM", "AVG", "COUNT", "MIN")) {
      builder.scan("ev");
      AggCall call =
          switch (function) {
            case "SUM" -> builder.sum(builder.field("x"));
            case "AVG" -> builder.avg(builder.field("x"));
            case "COUNT" -> builder.count(builder.field("x"));
            default -> builder.min(builder.field("x"));
          };
      builder.project(builder.field("id"), call.over().partitionBy(builder.field("grp")).toRex());
      belowAJoin(builder);
      UnsupportedViewException e =
          catchThrowableOfType(
              UnsupportedViewException.class, () -> compiler().compile("v", builder.build()));
      assertThat(e.getMessage())
          .as(function)
          .contains("window function " + function + "(...) OVER (...) is not supported yet");
    }
    // SqlToRelConverter's expansions: SUM as CASE WHEN COUNT > 0 THEN SUM, AVG as SUM / COUNT
    builder.scan("ev");
    RexNode count =
        builder.count(builder.field("x")).over().partitionBy(builder.field("grp")).toRex();
    RexNode sum = builder.sum(builder.field("x")).over().partitionBy(builder.field("grp")).toRex();
    RexNode expandedSum =
        builder.call(
            SqlStdOperatorTable.CASE,
            builder.call(SqlStdOperatorTable.GREATER_THAN, count, builder.literal(0)),
            builder.cast(sum, SqlTypeName.INTEGER),
            builder.getRexBuilder().makeNullLiteral(sum.getType()));
    RexNode expandedAvg =
        builder.cast(
            builder.call(SqlStdOperatorTable.DIVIDE, expandedSum, count), SqlTypeName.INTEGER);
    builder.project(builder.field("id"), expandedSum, expandedAvg);
    belowAJoin(builder);
    RelNode plan = builder.build();
    UnsupportedViewException e =
        catchThrowableOfType(UnsupportedViewException.class, () -> compiler().compile("v", plan));
    assertThat(e.getMessage()).contains("window function SUM(...) OVER (...)");
    builder.scan("ev");
    builder.project(builder.field("id"), expandedAvg);
    belowAJoin(builder);
    RelNode avgOnly = builder.build();
    e =
        catchThrowableOfType(
            UnsupportedViewException.class, () -> compiler().compile("v", avgOnly));
    assertThat(e.getMessage()).contains("window function AVG(...) OVER (...)");
  }

  /** Joins the plan on top of {@code builder}'s stack with {@code ev} on {@code id}. */
  private static void belowAJoin(RelBuilder builder) {
    builder.scan("ev");
    builder.join(
        JoinRelType.INNER, builder.equals(builder.field(2, 0, "id"), builder.field(2, 1, "id")));
  }

  @Test
  void otherOperatorsAreNamedBySqlConstructNotCalciteClass() {
    assertThat(
            refusal(
                "WITH RECURSIVE r(n) AS (SELECT id FROM ev UNION ALL SELECT n + 1 FROM r WHERE n < 3)"
                    + " SELECT n FROM r"))
        .contains("a recursive query (WITH RECURSIVE) is not supported yet")
        .doesNotContain("Logical");
    assertThat(refusal("SELECT id FROM ev UNION ALL SELECT COUNT(*) FROM ev"))
        .contains("an aggregate or DISTINCT below UNION ALL is");
    assertThat(refusal("SELECT id FROM ev UNION SELECT DISTINCT x FROM ev"))
        .contains("an aggregate or DISTINCT below UNION ALL is");
    // the bag forms are kept by recomputing partitions, at the top of a view only
    assertThat(
            refusal(
                "SELECT id, COUNT(*) AS n FROM (SELECT id FROM ev INTERSECT ALL SELECT x FROM ev) s"
                    + " GROUP BY id"))
        .contains("INTERSECT ALL is");
    assertThat(
            refusal(
                "SELECT e.x FROM ev e JOIN (SELECT id FROM ev EXCEPT ALL SELECT x FROM ev) s"
                    + " ON e.id = s.id"))
        .contains("EXCEPT ALL is");
    assertThat(refusal("SELECT id FROM ev LIMIT 1")).contains("LIMIT/OFFSET");
    assertThat(refusal("SELECT 1 AS one")).contains("a query without a base table");
    // a LATERAL subquery that reads a table is no row expansion (unnest of a row's list is one):
    // Calcite decorrelates it into a join of an aggregate, which is named
    assertThat(
            refusal(
                "SELECT ev.id, s.m FROM ev, LATERAL (SELECT e2.x AS m FROM ev e2"
                    + " WHERE e2.x < ev.id ORDER BY e2.x LIMIT 1) s"))
        .contains("below a join");
    assertThat(refusal("SELECT id FROM ev WHERE id NOT IN (SELECT x FROM ev)"))
        .contains("NOT IN (subquery)")
        .contains("NOT EXISTS");
    assertThat(
            refusal(
                "SELECT id FROM ev WHERE EXISTS (SELECT 1 FROM ev e2 WHERE e2.x = ev.id)"
                    + " AND NOT EXISTS (SELECT 1 FROM ev e3 WHERE e3.x > 5)"))
        .contains("an uncorrelated EXISTS or NOT EXISTS beside a correlated subquery");
    assertThat(refusal("SELECT id FROM ev WHERE id > ANY (SELECT x FROM ev)"))
        .contains("a subquery (ANY/SOME/ALL)");
    assertThat(refusal("SELECT id, (SELECT MAX(x) FROM ev) AS m FROM ev"))
        .contains("a scalar subquery");
  }

  // --- statements that are not queries, and syntax errors

  @ParameterizedTest
  @ValueSource(
      strings = {
        "CREATE TABLE x (i INT)|CREATE TABLE (line 1, column 1)",
        "CREATE TABLE x AS SELECT id FROM ev|CREATE TABLE (line 1, column 1)",
        "INSERT INTO ev (id) VALUES (1)|INSERT (line 1, column 1)",
        "DELETE FROM ev|DELETE (line 1, column 1)",
        "  UPDATE ev SET id = 1|UPDATE (line 1, column 3)"
      })
  void statementsThatAreNotQueriesAreRefusedAsSuch(String sqlAndFound) {
    String[] parts = sqlAndFound.split("\\|");
    java.sql.SQLSyntaxErrorException e =
        catchThrowableOfType(
            java.sql.SQLSyntaxErrorException.class, () -> COMPILER.compile("v", parts[0]));
    assertThat(e.getMessage())
        .isEqualTo(
            "materialized view \"v\": expected a query (SELECT ...) after AS, found " + parts[1]);
  }

  @Test
  void syntaxErrorsSayWhatAndWhere() {
    java.sql.SQLSyntaxErrorException e =
        catchThrowableOfType(
            java.sql.SQLSyntaxErrorException.class,
            () -> COMPILER.compile("v", "SELECT id\nFROM ev WHERE id >> 1"));
    assertThat(e.getMessage())
        .startsWith("materialized view \"v\": syntax error at or near \">\" (line 2, column 18)");
    e =
        catchThrowableOfType(
            java.sql.SQLSyntaxErrorException.class,
            () -> COMPILER.compile("v", "SELEC id FROM ev"));
    assertThat(e.getMessage())
        .startsWith(
            "materialized view \"v\": syntax error at or near \"SELEC\" (line 1, column 1)");
    e =
        catchThrowableOfType(
            java.sql.SQLSyntaxErrorException.class,
            () -> COMPILER.compile("v", "SELECT id FROM ev WHERE"));
    assertThat(e.getMessage()).contains("(line 1, column 19)");
  }
}
