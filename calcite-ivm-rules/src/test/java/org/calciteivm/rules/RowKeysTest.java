package org.calciteivm.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.List;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.Statistic;
import org.apache.calcite.schema.Statistics;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.util.ImmutableBitSet;
import org.calciteivm.rules.analysis.RowKeys;
import org.calciteivm.rules.analysis.UniqueRowsTable;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.calciteivm.rules.sql.DuckDbTypeSystem;
import org.junit.jupiter.api.Test;

/**
 * {@link RowKeys} on ordinary Calcite tables whose {@link Statistic} declares their keys: the
 * output columns found determine a key of every scan, and nothing else is called a key.
 */
class RowKeysTest {
  private final ViewSqlPlanner planner = new ViewSqlPlanner(schema(), DuckDbTypeSystem.INSTANCE);

  /** {@code o(id INTEGER key, c INTEGER, f DOUBLE key)}, {@code l(oid, n, q)} keyed by (oid, n). */
  private static SchemaPlus schema() {
    SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
    SchemaPlus main = root.add("main", new AbstractSchema());
    main.add("o", new Keyed(List.of("id", "c", "f"), ImmutableBitSet.of(0)));
    main.add("l", new Keyed(List.of("oid", "n", "q"), ImmutableBitSet.of(0, 1)));
    main.add("dk", new Keyed(List.of("f", "x"), ImmutableBitSet.of(0)));
    main.add("free", new Keyed(List.of("id", "x"), null));
    main.add("groups", new Grouped(List.of("g", "h", "total"), ImmutableBitSet.of(0, 1)));
    return main;
  }

  private List<Integer> key(String sql) throws SQLException {
    RelNode plan = planner.toRel("v", sql);
    return RowKeys.of(plan);
  }

  @Test
  void aSelectedKeyIsAKey() throws SQLException {
    assertThat(key("SELECT c, id FROM o WHERE c > 1")).containsExactly(1);
    assertThat(key("SELECT c FROM o")).isEmpty();
    assertThat(key("SELECT id + 0 AS id FROM o")).isEmpty(); // computed: not the key itself
  }

  @Test
  void aJoinEqualityDeterminesTheOtherSidesKeyColumn() throws SQLException {
    // l's key (oid, n): oid through o.id = l.oid
    assertThat(key("SELECT o.id, l.n, l.q FROM o JOIN l ON o.id = l.oid")).containsExactly(0, 1);
    assertThat(key("SELECT l.n, o.id FROM o, l WHERE l.oid = o.id")).containsExactly(0, 1);
    // no equality: every key column must be selected
    assertThat(key("SELECT o.id, l.n FROM o JOIN l ON o.id < l.oid")).isEmpty();
    assertThat(key("SELECT o.id, l.oid, l.n FROM o JOIN l ON o.id < l.oid"))
        .containsExactly(0, 1, 2);
    // an equality under OR determines nothing
    assertThat(key("SELECT o.id, l.n FROM o JOIN l ON o.id = l.oid OR l.q = 1")).isEmpty();
  }

  @Test
  void everyScanNeedsItsKey() throws SQLException {
    assertThat(key("SELECT o.id, free.x FROM o JOIN free ON o.id = free.id")).isEmpty();
    // a self-join: both scans' keys
    assertThat(key("SELECT a.id, b.id AS b FROM o a JOIN o b ON a.c = b.c")).containsExactly(0, 1);
    assertThat(key("SELECT a.id FROM o a JOIN o b ON a.c = b.c")).isEmpty();
  }

  @Test
  void approximateEqualitiesDoNotCount() throws SQLException {
    // 0.0 = -0.0 holds between two distinct keys of dk
    assertThat(key("SELECT o.id FROM o JOIN dk ON o.f = dk.f")).isEmpty();
    assertThat(key("SELECT o.id, dk.f FROM o JOIN dk ON o.f = dk.f")).containsExactly(0, 1);
  }

  @Test
  void aggregatesHaveNoRowKey() throws SQLException {
    assertThat(key("SELECT id, COUNT(*) FROM o GROUP BY id")).isEmpty();
  }

  private List<Integer> distinguishing(String sql) throws SQLException {
    return RowKeys.distinguishing(planner.toRel("v", sql));
  }

  @Test
  void groupsAndUniqueColumnsWithNullsDistinguishRowsButAreNoKey() throws SQLException {
    assertThat(distinguishing("SELECT COUNT(*) AS n, c FROM o GROUP BY c")).containsExactly(1);
    assertThat(distinguishing("SELECT DISTINCT q, oid FROM l")).containsExactly(0, 1);
    assertThat(distinguishing("SELECT c, COUNT(*) FROM o GROUP BY c, f")).isEmpty();
    // group columns taken from a table whose key is grouped by depend on it
    assertThat(distinguishing("SELECT id, c, COUNT(*) FROM o GROUP BY id, c")).containsExactly(0);
    assertThat(distinguishing("SELECT c, COUNT(*) FROM o GROUP BY id, c")).isEmpty();
    assertThat(
            distinguishing(
                "SELECT l.n, o.c, l.oid, SUM(l.q) FROM o JOIN l ON o.id = l.oid"
                    + " GROUP BY l.n, o.c, l.oid"))
        .containsExactly(0, 2);
    assertThat(distinguishing("SELECT o.c, l.q FROM o JOIN l ON o.id = l.oid GROUP BY o.c, l.q"))
        .containsExactly(0, 1);
    // a declared key still counts
    assertThat(distinguishing("SELECT c, id FROM o")).containsExactly(1);
    // unique columns of a relation, which may hold NULLs: no key to find rows by
    assertThat(distinguishing("SELECT total, h, g FROM groups")).containsExactly(1, 2);
    assertThat(key("SELECT total, h, g FROM groups")).isEmpty();
    // joined NULL-safely on all of them (Calcite writes IS NOT DISTINCT FROM out)
    assertThat(
            distinguishing(
                "SELECT a.g, a.h, b.total FROM groups a JOIN groups b"
                    + " ON a.g IS NOT DISTINCT FROM b.g AND a.h IS NOT DISTINCT FROM b.h"))
        .containsExactly(0, 1);
  }

  /** A table of INTEGER columns whose rows are unique on {@code unique}, NULLs allowed. */
  private static final class Grouped extends Keyed implements UniqueRowsTable {
    private final ImmutableBitSet unique;

    Grouped(List<String> columns, ImmutableBitSet unique) {
      super(columns, null);
      this.unique = unique;
    }

    @Override
    public List<ImmutableBitSet> uniqueColumns() {
      return List.of(unique);
    }
  }

  /** A table of INTEGER columns (DOUBLE for {@code f}) with a declared key, or none. */
  private static class Keyed extends AbstractTable {
    private final List<String> columns;
    private final ImmutableBitSet key;

    Keyed(List<String> columns, ImmutableBitSet key) {
      this.columns = columns;
      this.key = key;
    }

    @Override
    public RelDataType getRowType(RelDataTypeFactory f) {
      RelDataTypeFactory.Builder builder = f.builder();
      for (String column : columns) {
        builder.add(column, column.equals("f") ? SqlTypeName.DOUBLE : SqlTypeName.INTEGER);
      }
      return builder.build();
    }

    @Override
    public Statistic getStatistic() {
      return key == null ? Statistics.UNKNOWN : Statistics.of(null, List.of(key), null, null);
    }
  }
}
