package org.calciteivm.jdbc.refresh;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import com.google.common.collect.ImmutableSet;
import com.google.common.collect.Maps;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import org.apache.calcite.plan.RelOptTable;
import org.apache.calcite.rel.RelNode;
import org.apache.calcite.rel.core.Aggregate;
import org.calciteivm.core.IvmNames;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.jdbc.catalog.CalciteSchemas;
import org.calciteivm.jdbc.catalog.DuckDbCatalog;
import org.calciteivm.jdbc.catalog.DuckDbFunctions;
import org.calciteivm.jdbc.catalog.TrackedTable;
import org.calciteivm.jdbc.catalog.TrackedTables;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.rules.aggregate.AggregateState;
import org.calciteivm.rules.aggregate.StateVersion;
import org.calciteivm.rules.analysis.RowKeys;
import org.calciteivm.rules.analysis.ViewAnalyzer;
import org.calciteivm.rules.api.Change;
import org.calciteivm.rules.api.DeltaProgram;
import org.calciteivm.rules.api.IvmCompiler;
import org.calciteivm.rules.api.MaintainedView;
import org.calciteivm.rules.api.SqlTarget;
import org.calciteivm.rules.api.StoredView;
import org.calciteivm.rules.delta.JoinTerms;
import org.calciteivm.rules.frontend.ListElementAggregates;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.calciteivm.rules.merge.GroupMerge;
import org.calciteivm.rules.merge.StandardMerge;
import org.calciteivm.rules.sql.DuckDbTypeSystem;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Compiles one view: plans its query with Calcite, checks it can be maintained, and writes for
 * DuckDB the statements that create its stored state and the {@link RefreshProgram} that keeps it
 * up to date. This is the only place that plans; a refresh only executes what was compiled here.
 *
 * <p>A bag view (projections and filters) stores its rows. An aggregate view stores one row of
 * {@link AggregateState} per group and is read through a DuckDB view that computes the aggregates
 * from the state and applies what lies above the aggregate (HAVING, expressions over aggregates),
 * so that those are always evaluated on the current state.
 */
public final class ViewCompiler {
  private final Connection connection;
  private final CalciteSchemas.PlanningSchema schema;
  private final String viewName;
  private final String query;

  /** The query as the user wrote it, which names and types the view's columns. */
  private final String userQuery;

  private final MaintainedView maintained;
  private final RelNode plan;
  private final ViewAnalyzer.Analysis analysis;

  /**
   * The columns of the view's query as DuckDB describes them, and the types of its stored state's,
   * once asked: a delta compiler outlives the connection it was made on ({@link #deltaCompiler}).
   */
  private @Nullable List<DescribedColumn> describedColumns;

  private @Nullable List<String> storedTypes;

  private ViewCompiler(
      Connection connection,
      CalciteSchemas.PlanningSchema schema,
      ViewSqlPlanner planner,
      String viewName,
      String query,
      String userQuery,
      StateVersion version)
      throws SQLException {
    this.connection = connection;
    this.userQuery = userQuery.trim();
    this.schema = schema;
    this.viewName = viewName;
    // the query may be given in place in its statement, blanks before it (see ViewSqlPlanner)
    this.query = query.trim();
    IvmCompiler compiler = IvmCompiler.ofPlans(SqlTarget.duckDb()).withStateVersion(version);
    RelNode planned = ListElementAggregates.fold(planner.toRel(viewName, query));
    // refused by the rules before DuckDB is asked about the query (a failed DESCRIBE aborts the
    // transaction CREATE runs in), then planned again in DuckDB's column order if it differs
    MaintainedView compiled = compiler.compile(viewName, planned);
    List<String> duckDbNames = describedColumns().stream().map(DescribedColumn::name).toList();
    for (String name : duckDbNames) {
      if (name.equalsIgnoreCase(TrackedTables.ROWID)) {
        // the merge finds stored rows by DuckDB's row identifier, which the column would hide
        throw new SQLFeatureNotSupportedException(
            "materialized view \""
                + viewName
                + "\" cannot have a column named \""
                + name
                + "\" yet: it hides DuckDB's row identifier rowid (name it otherwise, AS ...)",
            "0A000");
      }
    }
    RelNode ordered = DuckDbColumnOrder.of(planned, duckDbNames);
    this.maintained = ordered == planned ? compiled : compiler.compile(viewName, ordered);
    this.plan = maintained.plan();
    this.analysis = maintained.analysis();
  }

  /**
   * Plans {@code query}, the query of view {@code viewName}, in a schema where the {@code tracked}
   * tables are changing.
   *
   * @throws org.calciteivm.core.UnsupportedViewException if the view cannot be maintained
   */
  public static ViewCompiler plan(
      Connection connection, String viewName, String query, Collection<TrackedTable> tracked)
      throws SQLException {
    return plan(connection, viewName, query, query, tracked);
  }

  /**
   * Plans {@code query}, the query {@code userQuery} of view {@code viewName} split into
   * intermediate states ({@link IntermediateStates}), in a schema where the {@code tracked} tables
   * are changing. The view's columns are named and typed as DuckDB names and types those of {@code
   * userQuery}.
   */
  public static ViewCompiler plan(
      Connection connection,
      String viewName,
      String query,
      String userQuery,
      Collection<TrackedTable> tracked)
      throws SQLException {
    return plan(
        connection,
        viewName,
        query,
        userQuery,
        tracked,
        DuckDbFunctions.read(connection),
        StateVersion.CURRENT);
  }

  private static ViewCompiler plan(
      Connection connection,
      String viewName,
      String query,
      String userQuery,
      Collection<TrackedTable> tracked,
      DuckDbFunctions functions,
      StateVersion version)
      throws SQLException {
    CalciteSchemas.PlanningSchema schema =
        CalciteSchemas.build(connection, DuckDbCatalog.read(connection), tracked);
    ViewSqlPlanner planner =
        new ViewSqlPlanner(
            schema.root().getSubSchema("main"), DuckDbTypeSystem.INSTANCE, functions);
    return new ViewCompiler(connection, schema, planner, viewName, query, userQuery, version);
  }

  /**
   * Plans the registered view {@code view} again, in a schema where the {@code tracked} tables are
   * changing: its query, split into the hidden views it owns if it owns any ({@link *
   * IntermediateStates}), as CREATE split it.
   */
  public static ViewCompiler plan(
      Connection connection, ViewEntry view, Collection<TrackedTable> tracked) throws SQLException {
    DuckDbFunctions functions = DuckDbFunctions.read(connection); // read once, for both steps
    String query =
        view.splitsQuery()
            ? IntermediateStates.split(
                    view.query(),
                    view.id(),
                    view.name(),
                    functions,
                    IntermediateStates.ColumnNames.describedOn(connection))
                .query()
            : view.query();
    // a view keeps the state layout of the version that stored it: the newest whose columns its
    // table has
    for (StateVersion version : StateVersion.NEWEST_FIRST) {
      ViewCompiler compiler =
          plan(connection, view.name(), query, view.query(), tracked, functions, version);
      Aggregate aggregate = compiler.analysis.aggregate();
      if (aggregate == null
          || StoredState.laidOut(connection, view, AggregateState.of(aggregate))) {
        return compiler;
      }
    }
    throw new IllegalStateException(
        "the table of view " + view.displayName() + " has columns of no known state layout");
  }

  /**
   * Makes {@code table}, which was not tracked when the view was planned (or captured fewer
   * columns), changing in the view's plan: CREATE MATERIALIZED VIEW plans the view, then tracks its
   * base tables, then compiles its delta programs from the same plan.
   */
  public void tracked(TrackedTable table) {
    schema.track(table);
  }

  /**
   * Refuses the view if it compares text columns of different collations where its maintenance
   * would keep values apart that the comparison holds equal ({@link MixedCollations}); asked at
   * CREATE only, so that a view an earlier build created still refreshes.
   */
  public void refuseMixedCollations() throws SQLException {
    MixedCollations.refuse(connection, viewName, plan);
  }

  /** What the analysis found: base tables, strategy, aggregate. */
  public ViewAnalyzer.Analysis analysis() {
    return analysis;
  }

  /**
   * The positions of the view's columns no two of its rows agree on, NULL equal to NULL (an
   * aggregate's group keys, a DISTINCT view's columns, a key of its base tables); empty if none is
   * known. Views over this one order by them without ties.
   */
  public ImmutableList<Integer> uniqueColumns() {
    return RowKeys.distinguishing(plan);
  }

  /** The columns of the stored view that users do not see (aggregate state). */
  public ImmutableList<String> hiddenColumns() {
    return ImmutableList.copyOf(maintained.stateColumns());
  }

  /** The statements that create and fill the stored state of {@code view} and its user view. */
  public List<String> creationSql(ViewEntry view) throws SQLException {
    Aggregate aggregate = analysis.aggregate();
    if (aggregate == null) {
      // DuckDB names and types the columns exactly as for the query itself
      return List.of(
          "CREATE TABLE " + view.dataTable() + " AS " + query,
          "CREATE VIEW "
              + view.userView()
              + " AS SELECT * FROM "
              + view.dataTable()
              + maintained.orderBySql());
    }
    AggregateState state = AggregateState.of(aggregate);
    String read =
        AggregateReads.sql(
            plan, StoredState.select(state, view, ""), aggregate, state, describedColumns());
    List<String> statements =
        new ArrayList<>(StoredState.create(connection, view, maintained.storedContentSql()));
    boolean ordered = !maintained.order().getFieldCollations().isEmpty();
    statements.add(
        "CREATE VIEW "
            + view.userView()
            + " AS "
            + (ordered ? "SELECT * FROM (" + read + ") AS v" + maintained.orderBySql() : read));
    return statements;
  }

  /**
   * The statements that recompute the stored content of {@code view} from the view's query, as
   * {@link #creationSql} computed it first (the hidden state of an aggregate view included), and
   * write its change into its change log if other views read it (among {@code tracked}).
   */
  public ImmutableList<String> fullRefreshSql(ViewEntry view, Collection<TrackedTable> tracked)
      throws SQLException {
    ImmutableList<String> recompute =
        ImmutableList.of(
            "DELETE FROM " + view.dataTable(),
            analysis.aggregate() == null
                ? "INSERT INTO " + view.dataTable() + " " + query
                : "INSERT INTO "
                    + view.dataTable()
                    + " ("
                    + StoredState.columns(AggregateState.of(analysis.aggregate()), "")
                    + ") "
                    + maintained.storedContentSql());
    ChangeEmission emission = changeEmission(view, tracked);
    return emission == null ? recompute : emission.full(recompute);
  }

  /**
   * How a refresh of {@code view} writes its change, if other views read it (then its user view is
   * among {@code tracked}); null if none does.
   */
  private @Nullable ChangeEmission changeEmission(ViewEntry view, Collection<TrackedTable> tracked)
      throws SQLException {
    TrackedTable log = changeLog(view, tracked);
    if (log == null) {
      return null;
    }
    String viewDeltaTable = IvmNames.viewDeltaTable(view.id());
    Aggregate aggregate = analysis.aggregate();
    ChangeEmission.Groups groups = null;
    if (aggregate != null) {
      AggregateState state = AggregateState.of(aggregate);
      // DuckDB's SEMI JOIN, not WHERE EXISTS: a correlated EXISTS over the NULL-safe keys took
      // 2.9 ms against 1.1 ms (Q3's 11,515 groups, 1,500 touched), 16 against 10 ms (460,702)
      String touchedState =
          state.keys().isEmpty()
              ? StoredState.select(state, view, "")
              : StoredState.select(state, view, "d")
                  + " SEMI JOIN "
                  + IvmNames.quote(viewDeltaTable)
                  + " AS v ON "
                  + GroupMerge.keysMatch(state);
      String oldState =
          "SELECT * FROM " + IvmNames.quote(ChangeEmission.oldStateName(viewDeltaTable));
      String mergedState =
          new StandardMerge(IvmNames::quote)
              .mergedGroups(
                  state,
                  oldState,
                  "SELECT * FROM " + IvmNames.quote(viewDeltaTable),
                  dataTableTypes(view, state));
      groups =
          new ChangeEmission.Groups(
              AggregateReads.sql(plan, touchedState, aggregate, state, describedColumns()),
              touchedState,
              AggregateReads.sql(plan, oldState, aggregate, state, describedColumns()),
              AggregateReads.sql(plan, mergedState, aggregate, state, describedColumns()));
    }
    return new ChangeEmission(log, view.userView(), groups, viewDeltaTable);
  }

  /** The change log of {@code view} (its user view, tracked) if other views read it, else null. */
  static @Nullable TrackedTable changeLog(ViewEntry view, Collection<TrackedTable> tracked) {
    return tracked.stream()
        .filter(
            t ->
                t.relation().schema().equalsIgnoreCase(view.userViewSchema())
                    && t.relation().name().equalsIgnoreCase(view.name()))
        .findFirst()
        .orElse(null);
  }

  private List<DescribedColumn> describedColumns() throws SQLException {
    if (describedColumns == null) {
      describedColumns = DescribedColumn.describe(connection, userQuery);
    }
    return describedColumns;
  }

  /** DuckDB's types of the columns of {@code state} in the table that stores {@code view}. */
  private List<String> dataTableTypes(ViewEntry view, AggregateState state) throws SQLException {
    if (storedTypes == null) {
      storedTypes = StoredState.types(connection, view, state);
    }
    return storedTypes;
  }

  /** The table id of each scan of the view, in join order (a self-join reads one table twice). */
  public ImmutableList<Integer> scannedTableIds(Collection<TrackedTable> tracked) {
    ImmutableList.Builder<Integer> scannedTableIds = ImmutableList.builder();
    for (RelOptTable scanned : JoinTerms.scannedTables(plan)) {
      scannedTableIds.add(trackedTableOf(tracked, scanned).id());
    }
    return scannedTableIds.build();
  }

  /** The compiler of the delta statements of {@code view}, whose base tables are among tracked. */
  DeltaCompiler deltaCompiler(ViewEntry view, Collection<TrackedTable> tracked)
      throws SQLException {
    schema.forView(view.id());
    Aggregate aggregate = analysis.aggregate();
    if (aggregate == null) {
      return new DeltaCompiler(
          view,
          tracked,
          DuckDbCatalog.columnNames(
              connection, IvmNames.SCHEMA, IvmNames.viewDataTable(view.id(), view.name())));
    }
    if (changeLog(view, tracked) != null) {
      // what writing the change reads from the database, now, while the connection is open:
      // compiles come later
      describedColumns();
      dataTableTypes(view, AggregateState.of(aggregate));
    }
    return new DeltaCompiler(view, tracked, List.of());
  }

  /** The tracked table a scan of the view reads. */
  private static TrackedTable trackedTableOf(Collection<TrackedTable> tracked, RelOptTable table) {
    List<String> name = table.getQualifiedName();
    String schema = name.get(name.size() - 2);
    String relation = name.get(name.size() - 1);
    return tracked.stream()
        .filter(t -> t.relation().schema().equals(schema) && t.relation().name().equals(relation))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("untracked base table " + name));
  }

  /**
   * Compiles the delta statements of one view for a set of changed tables and a join expansion,
   * each time it is asked ({@link StoredDeltas} keeps them). Compiling plans with Calcite, whose
   * plan objects are not shared between threads, so one view compiles one set at a time.
   */
  final class DeltaCompiler {
    private final ViewEntry view;
    private final List<TrackedTable> tracked;
    private final ImmutableList<String> dataColumns;

    DeltaCompiler(ViewEntry view, Collection<TrackedTable> tracked, List<String> dataColumns) {
      this.view = view;
      this.tracked = List.copyOf(tracked);
      this.dataColumns = ImmutableList.copyOf(dataColumns);
    }

    /** The program of the view for {@code pending}, join expanded by {@code joins}. */
    synchronized RefreshProgram.Delta compile(
        RefreshProgram.PendingChange pending, JoinStrategy joins) throws SQLException {
      return compileNow(pending, joins);
    }

    private RefreshProgram.Delta compileNow(
        RefreshProgram.PendingChange pending, JoinStrategy joins) throws SQLException {
      DeltaProgram delta =
          maintained.delta(
              new Change(
                  qualifiedNames(pending.changedTableIds()),
                  qualifiedNames(pending.insertOnlyTableIds()),
                  qualifiedNames(pending.deleteOnlyTableIds()),
                  joins));
      // a temporary table: unqualified names find the temporary schema first
      String viewDeltaTable = IvmNames.viewDeltaTable(view.id());
      ChangeEmission emission = changeEmission(view, tracked);
      ImmutableMap<MergeStrategy, ImmutableList<String>> merges =
          ImmutableMap.copyOf(
              Maps.transformValues(
                  maintained.mergeStatements(
                      delta,
                      new StoredView(
                          view.dataTable(), dataColumns, viewDeltaTable, emission != null)),
                  ImmutableList::copyOf));
      ImmutableMap<MergeStrategy, ImmutableList<String>> statements =
          emission == null
              ? merges
              : ImmutableMap.copyOf(Maps.transformEntries(merges, emission::incremental));
      return new RefreshProgram.Delta(
          joins,
          ImmutableList.copyOf(delta.terms()),
          ImmutableList.copyOf(delta.pruned()),
          delta.explain(),
          delta.negativeWeightsPossible(),
          statements);
    }

    /** The names the view's plan knows the tables with ids {@code tableIds} by. */
    private ImmutableSet<List<String>> qualifiedNames(Set<Integer> tableIds) {
      return tracked.stream()
          .filter(t -> tableIds.contains(t.id()))
          .map(t -> List.of(t.relation().schema(), t.relation().name()))
          .collect(ImmutableSet.toImmutableSet());
    }
  }
}
