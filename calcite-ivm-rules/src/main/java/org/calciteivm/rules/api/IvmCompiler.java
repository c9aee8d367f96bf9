package org.calciteivm.rules.api;

import java.sql.SQLException;
import java.util.Objects;
import org.apache.calcite.rel.RelCollation;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.type.RelDataTypeSystem;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.dialect.AnsiSqlDialect;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.rules.IvmMetadata;
import org.calciteivm.rules.IvmPrograms;
import org.calciteivm.rules.aggregate.AggregateState;
import org.calciteivm.rules.aggregate.StateVersion;
import org.calciteivm.rules.analysis.ViewAnalyzer;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.calciteivm.rules.sql.DuckDbTypeSystem;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Compiles materialized views for incremental maintenance: the entry point of the rewrite library.
 *
 * <pre>{@code
 * MaintainedView view = IvmCompiler.over(schema)
 *     .withTarget(SqlTarget.standard(H2SqlDialect.DEFAULT))
 *     .compile("totals", "SELECT customer, SUM(amount) AS total FROM orders GROUP BY customer");
 * DeltaProgram delta = view.delta(Change.of(JoinStrategy.AUTO, view.baseTables()));
 * String sql = delta.sql();   // per customer, the change of the stored state
 * }</pre>
 *
 * <p>A compiler is immutable: each {@code with...} method returns a new one. What it is given:
 *
 * <ul>
 *   <li>the schema in which a view's unqualified names resolve (its parent holds the other
 *       schemas), holding the base tables and their delta relations;
 *   <li>where each table's change is ({@link DeltaRelations}; by default tables implementing {@link
 *       org.calciteivm.rules.delta.ChangingTable} say it);
 *   <li>how SQL is parsed and typed (by default Calcite's: {@link SqlParser.Config#DEFAULT}, {@link
 *       RelDataTypeSystem#DEFAULT}, Calcite's standard and PostgreSQL functions);
 *   <li>the {@link SqlTarget} the SQL is written for (by default standard SQL in Calcite's ANSI
 *       dialect).
 * </ul>
 *
 * <p>{@link #duckDb} gives DuckDB's conventions for all of them, as the calcite-ivm driver uses. A
 * view the rules cannot maintain is refused with an {@link UnsupportedViewException} naming the
 * construct.
 */
public final class IvmCompiler {
  private final @Nullable SchemaPlus schema;
  private final RelDataTypeSystem typeSystem;
  private final SqlOperatorTable functions;
  private final SqlParser.Config parser;
  private final SqlTarget target;
  private final DeltaRelations deltaRelations;

  /** The layout of the stored state of aggregate views: today's, or an earlier version's. */
  private final StateVersion stateVersion;

  private IvmCompiler(
      @Nullable SchemaPlus schema,
      RelDataTypeSystem typeSystem,
      SqlOperatorTable functions,
      SqlParser.Config parser,
      SqlTarget target,
      DeltaRelations deltaRelations,
      StateVersion stateVersion) {
    this.schema = schema;
    this.typeSystem = Objects.requireNonNull(typeSystem, "typeSystem");
    this.functions = Objects.requireNonNull(functions, "functions");
    this.parser = Objects.requireNonNull(parser, "parser");
    this.target = Objects.requireNonNull(target, "target");
    this.deltaRelations = Objects.requireNonNull(deltaRelations, "deltaRelations");
    this.stateVersion = Objects.requireNonNull(stateVersion, "stateVersion");
  }

  /**
   * A compiler of views over {@code defaultSchema} with Calcite's conventions: its parser
   * configuration and type system, standard SQL {@code MERGE} in Calcite's ANSI dialect.
   */
  public static IvmCompiler over(SchemaPlus defaultSchema) {
    return new IvmCompiler(
        Objects.requireNonNull(defaultSchema, "defaultSchema"),
        RelDataTypeSystem.DEFAULT,
        SqlOperatorTables.of(),
        SqlParser.Config.DEFAULT,
        SqlTarget.standard(AnsiSqlDialect.DEFAULT),
        DeltaRelations.changingTables(),
        StateVersion.CURRENT);
  }

  /**
   * A compiler of views over {@code defaultSchema} with DuckDB's conventions: Calcite's Babel
   * parser with DuckDB's identifier rules (double quotes, case kept, names matched ignoring case),
   * DuckDB's type system, and SQL for DuckDB ({@link SqlTarget#duckDb()}).
   */
  public static IvmCompiler duckDb(SchemaPlus defaultSchema) {
    return new IvmCompiler(
        Objects.requireNonNull(defaultSchema, "defaultSchema"),
        DuckDbTypeSystem.INSTANCE,
        SqlOperatorTables.of(),
        ViewSqlPlanner.PARSER,
        SqlTarget.duckDb(),
        DeltaRelations.changingTables(),
        StateVersion.CURRENT);
  }

  /**
   * A compiler of plans only ({@link #compile(String, RelNode)}), without a schema, writing SQL for
   * {@code target}.
   */
  public static IvmCompiler ofPlans(SqlTarget target) {
    return new IvmCompiler(
        null,
        RelDataTypeSystem.DEFAULT,
        SqlOperatorTables.of(),
        SqlParser.Config.DEFAULT,
        target,
        DeltaRelations.changingTables(),
        StateVersion.CURRENT);
  }

  /** This compiler with the type system views are validated with. */
  public IvmCompiler withTypeSystem(RelDataTypeSystem typeSystem) {
    return new IvmCompiler(
        schema, typeSystem, functions, parser, target, deltaRelations, stateVersion);
  }

  /**
   * This compiler also knowing {@code functions} (for example the target's own), after Calcite's.
   */
  public IvmCompiler withFunctions(SqlOperatorTable functions) {
    return new IvmCompiler(
        schema, typeSystem, functions, parser, target, deltaRelations, stateVersion);
  }

  /** This compiler parsing with {@code parser}: quoting, casing, case sensitivity, conformance. */
  public IvmCompiler withParser(SqlParser.Config parser) {
    return new IvmCompiler(
        schema, typeSystem, functions, parser, target, deltaRelations, stateVersion);
  }

  /** This compiler writing SQL for {@code target}. */
  public IvmCompiler withTarget(SqlTarget target) {
    return new IvmCompiler(
        schema, typeSystem, functions, parser, target, deltaRelations, stateVersion);
  }

  /** This compiler finding each table's change where {@code deltaRelations} says. */
  public IvmCompiler withDeltaRelations(DeltaRelations deltaRelations) {
    return new IvmCompiler(
        schema, typeSystem, functions, parser, target, deltaRelations, stateVersion);
  }

  /**
   * This compiler laying out the stored state of aggregate views as version {@code version} did: an
   * earlier one, for planning again a view it stored ({@link StateVersion#NEWEST_FIRST}).
   */
  public IvmCompiler withStateVersion(StateVersion version) {
    return new IvmCompiler(schema, typeSystem, functions, parser, target, deltaRelations, version);
  }

  /** The target this compiler writes SQL for. */
  public SqlTarget target() {
    return target;
  }

  /**
   * Plans and analyzes view {@code name} defined by the query {@code sql}.
   *
   * @throws java.sql.SQLSyntaxErrorException if the query does not parse or validate
   * @throws UnsupportedViewException if the view cannot be maintained
   * @throws IllegalStateException if this compiler has no schema ({@link #ofPlans})
   */
  public MaintainedView compile(String name, String sql) throws SQLException {
    if (schema == null) {
      throw new IllegalStateException("a compiler of plans has no schema to plan SQL in");
    }
    return compile(
        name, new ViewSqlPlanner(schema, typeSystem, functions, parser).toRel(name, sql));
  }

  /**
   * Analyzes view {@code name} whose logical plan is {@code view} (as Calcite's {@code
   * SqlToRelConverter} builds them; an {@code ORDER BY} without {@code LIMIT} on top is the order
   * the view is read in, not part of what is maintained).
   *
   * @throws UnsupportedViewException if the view cannot be maintained, on this target
   */
  public MaintainedView compile(String name, RelNode view) throws UnsupportedViewException {
    // the plan may come from a planner of another thread
    IvmMetadata.onThisThread(view.getCluster());
    RelCollation order = RelCollations.EMPTY;
    RelNode rows = view;
    if (view instanceof Sort sort && sort.fetch == null && sort.offset == null) {
      order = sort.getCollation();
      rows = sort.getInput();
    }
    RelNode normalized = IvmPrograms.normalize(rows);
    if (stateVersion != StateVersion.CURRENT) {
      normalized = AggregateState.inVersion(normalized, stateVersion);
    }
    ViewAnalyzer.Analysis analysis = ViewAnalyzer.analyze(name, normalized);
    if (analysis.partitions() != null && target.merges() != SqlTarget.Merges.DUCKDB) {
      throw UnsupportedViewException.notYet(
          name, analysis.partitions().construct() + " on a standard SQL target");
    }
    return new MaintainedView(name, normalized, analysis, order, target, deltaRelations);
  }
}
