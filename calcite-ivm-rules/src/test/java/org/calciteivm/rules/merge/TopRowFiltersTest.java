package org.calciteivm.rules.merge;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.calciteivm.rules.sql.DuckDbTypeSystem;
import org.calciteivm.rules.sql.SqlUnparser;
import org.junit.jupiter.api.Test;

/** {@link TopRowFilters}: which row-number filters become a sort with a limit, and how. */
class TopRowFiltersTest {
  private final ViewSqlPlanner planner = new ViewSqlPlanner(schema(), DuckDbTypeSystem.INSTANCE);

  /** {@code t(k INTEGER, v INTEGER)}. */
  private static SchemaPlus schema() {
    SchemaPlus main =
        CalciteSchema.createRootSchema(false, false).plus().add("main", new AbstractSchema());
    main.add(
        "t",
        new AbstractTable() {
          @Override
          public RelDataType getRowType(RelDataTypeFactory f) {
            return f.builder().add("k", SqlTypeName.INTEGER).add("v", SqlTypeName.INTEGER).build();
          }
        });
    return main;
  }

  private String asSort(String sql) throws SQLException {
    RelNode sorted = TopRowFilters.asSort(planner.toRel("v", sql));
    return sorted == null ? null : SqlUnparser.duckDb().toSql(sorted).replaceAll("\\s+", " ");
  }

  @Test
  void aRowNumberRangeWithoutPartitionBecomesASortWithOffsetAndFetch() throws SQLException {
    assertThat(
            asSort(
                "SELECT * FROM (SELECT k, v FROM t) AS top_rows"
                    + " QUALIFY ROW_NUMBER() OVER (ORDER BY v DESC, k) BETWEEN 3 AND 5"))
        .contains("ORDER BY \"v\" DESC")
        .contains("OFFSET 2 ROWS FETCH NEXT 3 ROWS ONLY");
    assertThat(asSort("SELECT k FROM t QUALIFY ROW_NUMBER() OVER (ORDER BY k) > 4"))
        .contains("OFFSET 4 ROWS")
        .doesNotContain("FETCH");
  }

  @Test
  void otherFiltersStayWindows() throws SQLException {
    // per partition, another function, a range that keeps nothing, the row number selected
    assertThat(asSort("SELECT k FROM t QUALIFY ROW_NUMBER() OVER (PARTITION BY v ORDER BY k) <= 2"))
        .isNull();
    assertThat(asSort("SELECT k FROM t QUALIFY RANK() OVER (ORDER BY k) <= 2")).isNull();
    assertThat(asSort("SELECT k FROM t QUALIFY ROW_NUMBER() OVER (ORDER BY k) BETWEEN 5 AND 2"))
        .isNull();
    assertThat(
            asSort(
                "SELECT k, n FROM (SELECT k, ROW_NUMBER() OVER (ORDER BY k) AS n FROM t) s"
                    + " WHERE n <= 2"))
        .isNull();
  }
}
