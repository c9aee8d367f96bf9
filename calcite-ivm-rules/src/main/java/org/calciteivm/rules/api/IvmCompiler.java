package org.calciteivm.rules.api;

import java.sql.SQLException;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.type.RelDataTypeSystem;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.rules.IvmMetadata;
import org.calciteivm.rules.IvmPrograms;
import org.calciteivm.rules.analysis.ViewAnalyzer;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.calciteivm.rules.sql.DuckDbTypeSystem;

/**
 * Compiles materialized views for incremental maintenance: the entry point of the rewrite library.
 *
 * <pre>{@code
 * MaintainedView view = IvmCompiler.over(schema).compile("totals",
 *     "SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer");
 * DeltaProgram delta = view.delta(Change.of(JoinStrategy.TELESCOPING, view.baseTables()));
 * String sql = delta.sql();   // per customer, the change of the stored state
 * }</pre>
 *
 * <p>The schema must hold the view's base tables; those that change implement {@link
 * org.calciteivm.rules.delta.ChangingTable} (see the package documentation for the delta relation's
 * shape). A view the rules cannot maintain is refused with an {@link UnsupportedViewException}
 * naming the construct.
 */
public final class IvmCompiler {
  private final ViewSqlPlanner planner;

  private IvmCompiler(ViewSqlPlanner planner) {
    this.planner = planner;
  }

  /**
   * A compiler of views over {@code defaultSchema} (in which unqualified names resolve; its parent
   * holds the other schemas), with DuckDB's type system and Calcite's standard and PostgreSQL
   * functions.
   */
  public static IvmCompiler over(SchemaPlus defaultSchema) {
    return over(defaultSchema, DuckDbTypeSystem.INSTANCE, SqlOperatorTables.of());
  }

  /** A compiler with the given type system and more functions (for example the target's own). */
  public static IvmCompiler over(
      SchemaPlus defaultSchema, RelDataTypeSystem typeSystem, SqlOperatorTable moreFunctions) {
    return new IvmCompiler(new ViewSqlPlanner(defaultSchema, typeSystem, moreFunctions));
  }

  /**
   * Plans and analyzes view {@code name} defined by the query {@code sql}.
   *
   * @throws java.sql.SQLSyntaxErrorException if the query does not parse or validate
   * @throws UnsupportedViewException if the view cannot be maintained
   */
  public MaintainedView compile(String name, String sql) throws SQLException {
    return compile(name, planner.toRel(name, sql));
  }

  /**
   * Analyzes view {@code name} whose logical plan is {@code view} (scans, filters, projections,
   * inner joins and one aggregate on top, as Calcite's {@code SqlToRelConverter} builds them).
   *
   * @throws UnsupportedViewException if the view cannot be maintained
   */
  public static MaintainedView compile(String name, RelNode view) throws UnsupportedViewException {
    // the plan may come from a planner of another thread
    IvmMetadata.onThisThread(view.getCluster());
    // an ORDER BY without LIMIT on top orders the rows when the view is read: the view is a bag
    RelCollation order = RelCollations.EMPTY;
    RelNode rows = view;
    if (view instanceof Sort sort && sort.fetch == null && sort.offset == null) {
      order = sort.getCollation();
      rows = sort.getInput();
    }
    RelNode normalized = IvmPrograms.normalize(rows);
    return new MaintainedView(name, normalized, ViewAnalyzer.analyze(name, normalized), order);
  }
}
