package org.calciteivm.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.calciteivm.rules.aggregate.AggregateState;
import org.calciteivm.rules.aggregate.StateColumn;
import org.calciteivm.rules.aggregate.StateVersion;
import org.calciteivm.rules.delta.DeltaDerivation;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.calciteivm.rules.sql.DuckDbTypeSystem;
import org.calciteivm.rules.sql.SqlUnparser;
import org.junit.jupiter.api.Test;

/** Golden plans of aggregate state: its computation and its change under the delta rules. */
class AggregateStateTest {
  private final ViewSqlPlanner planner =
      new ViewSqlPlanner(TestSchemas.ordersSchema(), DuckDbTypeSystem.INSTANCE);

  private Aggregate aggregate(String sql) throws Exception {
    RelNode rel = planner.toRel("v", sql);
    while (!(rel instanceof Aggregate)) {
      rel = rel.getInput(0);
    }
    return (Aggregate) rel;
  }

  /**
   * A sum keeps the count of its non-null values beside it; a count or sum that an earlier column
   * holds is stored once: COUNT(*) and the count of the never-NULL id are the row count, and a
   * sum's columns serve an AVG of the same value.
   */
  @Test
  void stateKeepsCountsBesideSumsEachOnce() throws Exception {
    Aggregate aggregate =
        aggregate(
            "SELECT status, SUM(amount), COUNT(*), AVG(id), AVG(amount), COUNT(amount), SUM(id)"
                + " FROM orders GROUP BY status");
    AggregateState state = AggregateState.of(aggregate);
    assertThat(state.columnNames())
        .containsExactly("k1", "_ivm_count", "a1_sum", "a1_count", "a3_sum");
    assertThat(
            SqlUnparser.duckDb()
                .toSql(
                    state.stateAggregate(
                        IvmRelBuilders.create(aggregate.getCluster()), aggregate.getInput())))
        .isEqualTo(
            """
            SELECT "status" AS "k1", COUNT(*) AS "_ivm_count", SUM("amount") AS "a1_sum", \
            COUNT("amount") AS "a1_count", SUM("id") AS "a3_sum"
            FROM "main"."orders"
            GROUP BY "status\"""");
    // each call reads its kind's columns, wherever they are stored
    assertThat(
            state.calls().stream().map(c -> c.columns().stream().map(StateColumn::name).toList()))
        .containsExactly(
            List.of("a1_sum", "a1_count"),
            List.of("_ivm_count"),
            List.of("a3_sum", "_ivm_count"),
            List.of("a1_sum", "a1_count"),
            List.of("a1_count"),
            List.of("a3_sum", "_ivm_count"));
  }

  /** A view stored before measures were shared keeps a column per call and measure. */
  @Test
  void separateStateKeepsAColumnPerCall() throws Exception {
    Aggregate aggregate =
        (Aggregate)
            AggregateState.inVersion(
                aggregate(
                    "SELECT status, SUM(amount), COUNT(*), AVG(id) FROM orders GROUP BY status"),
                StateVersion.SEPARATE_MEASURES);
    assertThat(AggregateState.of(aggregate).columnNames())
        .containsExactly(
            "k1", "_ivm_count", "a1_sum", "a1_count", "a2_count", "a3_sum", "a3_count");
  }

  /**
   * MIN and MAX keep how many rows hold the extreme, counted in a second pass over the group's rows
   * joined NULL-safely with the group's first-pass row; their change counts the inserted rows at
   * the inserted extreme and the deleted rows at the deleted one.
   */
  @Test
  void extremesKeepHowManyRowsHoldThem() throws Exception {
    Aggregate aggregate = aggregate("SELECT status, MAX(id), COUNT(*) FROM orders GROUP BY status");
    AggregateState state = AggregateState.of(aggregate);
    assertThat(state.columnNames()).containsExactly("k1", "_ivm_count", "a1_max", "a1_max_count");
    String stateSql =
        SqlUnparser.duckDb()
            .toSql(
                state.stateAggregate(
                    IvmRelBuilders.create(aggregate.getCluster()), aggregate.getInput()));
    assertThat(stateSql)
        .contains("MAX(\"id\") AS \"a1_max\"")
        .containsPattern(
            "SUM\\(CASE WHEN \"t\\d\"\\.\"id\" = \"t\\d\"\\.\"a1_max\" THEN 1 ELSE 0 END\\)")
        .contains("LEFT JOIN")
        // the keys match NULL-safely as one condition DuckDB hash-joins on, not an OR
        .containsPattern("\"t\\d\"\\.\"k1\" IS NOT DISTINCT FROM \"t\\d\"\\.\"status\"");
    // a change that may delete (every table may, here) counts them exactly, in a second pass
    String deltaSql = SqlUnparser.duckDb().toSql(DeltaDerivation.derive(aggregate));
    assertThat(deltaSql)
        .contains("AS \"a1_max_count\"")
        .contains("AS \"a1_max_deleted\"")
        .contains("AS \"a1_max_deleted_count\"")
        .containsPattern("\"_ivm_weight\" > 0 AND \"t\\d\"\\.\"id\" = \"t\\d\"\\.\"a1_max\" THEN")
        .contains("LEFT JOIN");
  }

  // the state of the change's rows of each weight (+1, -1), times the weight, summed per group
  @Test
  void deltaFoldsTheWeightIntoCountsAndSums() throws Exception {
    Aggregate aggregate =
        aggregate(
            "SELECT status, SUM(amount) FILTER (WHERE id > 3), COUNT(amount) FROM orders"
                + " GROUP BY status");
    RelNode delta = DeltaDerivation.derive(aggregate);
    assertThat(SqlUnparser.duckDb().toSql(delta))
        .isEqualTo(
            """
            SELECT "k1", SUM("_ivm_count") AS "_ivm_count", SUM("a1_sum") AS "a1_sum", \
            SUM("a1_count") AS "a1_count", SUM("a2_count") AS "a2_count"
            FROM (SELECT "status" AS "k1", COUNT(*) * "_ivm_weight" AS "_ivm_count", \
            (SUM("amount") FILTER (WHERE "id" > 3)) * "_ivm_weight" AS "a1_sum", \
            (COUNT("amount") FILTER (WHERE "id" > 3)) * "_ivm_weight" AS "a1_count", \
            COUNT("amount") * "_ivm_weight" AS "a2_count"
            FROM "temp"."orders_delta"
            GROUP BY "status", "_ivm_weight") AS "t1"
            GROUP BY "k1\"""");
  }

  // Regression: a delete of INTEGER's minimum negated it as an INTEGER ("Overflow in negation"),
  // and every later refresh failed the same way; the weight multiplies in BIGINT instead, and a
  // BIGINT in DECIMAL(38, 0), whose SUM fits DuckDB's HUGEINT sum of BIGINTs.
  @Test
  void deltaMultipliesSumsInATypeWiderThanTheArgument() throws Exception {
    Aggregate aggregate =
        aggregate("SELECT SUM(id), AVG(CAST(id AS BIGINT)), SUM(CAST(id AS TINYINT)) FROM orders");
    RelNode delta = DeltaDerivation.derive(aggregate);
    assertThat(SqlUnparser.duckDb().toSql(delta))
        .contains("SUM(\"id\" * \"_ivm_weight\") AS \"a1_sum\"")
        .contains(
            "SUM(CAST(CAST(\"id\" AS BIGINT) AS DECIMAL(38, 0)) * \"_ivm_weight\") AS \"a2_sum\"")
        .contains("SUM(CAST(\"id\" AS TINYINT) * \"_ivm_weight\") AS \"a3_sum\"")
        .doesNotContain("- \"");
  }
}
