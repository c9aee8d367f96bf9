package org.calciteivm.spark;

import java.sql.SQLException;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.avatica.util.Quoting;
import org.apache.calcite.sql.dialect.SparkSqlDialect;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.iceberg.Table;
import org.apache.iceberg.spark.CommitMetadata;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.calciteivm.core.JoinStrategy;
import org.calciteivm.core.MergeStrategy;
import org.calciteivm.rules.aggregate.StateVersion;
import org.calciteivm.rules.api.Change;
import org.calciteivm.rules.api.DeltaProgram;
import org.calciteivm.rules.api.IvmCompiler;
import org.calciteivm.rules.api.MaintainedView;
import org.calciteivm.rules.api.SqlTarget;
import org.calciteivm.rules.api.StoredView;

/**
 * Materialized views over Iceberg tables, maintained incrementally by Spark: the entry point a
 * Spark job calls.
 *
 * <pre>{@code
 * SparkIvm ivm = SparkIvm.on(spark);
 * ivm.create("lake.db.totals", "SELECT customer, SUM(amount) AS total FROM lake.db.orders GROUP BY customer");
 * // ... any writer commits to lake.db.orders ...
 * ivm.refresh("lake.db.totals");
 * ivm.read("lake.db.totals").show();
 * }</pre>
 *
 * <p>A view is stored in the Iceberg table of its name, laid out as the rules library's {@link
 * org.calciteivm.rules.api.StateLayout} for a standard SQL target (aggregate state, or distinct
 * rows with their counts); it is read through {@link #read}. The table's properties keep the view's
 * query; the summary of each of its snapshots keeps, per base table, the snapshot whose content the
 * view holds (its watermark). A refresh reads each base table's change between its watermark and
 * its current snapshot from Iceberg's changelog ({@code create_changelog_view}: inserts weigh +1,
 * deletes -1), derives the view's change with the library's rules, and applies it with one Spark
 * SQL {@code MERGE INTO}: one Iceberg commit, which also records the new watermarks. Every read of
 * a base table in a refresh is pinned to the snapshot it consumes ({@code VERSION AS OF}), so a
 * writer committing meanwhile is picked up by the next refresh, never half by this one.
 *
 * <p>Writers need nothing from this class: any Spark job or Iceberg writer may write the base
 * tables, copy-on-write or merge-on-read, provided snapshots newer than a view's watermarks are not
 * expired before it is refreshed. Iceberg's changelog cannot read delete files: a table with
 * merge-on-read deletes has its change read from the files its snapshots added (the new data files'
 * rows, and the old snapshot's rows at the positions of the new position-delete files); if files
 * were also rewritten meanwhile (a compaction), the refresh recomputes the view.
 *
 * <p>One instance per Spark session; its methods are serialized (they use temporary views of the
 * session).
 */
public final class SparkIvm {
  /** The stored table's property that holds the view's query. */
  public static final String QUERY = "ivm.query";

  /** Spark SQL's identifiers: back-quoted, case kept as written, matched ignoring case. */
  private static final SqlParser.Config PARSER =
      SqlParser.config()
          .withQuoting(Quoting.BACK_TICK)
          .withUnquotedCasing(Casing.UNCHANGED)
          .withQuotedCasing(Casing.UNCHANGED)
          .withCaseSensitive(false);

  private final SparkSession spark;

  /**
   * The views planned so far, by stored table name: planning costs Spark catalog lookups and
   * Calcite's planner (0.4 to 1.5 s per refresh at TPC-H SF 1), so a plan is reused while the
   * view's query and its base tables' schemas are unchanged.
   */
  private final Map<List<String>, Compiled> compiled = new java.util.HashMap<>();

  /** Runs after a refresh has read its changes and before it merges them (tests commit there). */
  private Runnable beforeMerge = () -> {};

  private SparkIvm(SparkSession spark) {
    this.spark = spark;
  }

  /** Sets what runs between reading a refresh's changes and merging them; for tests. */
  void beforeMerge(Runnable action) {
    this.beforeMerge = action;
  }

  /** The views of {@code spark}'s catalogs. */
  public static SparkIvm on(SparkSession spark) {
    return new SparkIvm(spark);
  }

  /**
   * Creates the view {@code view} (a table name of an Iceberg catalog, qualified as Spark resolves
   * it) defined by {@code query} over Iceberg tables, and fills it from their current snapshots.
   *
   * @throws SQLException if the query does not parse or the view cannot be maintained (naming the
   *     construct)
   * @throws IllegalArgumentException if {@code view} exists, or a base table is not an Iceberg
   *     table or has no snapshot yet
   */
  public synchronized void create(String view, String query) throws SQLException {
    if (spark.catalog().tableExists(view)) {
      throw new IllegalArgumentException("table " + view + " already exists");
    }
    Compiled compiled = compile(view, query);
    Map<List<String>, Long> snapshots = new LinkedHashMap<>();
    compiled
        .tables()
        .forEach(
            (name, table) -> {
              IcebergTables.requireSnapshot(name, table);
              snapshots.put(name, table.currentSnapshot().snapshotId());
            });
    StringBuilder properties =
        new StringBuilder("'format-version' = '2', ")
            .append(literal(QUERY))
            .append(" = ")
            .append(literal(query));
    IcebergTables.watermarkProperties(snapshots)
        .forEach(
            (k, v) -> properties.append(", ").append(literal(k)).append(" = ").append(literal(v)));
    String create =
        "CREATE TABLE "
            + view
            + " USING iceberg TBLPROPERTIES ("
            + properties
            + ") AS "
            + pinned(compiled.view().storedContentSql(), snapshots);
    commit(view, snapshots, create);
  }

  /**
   * Brings {@code view} up to date with its base tables' current snapshots, incrementally.
   *
   * @throws IllegalStateException if a snapshot the view still needs has expired (then {@link *
   *     #refreshFull} recomputes it)
   */
  public synchronized Refresh refresh(String view) throws SQLException {
    long start = System.nanoTime();
    Compiled compiled = compileStored(view);
    Table stored = IcebergTables.load(spark, compiled.storedName());
    Map<List<String>, Long> watermarks = new LinkedHashMap<>();
    Map<List<String>, Long> current = new LinkedHashMap<>();
    Map<List<String>, IcebergTables.FileChanges> changed = new LinkedHashMap<>();
    Set<List<String>> insertOnly = new HashSet<>();
    for (Map.Entry<List<String>, Table> base : compiled.tables().entrySet()) {
      List<String> name = base.getKey();
      long watermark = IcebergTables.watermark(stored, name);
      long now = base.getValue().currentSnapshot().snapshotId();
      watermarks.put(name, watermark);
      current.put(name, now);
      if (now != watermark) {
        IcebergTables.FileChanges files =
            IcebergTables.fileChanges(base.getValue(), name, watermark, now, view);
        if (files.onlyAppends()) {
          insertOnly.add(name);
        }
        if (files.source() == IcebergTables.ChangeSource.NONE) {
          // files were rewritten while delete files are in use: no row-level change to read
          return refreshFull(view);
        }
        changed.put(name, files);
      }
    }
    long planned = System.nanoTime();
    if (changed.isEmpty()) {
      long millis = millisSince(start);
      return new Refresh(view, List.of(), null, false, millis, millis, 0, 0);
    }
    BaseTableChanges changes = new BaseTableChanges(spark);
    try {
      for (Map.Entry<List<String>, IcebergTables.FileChanges> table : changed.entrySet()) {
        List<String> name = table.getKey();
        changes.deltaView(
            name,
            compiled.tables().get(name),
            watermarks.get(name),
            current.get(name),
            table.getValue());
      }
      MaintainedView maintained = compiled.view();
      DeltaProgram delta =
          maintained.delta(new Change(changed.keySet(), insertOnly, JoinStrategy.AUTO));
      Map<MergeStrategy, List<String>> merges =
          maintained.mergeStatements(
              delta, new StoredView(view, maintained.plan().getRowType().getFieldNames(), "-"));
      MergeStrategy merge = chooseMerge(maintained, merges, insertOnly.equals(changed.keySet()));
      List<String> statements = merges.get(merge);
      if (statements.size() != 1) {
        throw new IllegalStateException("a refresh on Spark must be one statement: " + statements);
      }
      beforeMerge.run();
      long merging = System.nanoTime();
      commit(view, current, pinned(statements.get(0), current));
      return new Refresh(
          view,
          List.copyOf(changed.keySet()),
          merge,
          false,
          millisSince(start),
          (planned - start) / 1_000_000,
          (merging - planned) / 1_000_000,
          millisSince(merging));
    } finally {
      changes.close(); // the MERGE has read the changes
    }
  }

  /** Recomputes {@code view} from its query on the base tables' current snapshots. */
  public synchronized Refresh refreshFull(String view) throws SQLException {
    long start = System.nanoTime();
    Compiled compiled = compileStored(view);
    Map<List<String>, Long> current = new LinkedHashMap<>();
    compiled
        .tables()
        .forEach((name, table) -> current.put(name, table.currentSnapshot().snapshotId()));
    long merging = System.nanoTime();
    commit(
        view,
        current,
        "INSERT OVERWRITE " + view + " " + pinned(compiled.view().storedContentSql(), current));
    return new Refresh(
        view,
        List.copyOf(current.keySet()),
        null,
        true,
        millisSince(start),
        (merging - start) / 1_000_000,
        0,
        millisSince(merging));
  }

  /** The query that reads {@code view} from its stored table, in Spark SQL. */
  public synchronized String readSql(String view) throws SQLException {
    return compileStored(view).view().readSql(view);
  }

  /** The rows of {@code view}. */
  public Dataset<Row> read(String view) throws SQLException {
    return spark.sql(readSql(view));
  }

  /**
   * What a refresh of {@code view} would do: its query, how it is stored and merged, and per base
   * table the snapshot it holds and the current one.
   */
  public synchronized String explain(String view) throws SQLException {
    Compiled compiled = compileStored(view);
    Table stored = IcebergTables.load(spark, compiled.storedName());
    MaintainedView maintained = compiled.view();
    StringBuilder text = new StringBuilder();
    text.append("view ").append(view).append('\n');
    text.append("query: ").append(compiled.query()).append('\n');
    text.append("strategy: ").append(maintained.strategy()).append('\n');
    text.append("stored: keys ").append(maintained.stateLayout().keys());
    text.append(", hidden ").append(maintained.stateColumns()).append('\n');
    compiled
        .tables()
        .forEach(
            (name, table) -> {
              long watermark = IcebergTables.watermark(stored, name);
              long now = table.currentSnapshot().snapshotId();
              text.append("table ")
                  .append(String.join(".", name))
                  .append(": holds snapshot ")
                  .append(watermark)
                  .append(now == watermark ? ", up to date" : ", current " + now + " (pending)")
                  .append('\n');
            });
    return text.toString();
  }

  /**
   * Drops {@code view} and its stored table; also when its base tables are gone.
   *
   * @throws IllegalArgumentException if {@code view} is not a materialized view
   */
  public synchronized void drop(String view) {
    List<String> storedName = storedName(view);
    if (IcebergTables.load(spark, storedName).properties().get(QUERY) == null) {
      throw new IllegalArgumentException(
          "table " + view + " is not a materialized view (it has no " + QUERY + " property)");
    }
    spark.sql("DROP TABLE " + view);
    compiled.remove(storedName);
  }

  /** A view compiled for Spark, its base tables loaded from Iceberg. */
  private record Compiled(
      String query,
      List<String> storedName,
      MaintainedView view,
      Map<List<String>, Integer> schemaIds,
      Map<List<String>, Table> tables) {

    /**
     * Whether this plan still holds: its base tables, loaded again (their current snapshots then
     * replace those of the plan's), are the same tables with the schemas it was planned with.
     */
    boolean current(SparkSession spark) {
      for (Map.Entry<List<String>, Table> table : tables.entrySet()) {
        Table now = IcebergTables.load(spark, table.getKey());
        if (!now.uuid().equals(table.getValue().uuid())
            || now.schema().schemaId() != schemaIds.get(table.getKey())) {
          return false;
        }
        table.setValue(now);
      }
      return true;
    }
  }

  private Compiled compileStored(String view) throws SQLException {
    List<String> storedName = storedName(view);
    Table stored = IcebergTables.load(spark, storedName);
    String query = stored.properties().get(QUERY);
    if (query == null) {
      throw new IllegalArgumentException(
          "table " + view + " is not a materialized view (it has no " + QUERY + " property)");
    }
    Compiled cached = compiled.get(storedName);
    if (cached != null && cached.query().equals(query) && cached.current(spark)) {
      return cached;
    }
    // a view keeps the state layout of the version that stored it: the newest whose columns its
    // table has
    Set<String> storedColumns = new HashSet<>();
    stored.schema().columns().forEach(c -> storedColumns.add(c.name()));
    for (StateVersion version : StateVersion.NEWEST_FIRST) {
      Compiled fresh = compile(view, query, version);
      if (fresh.view().aggregate() == null
          || new HashSet<>(fresh.view().stateLayout().columnNames()).equals(storedColumns)) {
        compiled.put(storedName, fresh);
        return fresh;
      }
    }
    throw new IllegalStateException(
        "the stored table of view " + view + " has columns of no known state layout");
  }

  private Compiled compile(String view, String query) throws SQLException {
    return compile(view, query, StateVersion.CURRENT);
  }

  private Compiled compile(String view, String query, StateVersion version) throws SQLException {
    SparkSchemas schemas = new SparkSchemas(spark);
    IvmCompiler compiler = IvmCompiler.over(schemas.defaultSchema());
    MaintainedView maintained =
        compiler
            .withStateVersion(version)
            .withParser(PARSER)
            .withTypeSystem(SparkTypeSystem.INSTANCE)
            .withTarget(SqlTarget.standard(SparkSqlDialect.DEFAULT))
            .withDeltaRelations(SparkSchemas.deltaRelations())
            .compile(view, query);
    Map<List<String>, Table> tables = new LinkedHashMap<>();
    for (List<String> name : maintained.baseTables()) {
      tables.put(name, IcebergTables.load(spark, name));
      schemas.addDelta(name, spark.table(SparkSchemas.quote(name)).schema());
    }
    Map<List<String>, Integer> schemaIds = new LinkedHashMap<>();
    tables.forEach((name, table) -> schemaIds.put(name, table.schema().schemaId()));
    return new Compiled(query, storedName(view), maintained, schemaIds, tables);
  }

  /** The parts of the table name {@code view}, as Spark parses it. */
  private List<String> storedName(String view) {
    try {
      return scala.jdk.javaapi.CollectionConverters.asJava(
          spark.sessionState().sqlParser().parseMultipartIdentifier(view));
    } catch (Exception e) {
      throw new IllegalArgumentException("not a table name: " + view, e);
    }
  }

  /**
   * The view's own strategy; with only appends the append merge where there is one, and for MIN and
   * MAX the folding merge.
   */
  private static MergeStrategy chooseMerge(
      MaintainedView view, Map<MergeStrategy, List<String>> merges, boolean insertOnly) {
    if (insertOnly) {
      for (MergeStrategy append :
          List.of(
              MergeStrategy.BAG_APPEND, MergeStrategy.GROUP_APPEND, MergeStrategy.GROUP_MERGE)) {
        if (merges.containsKey(append)) {
          return append;
        }
      }
    }
    return view.strategy();
  }

  /**
   * {@code sql} with every read of a base table pinned to its snapshot in {@code snapshots}
   * (Spark's {@code VERSION AS OF} after the table's name, as Calcite's Spark dialect writes it).
   */
  static String pinned(String sql, Map<List<String>, Long> snapshots) {
    String result = sql;
    for (Map.Entry<List<String>, Long> table : snapshots.entrySet()) {
      String name = SparkSchemas.quote(table.getKey());
      result = result.replace(name, name + " VERSION AS OF " + table.getValue());
    }
    return result;
  }

  /**
   * Runs {@code sql} as one commit that records {@code watermarks} in its snapshot's summary. A
   * failure names {@code view} and the failures at its root: Spark wraps the error of a failing
   * task (a cast of a value that is not a number) in job and stage errors, several of them when
   * stages fail concurrently.
   */
  private void commit(String view, Map<List<String>, Long> watermarks, String sql) {
    try {
      CommitMetadata.withCommitProperties(
          IcebergTables.watermarkProperties(watermarks),
          () -> spark.sql(sql).collectAsList(),
          RuntimeException.class);
    } catch (RuntimeException e) {
      throw new IllegalStateException(
          "writing view " + view + " failed, nothing was committed: " + rootCauses(e), e);
    }
  }

  /** The distinct messages of the throwables at the ends of {@code e}'s causes and suppressed. */
  static String rootCauses(Throwable e) {
    Set<String> messages = new LinkedHashSet<>();
    collectRootCauses(e, messages, Collections.newSetFromMap(new IdentityHashMap<>()));
    return String.join("; ", messages);
  }

  private static void collectRootCauses(Throwable e, Set<String> messages, Set<Throwable> seen) {
    if (!seen.add(e)) {
      return;
    }
    Throwable cause = e.getCause();
    if (cause == null || cause == e) {
      messages.add(e.getMessage() == null ? e.toString() : e.getMessage());
    } else {
      collectRootCauses(cause, messages, seen);
    }
    for (Throwable suppressed : e.getSuppressed()) {
      collectRootCauses(suppressed, messages, seen);
    }
  }

  private static String literal(String value) {
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  private static long millisSince(long start) {
    return (System.nanoTime() - start) / 1_000_000;
  }
}
