package org.calciteivm.rules.frontend;

import static java.util.Objects.requireNonNull;

import com.google.common.collect.ImmutableSet;
import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.config.CalciteConnectionConfig;
import org.apache.calcite.config.CalciteConnectionProperty;
import org.apache.calcite.config.NullCollation;
import org.apache.calcite.jdbc.CalciteSchema;
import org.apache.calcite.jdbc.JavaTypeFactoryImpl;
import org.apache.calcite.plan.Contexts;
import org.apache.calcite.plan.ConventionTraitDef;
import org.apache.calcite.plan.RelOptCluster;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.plan.RelOptUtil;
import org.apache.calcite.plan.volcano.VolcanoPlanner;
import org.apache.calcite.prepare.CalciteCatalogReader;
import org.apache.calcite.rel.RelCollationTraitDef;
import org.apache.calcite.rel.RelCollations;
import org.apache.calcite.rel.RelFieldCollation;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.RelRoot;
import org.apache.calcite.rel.core.Sort;
import org.apache.calcite.rel.logical.LogicalSort;
import org.apache.calcite.rel.metadata.RelMetadataQuery;
import org.apache.calcite.rel.type.RelDataType;
import org.apache.calcite.rel.type.RelDataTypeSystem;
import org.apache.calcite.rex.RexBuilder;
import org.apache.calcite.runtime.CalciteContextException;
import org.apache.calcite.schema.SchemaPlus;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlOperatorTable;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.fun.SqlLibrary;
import org.apache.calcite.sql.fun.SqlLibraryOperatorTableFactory;
import org.apache.calcite.sql.fun.SqlLibraryOperators;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.parser.babel.SqlBabelParserImpl;
import org.apache.calcite.sql.type.SqlTypeCoercionRule;
import org.apache.calcite.sql.type.SqlTypeName;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.calcite.sql.util.SqlOperatorTables;
import org.apache.calcite.sql.validate.SqlConformanceEnum;
import org.apache.calcite.sql.validate.SqlValidator;
import org.apache.calcite.sql2rel.RelDecorrelator;
import org.apache.calcite.sql2rel.SqlToRelConverter;
import org.apache.calcite.tools.FrameworkConfig;
import org.apache.calcite.tools.Frameworks;
import org.apache.calcite.tools.RelBuilder;
import org.calciteivm.core.UnsupportedViewException;
import org.calciteivm.rules.IvmMetadata;
import org.calciteivm.rules.IvmRelBuilders;
import org.calciteivm.rules.sql.EngineTypes;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Turns a view's SQL into its logical plan, with the conventions of DuckDB: double-quoted
 * identifiers, names matched case-insensitively, and no rewrite that would compute a value with
 * Calcite's semantics instead of DuckDB's (no constant folding, no simplification).
 */
public final class ViewSqlPlanner {
  /** The SQLState of a view Calcite failed to plan with an internal error (not a refusal). */
  public static final String CALCITE_FAILED = "XX000";

  /**
   * How view SQL is parsed: Calcite's Babel parser with DuckDB's identifier rules (double quotes,
   * case kept as written, names matched ignoring case, no limit on their length: DuckDB names an
   * unaliased column by its whole expression, which rewrites quote as an identifier).
   */
  public static final SqlParser.Config PARSER =
      SqlParser.config()
          .withQuoting(Quoting.DOUBLE_QUOTE)
          .withUnquotedCasing(Casing.UNCHANGED)
          .withQuotedCasing(Casing.UNCHANGED)
          .withCaseSensitive(false)
          .withIdentifierMaxLength(Integer.MAX_VALUE)
          .withParserFactory(SqlBabelParserImpl.FACTORY)
          .withConformance(SqlConformanceEnum.LENIENT);

  private final FrameworkConfig config;

  /** Calcite's casts, and a BOOLEAN to and from every number (DuckDB's {@code true::INTEGER}). */
  private static final SqlTypeCoercionRule BOOLEAN_NUMBER_CASTS = booleanNumberCasts();

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
    this(defaultSchema, typeSystem, moreFunctions, PARSER);
  }

  /**
   * A planner that parses with {@code parser} (its quoting, casing and case sensitivity, parser
   * factory and conformance) instead of DuckDB's conventions ({@link #PARSER}).
   */
  public ViewSqlPlanner(
      SchemaPlus defaultSchema,
      RelDataTypeSystem typeSystem,
      SqlOperatorTable moreFunctions,
      SqlParser.Config parser) {
    this.config =
        Frameworks.newConfigBuilder()
            .defaultSchema(defaultSchema)
            .context(Contexts.of(IvmRelBuilders.configure(RelBuilder.Config.DEFAULT)))
            .typeSystem(typeSystem)
            .parserConfig(parser)
            // no call rewrites: COALESCE must reach DuckDB as COALESCE, not as a CASE (which
            // DuckDB 2.0 filters wrongly on an all-NULL column under LIKE)
            .sqlValidatorConfig(SqlValidator.Config.DEFAULT.withCallRewrite(false))
            .operatorTable(
                new FallbackOperatorTable(
                    SqlOperatorTables.chain(
                        SqlLibraryOperatorTableFactory.INSTANCE.getOperatorTable(
                            SqlLibrary.STANDARD, SqlLibrary.POSTGRESQL),
                        // DuckDB's TRY_CAST(x AS t), NULL where the cast fails
                        SqlOperatorTables.of(SqlLibraryOperators.TRY_CAST),
                        // DuckDB's struct_pack(a => x), made positional after parsing
                        SqlOperatorTables.of(StructPacks.STRUCT_PACK)),
                    moreFunctions,
                    // Calcite converts PostgreSQL's SUBSTR into the standard SUBSTRING with
                    // PostgreSQL's meaning of a start below 1 (from the first character), where
                    // DuckDB's substr(s, -2) is the last two characters; Calcite's LTRIM and
                    // RTRIM take no characters to trim, DuckDB's ltrim(s, characters) does
                    Set.of(SqlKind.SUBSTR_POSTGRESQL, SqlKind.LTRIM, SqlKind.RTRIM)))
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
   * <p>Positions in messages count from the start of {@code sql}; a caller whose query is part of a
   * longer statement can pass the query blanked in place ({@link #inPlace}) so that they count from
   * the statement's.
   *
   * @throws SQLSyntaxErrorException if the SQL does not parse or validate, or is not a query
   * @throws UnsupportedViewException if the query orders its result or calls a window function
   */
  public RelNode toRel(String viewName, String sql) throws SQLException {
    SqlNode parsed;
    try {
      parsed =
          StructPacks.positional(LambdaSyntax.parser(sql, config.getParserConfig()).parseStmt());
      if (config.getTypeSystem() instanceof EngineTypes types && types.addsDaysToDates()) {
        parsed = DateArithmetic.days(parsed);
      }
      if (config.getTypeSystem() instanceof EngineTypes types
          && types.takesRemaindersOfApproximateNumbers()) {
        parsed = ApproximateRemainders.remainders(parsed);
      }
    } catch (SqlParseException e) {
      throw new SQLSyntaxErrorException(
          "materialized view \"" + viewName + "\": syntax error " + where(e, sql), "42601", e);
    }
    if (!parsed.isA(SqlKind.QUERY)) {
      throw new SQLSyntaxErrorException(
          "materialized view \""
              + viewName
              + "\": expected a query (SELECT ...) after AS, found "
              + parsed.getKind().sql.replace('_', ' ')
              + " "
              + at(parsed.getParserPosition()),
          "42601");
    }
    try {
      return convert(viewName, sql, parsed);
    } catch (CalciteContextException e) {
      throw new SQLSyntaxErrorException(
          "materialized view \"" + viewName + "\": invalid query: " + firstLine(e), "42000", e);
    } catch (RuntimeException | AssertionError | StackOverflowError e) {
      // Calcite fails on some input it accepted with internal errors; the user gets their view's
      // name and Calcite's message, never a bare Error
      throw new SQLException(
          "materialized view \""
              + viewName
              + "\": cannot plan the query: "
              + firstLine(e)
              + " ("
              + e.getClass().getSimpleName()
              + " in Apache Calcite)",
          CALCITE_FAILED,
          e);
    }
  }

  /** Validates {@code parsed} and converts it to a logical plan. */
  private RelNode convert(String viewName, String sql, SqlNode parsed) throws SQLException {
    JavaTypeFactoryImpl typeFactory = EngineTypeFactory.of(config.getTypeSystem());
    SchemaPlus defaultSchema = requireNonNull(config.getDefaultSchema(), "defaultSchema");
    SchemaPlus rootSchema = defaultSchema;
    while (rootSchema.getParentSchema() != null) {
      rootSchema = rootSchema.getParentSchema();
    }
    EngineTypes engineTypes = config.getTypeSystem() instanceof EngineTypes types ? types : null;
    Map<String, SqlTypeName> typeNames = engineTypes == null ? Map.of() : engineTypes.typeNames();
    CalciteCatalogReader catalogReader =
        new CalciteCatalogReader(
            CalciteSchema.from(rootSchema),
            CalciteSchema.from(defaultSchema).path(null),
            typeFactory,
            CalciteConnectionConfig.DEFAULT
                .set(
                    CalciteConnectionProperty.CASE_SENSITIVE,
                    String.valueOf(config.getParserConfig().caseSensitive()))
                .set(
                    CalciteConnectionProperty.CONFORMANCE,
                    config.getParserConfig().conformance().toString())) {
          @Override
          public @Nullable RelDataType getNamedType(SqlIdentifier typeName) {
            // the engine's other names of types (CAST(x AS TEXT)), which Calcite's parser reads
            // as names of user-defined types
            RelDataType named = super.getNamedType(typeName);
            SqlTypeName standard =
                named == null && typeName.isSimple()
                    ? typeNames.get(typeName.getSimple().toUpperCase(Locale.ROOT))
                    : null;
            return standard == null ? named : typeFactory.createSqlType(standard);
          }
        };
    SqlValidator validator =
        new ViewValidator(
            SqlOperatorTables.chain(config.getOperatorTable(), catalogReader),
            catalogReader,
            typeFactory,
            config
                .getSqlValidatorConfig()
                .withConformance(config.getParserConfig().conformance())
                .withIdentifierExpansion(true)
                // DuckDB sorts NULLs last in both directions (a window's ORDER BY x DESC)
                .withDefaultNullCollation(NullCollation.LAST)
                .withTypeCoercionRules(
                    engineTypes != null && engineTypes.castsBooleansAndNumbers()
                        ? BOOLEAN_NUMBER_CASTS
                        : null));
    SqlNode validated = validator.validate(parsed);
    SqlCall window = firstWindowFunction(validated);
    if (window != null) {
      // named as written: Calcite expands SUM and AVG over windows into COUNTs and SUMs
      throw UnsupportedViewException.notYet(viewName, "window function " + sourceText(sql, window));
    }
    // the planner Calcite's own Planner gives a cluster, so that engines built on Calcite can
    // still implement the plan (and its delta plans) with their usual rules
    VolcanoPlanner planner = new VolcanoPlanner(config.getContext());
    RelOptUtil.registerDefaultRules(planner, false, false);
    planner.addRelTraitDef(ConventionTraitDef.INSTANCE);
    planner.addRelTraitDef(RelCollationTraitDef.INSTANCE);
    RelOptCluster cluster = RelOptCluster.create(planner, new RexBuilder(typeFactory));
    cluster.setMetadataQuerySupplier(ViewSqlPlanner::metadataQuery);
    SqlToRelConverter converter =
        new SqlToRelConverter(
            NO_VIEWS,
            validator,
            catalogReader,
            cluster,
            EngineConvertlets.INSTANCE,
            config.getSqlToRelConverterConfig());
    RelRoot root = converter.convertQuery(validated, false, true);
    // Calcite's own Planner flattens structured types here; a view does not: a STRUCT column
    // stays one column, and DuckDB reads its fields (s.a) as written.
    // As Calcite's own Planner does: correlated subqueries become joins where they can
    root = root.withRel(SubqueryJoins.of(viewName, StructPacks.fieldsRead(root.rel)));
    root =
        root.withRel(
            RelDecorrelator.decorrelateQuery(
                root.rel,
                config.getSqlToRelConverterConfig().getRelBuilderFactory().create(cluster, null)));
    if (root.collation.equals(RelCollations.EMPTY)) {
      return InLists.restore(root.project(true));
    }
    // ORDER BY without LIMIT: the order in which the view's rows are read, a Sort on top
    if (!(root.rel instanceof Sort sort) || sort.fetch != null || sort.offset != null) {
      return InLists.restore(root.project(true)); // LIMIT/OFFSET: the analysis names it
    }
    List<Integer> outputs = root.fields.stream().map(Map.Entry::getKey).toList();
    List<RelFieldCollation> order = new ArrayList<>();
    for (RelFieldCollation key : root.collation.getFieldCollations()) {
      int column = outputs.indexOf(key.getFieldIndex());
      if (column < 0) {
        throw UnsupportedViewException.notYet(
            viewName,
            "ORDER BY an expression the view does not select",
            "select it, or order rows when you query the view");
      }
      order.add(key.withFieldIndex(column));
    }
    RelNode rows = InLists.restore(root.withRel(sort.getInput()).project(true));
    return LogicalSort.create(rows, RelCollations.of(order), null, null);
  }

  /** Views of the schema are tables to calcite-ivm: there is nothing to expand. */
  private static final RelOptTable.ViewExpander NO_VIEWS =
      (rowType, queryString, schemaPath, viewPath) -> {
        throw new UnsupportedOperationException("view expansion: " + queryString);
      };

  /**
   * {@code query}, which starts at {@code start} in {@code statement}, preceded by the statement's
   * text up to there with every character but line breaks blanked, so that the positions Calcite
   * reports in it are the statement's.
   */
  public static String inPlace(String statement, int start) {
    StringBuilder blanked = new StringBuilder(statement.length());
    for (int i = 0; i < start; i++) {
      char c = statement.charAt(i);
      blanked.append(c == '\n' || c == '\r' ? c : ' ');
    }
    return blanked.append(statement, start, statement.length()).toString();
  }

  /**
   * Where a parse error is, for a message: at or near which text, on which line and column, and
   * Calcite's description (its first line, without the position it repeats).
   */
  private static String where(SqlParseException e, String sql) {
    String description =
        firstLine(e).replaceAll(" at line \\d+, column \\d+\\.?$", "").replaceAll("\\.$", "");
    SqlParserPos pos = e.getPos();
    if (pos == null && e.getCause() instanceof CalciteContextException context) {
      pos =
          new SqlParserPos(
              context.getPosLine(),
              context.getPosColumn(),
              context.getEndPosLine(),
              context.getEndPosColumn());
    }
    if (pos == null || pos.getLineNum() < 1) {
      return "in query: " + description;
    }
    int start = offset(sql, pos.getLineNum(), pos.getColumnNum());
    if (description.contains("<EOF>") || start < 0 || start >= sql.length()) {
      return "at the end of the query " + at(pos) + ": the query is incomplete";
    }
    int end = offset(sql, pos.getEndLineNum(), pos.getEndColumnNum());
    String near = sql.substring(start, Math.min(sql.length(), Math.max(start, end) + 1));
    return "at or near \""
        + near.replaceAll("\\s+", " ").trim()
        + "\" "
        + at(pos)
        + ": "
        + description;
  }

  private static String at(SqlParserPos pos) {
    return "(line " + pos.getLineNum() + ", column " + pos.getColumnNum() + ")";
  }

  /**
   * A metadata query that works on any thread. Calcite keeps its metadata handlers in a thread
   * local that its planner sets on the planning thread; a view's delta plans are compiled later, on
   * whichever thread refreshes it, so the handlers are installed where they are missing.
   */
  private static RelMetadataQuery metadataQuery() {
    IvmMetadata.onThisThread();
    return RelMetadataQuery.instance();
  }

  /** A relational builder over the planner's schema, for plans that are not written in SQL. */
  public RelBuilder relBuilder() {
    return RelBuilder.create(config);
  }

  /**
   * Explains {@code rel} as Calcite does, one operator per line, with a large subplan read in
   * several places written once ({@link PlanText}).
   */
  public static String explain(RelNode rel) {
    return PlanText.of(rel);
  }

  /**
   * The first {@code f(...) OVER ...} in {@code query} other than in an item of a select list or in
   * a {@code QUALIFY} condition (which the analysis takes: window functions of the view's rows, at
   * its top, are maintained by recomputing the partitions a change touches), or null.
   */
  private static @Nullable SqlCall firstWindowFunction(SqlNode query) {
    List<SqlCall> found = new ArrayList<>();
    Set<SqlNode> items = Collections.newSetFromMap(new IdentityHashMap<>());
    query.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (call instanceof SqlSelect select) {
              for (SqlNode item : select.getSelectList()) {
                items.add(item.getKind() == SqlKind.AS ? ((SqlCall) item).operand(0) : item);
              }
              if (select.getQualify() != null) {
                items.add(select.getQualify()); // a filter over the select list's windows
              }
            }
            if (!found.isEmpty() || items.contains(call)) {
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
  public static int offset(String sql, int line, int column) {
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

  private static SqlTypeCoercionRule booleanNumberCasts() {
    Map<SqlTypeName, ImmutableSet<SqlTypeName>> casts =
        new HashMap<>(SqlTypeCoercionRule.instance().getTypeMapping());
    casts.put(
        SqlTypeName.BOOLEAN,
        ImmutableSet.<SqlTypeName>builder()
            .addAll(casts.get(SqlTypeName.BOOLEAN))
            .addAll(SqlTypeName.NUMERIC_TYPES)
            .build());
    for (SqlTypeName number : SqlTypeName.NUMERIC_TYPES) {
      ImmutableSet<SqlTypeName> from = casts.get(number);
      if (from != null) {
        casts.put(
            number,
            ImmutableSet.<SqlTypeName>builder().addAll(from).add(SqlTypeName.BOOLEAN).build());
      }
    }
    return SqlTypeCoercionRule.instance(casts);
  }
}
