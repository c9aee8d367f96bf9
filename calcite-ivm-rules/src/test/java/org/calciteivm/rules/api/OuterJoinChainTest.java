package org.calciteivm.rules.api;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeFactory;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.schema.impl.AbstractSchema;
import org.apache.calcite.schema.impl.AbstractTable;
import org.apache.calcite.sql.type.SqlTypeName;
import org.calciteivm.core.JoinStrategy;
import org.junit.jupiter.api.Test;

/**
 * The change of a chain of left joins, every input changing, is written in text that grows linearly
 * with the chain: the change of each join's preserved input is read by several terms of the join
 * above, and at every level it is written once (a shared common table expression), where written in
 * place it would be written once per reader of each level, exponentially many times.
 */
class OuterJoinChainTest {
  /** A table (k, v). */
  static class Pair extends AbstractTable {
    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
      return types
          .builder()
          .add("k", SqlTypeName.INTEGER)
          .add("v", SqlTypeName.INTEGER)
          .nullable(true)
          .build();
    }
  }

  /** Pair's change: its columns and the weight. */
  static class PairDelta extends AbstractTable {
    @Override
    public RelDataType getRowType(RelDataTypeFactory types) {
      return DeltaRelations.rowType(types, new Pair().getRowType(types));
    }
  }

  private static final int TABLES = 9;

  private static SchemaPlus schema() {
    SchemaPlus root = CalciteSchema.createRootSchema(false, false).plus();
    SchemaPlus main = root.add("main", new AbstractSchema());
    SchemaPlus changes = root.add("changes", new AbstractSchema());
    for (int i = 0; i < TABLES; i++) {
      main.add("t" + i, new Pair());
      changes.add("t" + i, new PairDelta());
    }
    return main;
  }

  /** The delta program of {@code t0 LEFT JOIN t1 ... LEFT JOIN tn}, every table changing. */
  private static DeltaProgram chainOf(int joins) throws Exception {
    StringBuilder query = new StringBuilder("SELECT t0.k");
    for (int i = 1; i <= joins; i++) {
      query.append(", t").append(i).append(".v AS v").append(i);
    }
    query.append(" FROM t0");
    for (int i = 1; i <= joins; i++) {
      query.append(" LEFT JOIN t").append(i);
      query.append(" ON t").append(i - 1).append(".k = t").append(i).append(".v");
    }
    MaintainedView view =
        IvmCompiler.duckDb(schema())
            .withDeltaRelations(
                table -> Optional.of(List.of("changes", table.getQualifiedName().get(1))))
            .compile("chain", query.toString());
    return view.delta(Change.of(JoinStrategy.TELESCOPING, view.baseTables()));
  }

  @Test
  void theChangeOfAChainOfLeftJoinsGrowsLinearly() throws Exception {
    List<Integer> sql = new ArrayList<>();
    List<Integer> explained = new ArrayList<>();
    for (int joins = 2; joins <= TABLES - 1; joins++) {
      DeltaProgram delta = chainOf(joins);
      sql.add(delta.sql().length());
      explained.add(delta.explain().length());
    }
    // each join adds about as much text as the one before it: the growth is linear, where
    // written in place each join multiplied the text by three or more
    for (List<Integer> lengths : List.of(sql, explained)) {
      int first = lengths.get(1) - lengths.get(0);
      int last = lengths.get(lengths.size() - 1) - lengths.get(lengths.size() - 2);
      assertThat(last).as("growth of %s", lengths).isLessThan(2 * first);
    }
    assertThat(chainOf(3).sql()).contains("AS MATERIALIZED");
  }
}
