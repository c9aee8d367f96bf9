package org.calciteivm.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.apache.calcite.sql.type.SqlTypeName;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.rules.InMemoryTables.Column;
import org.calciteivm.rules.api.Change;
import org.calciteivm.rules.api.DeltaProgram;
import org.calciteivm.rules.api.MaintainedView;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Chains of left joins, every input changing. The change of each join's preserved input is read by
 * several terms of the join above, and at every level it is written once (a shared common table
 * expression), where written in place it would be written once per reader of each level,
 * exponentially many times: the text grows linearly with the chain. (That the change of such chains
 * is exact is checked on DuckDB, by {@code RandomizedJoinTest}: Calcite's enumerable engine cannot
 * compile the change of three outer joins, the generated Java method grows too large.)
 *
 * <p>Tables {@code t0..t8}, each {@code (k INTEGER, v INTEGER)}; join {@code i} matches {@code
 * t(i-1).k = ti.v}.
 */
class OuterJoinChainTest {
  private static final int TABLES = 9;

  private static InMemoryTables tables;

  @BeforeAll
  static void createTables() throws SQLException {
    tables = new InMemoryTables();
    for (int i = 0; i < TABLES; i++) {
      tables.create(
          "t" + i,
          List.of(Column.of("k", SqlTypeName.INTEGER), Column.of("v", SqlTypeName.INTEGER)));
    }
  }

  @AfterAll
  static void close() throws SQLException {
    tables.close();
  }

  /** {@code t0 LEFT JOIN t1 ... LEFT JOIN tn}, with a column of each table. */
  private static String chainOf(int joins) {
    StringBuilder query = new StringBuilder("SELECT t0.k");
    for (int i = 1; i <= joins; i++) {
      query.append(", t").append(i).append(".v AS v").append(i);
    }
    query.append(" FROM t0");
    for (int i = 1; i <= joins; i++) {
      query.append(" LEFT JOIN t").append(i);
      query.append(" ON t").append(i - 1).append(".k = t").append(i).append(".v");
    }
    return query.toString();
  }

  /** The delta program of a chain of {@code joins} left joins, every table changing. */
  private static DeltaProgram deltaOfChain(int joins) throws Exception {
    MaintainedView view = tables.compiler().compile("chain", chainOf(joins));
    return view.delta(Change.of(JoinStrategy.TELESCOPING, view.baseTables()));
  }

  @Test
  void theChangeOfAChainOfLeftJoinsGrowsLinearly() throws Exception {
    List<Integer> sql = new ArrayList<>();
    List<Integer> explained = new ArrayList<>();
    for (int joins = 2; joins <= TABLES - 1; joins++) {
      DeltaProgram delta = deltaOfChain(joins);
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
    assertThat(deltaOfChain(3).sql()).contains("AS MATERIALIZED");
  }
}
