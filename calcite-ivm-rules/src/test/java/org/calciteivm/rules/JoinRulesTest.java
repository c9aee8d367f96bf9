package org.calciteivm.rules;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.calcite.rel.RelNode;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.rules.delta.DeltaContext;
import org.calciteivm.rules.delta.DeltaDerivation;
import org.calciteivm.rules.delta.JoinTerms;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.calciteivm.rules.sql.DuckDbTypeSystem;
import org.junit.jupiter.api.Test;

/**
 * Golden plans of the join expansions: which terms each strategy produces, with which signs, and
 * which it leaves out when an input has not changed. {@code orders} and {@code items} change,
 * {@code customers} does not.
 */
class JoinRulesTest {
  private final ViewSqlPlanner planner =
      new ViewSqlPlanner(TestSchemas.ordersSchema(), DuckDbTypeSystem.INSTANCE);

  private static final String ORDERS_ITEMS =
      "SELECT o.status, i.qty FROM orders o JOIN items i ON o.id = i.order_id";

  private RelNode view(String sql) throws Exception {
    return planner.toRel("v", sql);
  }

  private static String explain(RelNode rel) {
    return ViewSqlPlanner.explain(rel).trim();
  }

  @Test
  void inclusionExclusionHasThreeTermsForTwoChangedInputs() throws Exception {
    RelNode delta =
        DeltaDerivation.derive(
            view(ORDERS_ITEMS),
            JoinStrategy.INCLUSION_EXCLUSION,
            DeltaContext.EVERY_CHANGING_TABLE);
    assertThat(explain(delta))
        .isEqualTo(
            """
            LogicalProject(status=[$1], qty=[$4], _ivm_weight=[$5])
              LogicalUnion(all=[true])
                LogicalProject(id=[$0], status=[$1], amount=[$2], order_id=[$4], qty=[$5], _ivm_weight=[$3])
                  LogicalJoin(condition=[=($0, $4)], joinType=[inner])
                    LogicalTableScan(table=[[temp, orders_delta]])
                    LogicalTableScan(table=[[main, items]])
                LogicalProject(id=[$0], status=[$1], amount=[$2], order_id=[$3], qty=[$4], _ivm_weight=[$5])
                  LogicalJoin(condition=[=($0, $3)], joinType=[inner])
                    LogicalTableScan(table=[[main, orders]])
                    LogicalTableScan(table=[[temp, items_delta]])
                LogicalProject(id=[$0], status=[$1], amount=[$2], order_id=[$4], qty=[$5], _ivm_weight=[-(*($3, $6))])
                  LogicalJoin(condition=[=($0, $4)], joinType=[inner])
                    LogicalTableScan(table=[[temp, orders_delta]])
                    LogicalTableScan(table=[[temp, items_delta]])""");
  }

  @Test
  void telescopingJoinsTheDeltaWithThePreviousStateOfLaterInputs() throws Exception {
    RelNode delta =
        DeltaDerivation.derive(
            view(ORDERS_ITEMS), JoinStrategy.TELESCOPING, DeltaContext.EVERY_CHANGING_TABLE);
    assertThat(explain(delta))
        .isEqualTo(
            """
            LogicalProject(status=[$1], qty=[$4], _ivm_weight=[$5])
              LogicalUnion(all=[true])
                LogicalProject(id=[$0], status=[$1], amount=[$2], order_id=[$4], qty=[$5], _ivm_weight=[*($3, $6)])
                  LogicalJoin(condition=[=($0, $4)], joinType=[inner])
                    LogicalTableScan(table=[[temp, orders_delta]])
                    LogicalUnion(all=[true])
                      LogicalProject(order_id=[$0], qty=[$1], _ivm_weight=[1:BIGINT])
                        LogicalTableScan(table=[[main, items]])
                      LogicalProject(order_id=[$0], qty=[$1], _ivm_weight=[-($2)])
                        LogicalTableScan(table=[[temp, items_delta]])
                LogicalProject(id=[$0], status=[$1], amount=[$2], order_id=[$3], qty=[$4], _ivm_weight=[$5])
                  LogicalJoin(condition=[=($0, $3)], joinType=[inner])
                    LogicalTableScan(table=[[main, orders]])
                    LogicalTableScan(table=[[temp, items_delta]])""");
  }

  @Test
  void inputsWithoutAChangeContributeNoTerm() throws Exception {
    RelNode view =
        view(
            "SELECT c.name, i.qty FROM customers c JOIN orders o ON c.id = o.id"
                + " JOIN items i ON o.id = i.order_id");
    // only items changed in this refresh: one term for both strategies
    DeltaContext onlyItems = new DeltaContext(t -> t.getQualifiedName().get(1).equals("items"));
    for (JoinStrategy strategy :
        List.of(JoinStrategy.INCLUSION_EXCLUSION, JoinStrategy.TELESCOPING)) {
      RelNode delta = DeltaDerivation.derive(view, strategy, onlyItems);
      assertThat(explain(delta))
          .isEqualTo(
              """
              LogicalProject(name=[$1], qty=[$6], _ivm_weight=[$7])
                LogicalProject(id=[$0], name=[$1], id0=[$2], status=[$3], amount=[$4], order_id=[$5], qty=[$6], _ivm_weight=[$7])
                  LogicalJoin(condition=[=($2, $5)], joinType=[inner])
                    LogicalJoin(condition=[=($0, $2)], joinType=[inner])
                      LogicalTableScan(table=[[main, customers]])
                      LogicalTableScan(table=[[main, orders]])
                    LogicalTableScan(table=[[temp, items_delta]])""");
      assertThat(JoinTerms.of(view, delta)).containsExactly("+ customers ⋈ orders ⋈ Δitems");
    }
  }

  @Test
  void termsOfAThreeWaySelfJoin() throws Exception {
    RelNode view =
        view("SELECT a.id FROM orders a JOIN orders b ON a.id = b.id JOIN orders c ON b.id = c.id");
    assertThat(
            JoinTerms.of(
                view,
                DeltaDerivation.derive(
                    view, JoinStrategy.TELESCOPING, DeltaContext.EVERY_CHANGING_TABLE)))
        .containsExactly(
            "+ Δorders#1 ⋈ orders#2⁻ ⋈ orders#3⁻",
            "+ orders#1 ⋈ Δorders#2 ⋈ orders#3⁻",
            "+ orders#1 ⋈ orders#2 ⋈ Δorders#3");
    assertThat(JoinTerms.of(view, DeltaDerivation.derive(view)))
        .containsExactly(
            "+ Δorders#1 ⋈ orders#2 ⋈ orders#3",
            "+ orders#1 ⋈ Δorders#2 ⋈ orders#3",
            "+ orders#1 ⋈ orders#2 ⋈ Δorders#3",
            "- Δorders#1 ⋈ Δorders#2 ⋈ orders#3",
            "- Δorders#1 ⋈ orders#2 ⋈ Δorders#3",
            "- orders#1 ⋈ Δorders#2 ⋈ Δorders#3",
            "+ Δorders#1 ⋈ Δorders#2 ⋈ Δorders#3");
    assertThat(JoinTerms.negativeWeightsPossible(view, DeltaContext.EVERY_CHANGING_TABLE)).isTrue();
  }

  @Test
  void termsReadThePreviousStateOfAJoinInsideAJoin() throws Exception {
    // the right input is itself a join; only orders changes in it, customers is not changing
    RelNode view =
        view(
            "SELECT i.qty FROM items i JOIN (SELECT o.id FROM orders o JOIN customers c"
                + " ON o.id = c.id) x ON i.order_id = x.id");
    RelNode delta =
        DeltaDerivation.derive(view, JoinStrategy.TELESCOPING, DeltaContext.EVERY_CHANGING_TABLE);
    assertThat(JoinTerms.of(view, delta))
        .containsExactly("+ Δitems ⋈ orders⁻ ⋈ customers", "+ items ⋈ Δorders ⋈ customers");
  }

  @Test
  void sixWayJoinDerivesWithBothStrategies() throws Exception {
    StringBuilder sql = new StringBuilder("SELECT t1.id, t6.qty FROM orders t1");
    for (int i = 2; i <= 5; i++) {
      sql.append(" JOIN orders t").append(i).append(" ON t").append(i - 1).append(".id = t");
      sql.append(i).append(".id");
    }
    sql.append(" JOIN items t6 ON t5.id = t6.order_id");
    RelNode view = view(sql.toString());
    for (JoinStrategy strategy :
        List.of(JoinStrategy.INCLUSION_EXCLUSION, JoinStrategy.TELESCOPING)) {
      RelNode delta = DeltaDerivation.derive(view, strategy, DeltaContext.EVERY_CHANGING_TABLE);
      // every scan of the view is read from a delta in some term
      assertThat(explain(delta)).contains("orders_delta", "items_delta");
      List<String> terms = JoinTerms.of(view, delta);
      if (strategy == JoinStrategy.INCLUSION_EXCLUSION) {
        // one term per non-empty subset of the six inputs, subtracted for an even size
        assertThat(terms)
            .hasSize(63)
            .contains("- Δorders#1 ⋈ Δorders#2 ⋈ orders#3 ⋈ orders#4" + " ⋈ orders#5 ⋈ items");
        assertThat(terms.get(62))
            .isEqualTo("- Δorders#1 ⋈ Δorders#2 ⋈ Δorders#3 ⋈ Δorders#4 ⋈ Δorders#5 ⋈ Δitems");
      } else {
        assertThat(terms)
            .containsExactly(
                "+ Δorders#1 ⋈ orders#2⁻ ⋈ orders#3⁻ ⋈ orders#4⁻ ⋈ orders#5⁻ ⋈ items⁻",
                "+ orders#1 ⋈ Δorders#2 ⋈ orders#3⁻ ⋈ orders#4⁻ ⋈ orders#5⁻ ⋈ items⁻",
                "+ orders#1 ⋈ orders#2 ⋈ Δorders#3 ⋈ orders#4⁻ ⋈ orders#5⁻ ⋈ items⁻",
                "+ orders#1 ⋈ orders#2 ⋈ orders#3 ⋈ Δorders#4 ⋈ orders#5⁻ ⋈ items⁻",
                "+ orders#1 ⋈ orders#2 ⋈ orders#3 ⋈ orders#4 ⋈ Δorders#5 ⋈ items⁻",
                "+ orders#1 ⋈ orders#2 ⋈ orders#3 ⋈ orders#4 ⋈ orders#5 ⋈ Δitems");
      }
    }
  }

  @Test
  void aForeignKeyPrunesTheTermOfInsertedReferencedRows() throws Exception {
    // items.order_id references orders.id; orders only had inserts
    DeltaContext bothChanged =
        new DeltaContext(t -> true, t -> t.getQualifiedName().get(1).equals("orders"));
    for (JoinStrategy strategy :
        List.of(JoinStrategy.INCLUSION_EXCLUSION, JoinStrategy.TELESCOPING)) {
      DeltaDerivation derivation = DeltaDerivation.of(view(ORDERS_ITEMS), strategy, bothChanged);
      RelNode delta = derivation.plan();
      // items⁻ ⋈ Δorders is empty: only the change of items joins, with the current orders
      assertThat(explain(delta))
          .isEqualTo(
              """
              LogicalProject(status=[$1], qty=[$4], _ivm_weight=[$5])
                LogicalProject(id=[$0], status=[$1], amount=[$2], order_id=[$3], qty=[$4], _ivm_weight=[$5])
                  LogicalJoin(condition=[=($0, $3)], joinType=[inner])
                    LogicalTableScan(table=[[main, orders]])
                    LogicalTableScan(table=[[temp, items_delta]])""");
      assertThat(JoinTerms.of(view(ORDERS_ITEMS), delta)).containsExactly("+ orders ⋈ Δitems");
      assertThat(derivation.prunedTerms())
          .containsExactly(
              "left out items⁻ ⋈ Δ(orders): FOREIGN KEY items(order_id) REFERENCES orders(id)"
                  + " and orders was only inserted into");
    }
  }

  @Test
  void aForeignKeyPrunesTheTermOfDeletedReferencedRows() throws Exception {
    // items.order_id references orders.id; orders only had deletes
    DeltaContext bothChanged =
        new DeltaContext(
            t -> true,
            t -> false,
            t -> t.getQualifiedName().get(1).equals("orders"),
            DeltaContext.CHANGING_TABLES);
    for (JoinStrategy strategy :
        List.of(JoinStrategy.INCLUSION_EXCLUSION, JoinStrategy.TELESCOPING)) {
      DeltaDerivation derivation = DeltaDerivation.of(view(ORDERS_ITEMS), strategy, bothChanged);
      RelNode delta = derivation.plan();
      // items' ⋈ Δorders is empty: only the change of items joins, with the previous orders
      assertThat(JoinTerms.of(view(ORDERS_ITEMS), delta)).containsExactly("+ orders⁻ ⋈ Δitems");
      assertThat(derivation.prunedTerms())
          .containsExactly(
              "left out items' ⋈ Δ(orders): FOREIGN KEY items(order_id) REFERENCES orders(id)"
                  + " and orders was only deleted from");
    }
  }

  @Test
  void withoutADeclaredKeyOrWithInsertsAndDeletesNothingIsPruned() throws Exception {
    DeltaContext ordersChanged = new DeltaContext(t -> true, t -> false);
    assertThat(
            explain(
                DeltaDerivation.derive(
                    view(ORDERS_ITEMS), JoinStrategy.TELESCOPING, ordersChanged)))
        .contains("orders_delta", "items_delta");
    // the join is on another column than the declared key
    DeltaContext ordersInserted =
        new DeltaContext(t -> true, t -> t.getQualifiedName().get(1).equals("orders"));
    assertThat(
            explain(
                DeltaDerivation.derive(
                    view("SELECT o.status FROM orders o JOIN items i ON o.id = i.qty"),
                    JoinStrategy.TELESCOPING,
                    ordersInserted)))
        .contains("orders_delta", "items_delta");
  }
}
