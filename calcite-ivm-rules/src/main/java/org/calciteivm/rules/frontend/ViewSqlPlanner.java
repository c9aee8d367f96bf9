package org.calciteivm.rules.frontend;

import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.fun.SqlLibrary;
import org.apache.calcite.sql.fun.SqlLibraryOperatorTableFactory;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.parser.babel.SqlBabelParserImpl;
import org.apache.calcite.sql.util.SqlBasicVisitor;
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
import org.checkerframework.checker.nullness.qual.Nullable;

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
   * @throws UnsupportedViewException if the query orders its result or calls a window function
   */
  public RelNode toRel(String viewName, String sql) throws SQLException {
    Planner planner = Frameworks.getPlanner(config);
    try {
      SqlNode parsed = planner.parse(sql);
      SqlNode validated = planner.validate(parsed);
      SqlCall window = firstWindowFunction(validated);
      if (window != null) {
        // named as written: Calcite expands SUM and AVG over windows into COUNTs and SUMs
        throw UnsupportedViewException.notYet(
            viewName, "window function " + sourceText(sql, window));
      }
      RelRoot root = planner.rel(validated);
      if (!root.collation.equals(RelCollations.EMPTY)) {
        throw UnsupportedViewException.notYet(
            viewName, "ORDER BY", "a materialized view is a bag; order rows when you query it");
      }
      RelNode rel = InLists.restore(root.project(true));
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

  /** The first {@code f(...) OVER ...} in {@code query}, or null. */
  private static @Nullable SqlCall firstWindowFunction(SqlNode query) {
    List<SqlCall> found = new ArrayList<>();
    query.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (!found.isEmpty()) {
              return null;
            }
            if (call.getKind() == SqlKind.OVER) {
              found.add(call);
              return null;
            }
            return super.visit(call);
          }
        });
    return found.isEmpty() ? null : found.get(0);
  }

  /**
   * The text of {@code over} in {@code sql} as the user wrote it, on one line; Calcite's rendering
   * if the parser recorded no position.
   */
  private static String sourceText(String sql, SqlCall over) {
    SqlParserPos pos = over.getParserPosition();
    int start = offset(sql, pos.getLineNum(), pos.getColumnNum());
    int end = offset(sql, pos.getEndLineNum(), pos.getEndColumnNum());
    String text =
        start >= 0 && end >= start && end < sql.length() ? sql.substring(start, end + 1) : "";
    if (!text.toUpperCase(Locale.ROOT).contains("OVER")) {
      text = over.toString(); // positions that do not cover the call
    }
    return text.replaceAll("\\s+", " ").trim();
  }

  /** The index of 1-based {@code line} and {@code column} in {@code sql}, or -1. */
  private static int offset(String sql, int line, int column) {
    if (line < 1 || column < 1) {
      return -1;
    }
    int index = 0;
    for (int l = 1; l < line; l++) {
      index = sql.indexOf('\n', index) + 1;
      if (index == 0) {
        return -1;
      }
    }
    return index + column - 1;
  }

  private static String firstLine(Throwable e) {
    String message = String.valueOf(e.getMessage());
    int newline = message.indexOf('\n');
    return newline < 0 ? message : message.substring(0, newline);
  }
}
