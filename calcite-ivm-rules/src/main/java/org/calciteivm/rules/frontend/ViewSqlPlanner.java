package org.calciteivm.rules.frontend;

import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.plan.Contexts;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.metadata.JaninoRelMetadataProvider;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.metadata.RelMetadataQueryBase;
import org.apache.calcite.rel.type.RelDataTypeSystem;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.fun.SqlLibrary;
import org.apache.calcite.sql.fun.SqlLibraryOperatorTableFactory;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.babel.SqlBabelParserImpl;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.sql.validate.SqlConformanceEnum;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql2rel.SqlToRelConverter;
import org.apache.calcite.tools.FrameworkConfig;
import org.apache.calcite.tools.Frameworks;
import org.apache.calcite.tools.Planner;
import org.apache.calcite.tools.RelBuilder;
import org.apache.calcite.tools.RelConversionException;
import org.apache.calcite.tools.ValidationException;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.rules.IvmRelBuilders;

/**
 * Turns a view's SQL into its logical plan, with the conventions of DuckDB: double-quoted
 * identifiers, names matched case-insensitively, and no rewrite that would compute a value with
 * Calcite's semantics instead of DuckDB's (no constant folding, no simplification).
 */
public final class ViewSqlPlanner {
  private final FrameworkConfig config;

  /**
   * A planner over {@code defaultSchema}, the schema unqualified names resolve in, whose parent
   * holds the other schemas, with Calcite's standard and PostgreSQL functions.
   */
  public ViewSqlPlanner(SchemaPlus defaultSchema, RelDataTypeSystem typeSystem) {
    this(defaultSchema, typeSystem, SqlOperatorTables.of());
  }

  /**
   * A planner that also knows the functions of {@code moreFunctions}, looked up after Calcite's own
   * (for example the target database's functions).
   */
  public ViewSqlPlanner(
      SchemaPlus defaultSchema, RelDataTypeSystem typeSystem, SqlOperatorTable moreFunctions) {
    this.config =
        Frameworks.newConfigBuilder()
            .defaultSchema(defaultSchema)
            .context(Contexts.of(IvmRelBuilders.configure(RelBuilder.Config.DEFAULT)))
            .typeSystem(typeSystem)
            .parserConfig(
                SqlParser.config()
                    .withQuoting(Quoting.DOUBLE_QUOTE)
                    .withUnquotedCasing(Casing.UNCHANGED)
                    .withQuotedCasing(Casing.UNCHANGED)
                    .withCaseSensitive(false)
                    .withParserFactory(SqlBabelParserImpl.FACTORY)
                    .withConformance(SqlConformanceEnum.LENIENT))
            // no call rewrites: COALESCE must reach DuckDB as COALESCE, not as a CASE (which
            // DuckDB 2.0 filters wrongly on an all-NULL column under LIKE)
            .sqlValidatorConfig(SqlValidator.Config.DEFAULT.withCallRewrite(false))
            .operatorTable(
                new FallbackOperatorTable(
                    SqlLibraryOperatorTableFactory.INSTANCE.getOperatorTable(
                        SqlLibrary.STANDARD, SqlLibrary.POSTGRESQL),
                    moreFunctions))
            .sqlToRelConverterConfig(
                SqlToRelConverter.config()
                    .withExpand(false)
                    .withTrimUnusedFields(false)
                    .withInSubQueryThreshold(Integer.MAX_VALUE)
                    .withRelBuilderConfigTransform(IvmRelBuilders::configure))
            .build();
  }

  /**
   * Parses and validates {@code sql}, the query of the materialized view {@code viewName}, and
   * returns its logical plan with exactly the query's output columns.
   *
   * @throws SQLSyntaxErrorException if the SQL does not parse or validate
   * @throws UnsupportedViewException if the query orders or limits its result
   */
  public RelNode toRel(String viewName, String sql) throws SQLException {
    Planner planner = Frameworks.getPlanner(config);
    try {
      SqlNode parsed = planner.parse(sql);
      SqlNode validated = planner.validate(parsed);
      RelRoot root = planner.rel(validated);
      if (!root.collation.equals(RelCollations.EMPTY)) {
        throw UnsupportedViewException.notYet(
            viewName, "ORDER BY", "a materialized view is a bag; order rows when you query it");
      }
      RelNode rel = root.project(true);
      rel.getCluster().setMetadataQuerySupplier(ViewSqlPlanner::metadataQuery);
      return rel;
    } catch (SqlParseException e) {
      throw new SQLSyntaxErrorException(
          "materialized view \"" + viewName + "\": syntax error in query: " + firstLine(e),
          "42601",
          e);
    } catch (ValidationException e) {
      Throwable cause = e.getCause() == null ? e : e.getCause();
      throw new SQLSyntaxErrorException(
          "materialized view \"" + viewName + "\": invalid query: " + firstLine(cause), "42000", e);
    } catch (RelConversionException e) {
      throw new IllegalStateException("cannot convert view " + viewName + " to a plan", e);
    } finally {
      planner.close();
    }
  }

  /**
   * A metadata query that works on any thread. Calcite keeps its metadata handlers in a thread
   * local that its planner sets on the planning thread; a view's delta plans are compiled later, on
   * whichever thread refreshes it, so the handlers are installed where they are missing.
   */
  private static RelMetadataQuery metadataQuery() {
    if (RelMetadataQueryBase.THREAD_PROVIDERS.get() == null) {
      RelMetadataQueryBase.THREAD_PROVIDERS.set(JaninoRelMetadataProvider.DEFAULT);
    }
    return RelMetadataQuery.instance();
  }

  /** A relational builder over the planner's schema, for plans that are not written in SQL. */
  public RelBuilder relBuilder() {
    return RelBuilder.create(config);
  }

  /** Explains {@code rel} as Calcite does, one operator per line. */
  public static String explain(RelNode rel) {
    return RelOptUtil.toString(rel);
  }

  private static String firstLine(Throwable e) {
    String message = String.valueOf(e.getMessage());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
