package org.calciteivm.jdbc;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.capture.CapturePlan;
import org.calciteivm.jdbc.capture.ChangeCapture;
import org.calciteivm.jdbc.ddl.BaseTableAlterations;
import org.calciteivm.jdbc.ddl.MaterializedViews;
import org.calciteivm.jdbc.ddl.RefreshExplanation;
import org.calciteivm.jdbc.ddl.SchemaGuard;
import org.calciteivm.jdbc.ddl.ViewAlterations;
import org.calciteivm.jdbc.ddl.ViewRefreshes;
import org.calciteivm.jdbc.sql.ParsedStatement;
import org.calciteivm.jdbc.sql.ParsedStatement.AlterMaterializedView;
import org.calciteivm.jdbc.sql.ParsedStatement.AlterTable;
import org.calciteivm.jdbc.sql.ParsedStatement.CreateMaterializedView;
import org.calciteivm.jdbc.sql.ParsedStatement.DropMaterializedView;
import org.calciteivm.jdbc.sql.ParsedStatement.Execute;
import org.calciteivm.jdbc.sql.ParsedStatement.ExplainRefresh;
import org.calciteivm.jdbc.sql.ParsedStatement.PrepareWrite;
import org.calciteivm.jdbc.sql.ParsedStatement.RefreshMaterializedView;
import org.calciteivm.jdbc.sql.ParsedStatement.ResetSetting;
import org.calciteivm.jdbc.sql.ParsedStatement.SchemaChange;
import org.calciteivm.jdbc.sql.ParsedStatement.SetSetting;
import org.calciteivm.jdbc.sql.ParsedStatement.TransactionControl;
import org.calciteivm.jdbc.sql.ParsedStatement.Write;
import org.calciteivm.jdbc.sql.SqlStatement;
import org.calciteivm.jdbc.sql.StatementParser;

/**
 * Runs one statement of a calcite-ivm connection: IVM statements and settings here, writes to
 * tracked tables through change capture, schema changes after {@link SchemaGuard}'s check, and
 * everything else on DuckDB unchanged.
 */
final class StatementRouter {
  private StatementRouter() {}

  /** The result of one statement. */
  sealed interface Outcome {}

  /** The statement ran on the DuckDB statement, whose results the caller reads. */
  record Delegated(boolean hasResultSet) implements Outcome {}

  /** The statement ran elsewhere and changed this many rows. */
  record Count(long rows) implements Outcome {}

  /**
   * Runs {@code statement}, a single statement, using {@code duckDb} for DuckDB's part. A failure
   * is always an {@link SQLException}: an unexpected exception or error inside calcite-ivm or
   * Calcite (an invariant that does not hold, an {@link AssertionError} of Calcite's validator)
   * becomes one with SQLState {@code XX000} that names it, so that callers handling SQL errors see
   * it.
   */
  static Outcome execute(IvmConnection connection, Statement duckDb, SqlStatement statement)
      throws SQLException {
    try {
      return route(connection, duckDb, statement);
    } catch (RuntimeException | AssertionError | StackOverflowError e) {
      throw new SQLException(
          "internal error in calcite-ivm: "
              + e
              + " (the statement changed nothing; please report it with the statement)",
          "XX000",
          e);
    }
  }

  private static Outcome route(IvmConnection connection, Statement duckDb, SqlStatement statement)
      throws SQLException {
    String sql = statement.sql();
    ParsedStatement parsed = StatementParser.parse(statement);
    if (parsed instanceof CreateMaterializedView create) {
      MaterializedViews.create(connection, create);
      return new Count(0);
    }
    if (parsed instanceof RefreshMaterializedView refresh) {
      return new Count(
          connection.inClientTransaction(
              "this refresh of " + refresh.name(),
              () -> ViewRefreshes.refresh(connection, refresh.name(), false).changeRows()));
    }
    if (parsed instanceof AlterMaterializedView alter) {
      ViewAlterations.alter(connection, alter);
      return new Count(0);
    }
    if (parsed instanceof DropMaterializedView drop) {
      MaterializedViews.drop(connection, drop);
      return new Count(0);
    }
    if (parsed instanceof ExplainRefresh explain) {
      return lines(
          duckDb,
          explain.analyze()
              ? connection.inClientTransaction(
                  "this refresh of " + explain.name(),
                  () -> RefreshExplanation.explainAnalyze(connection, explain.name()))
              : RefreshExplanation.explain(connection, explain.name()));
    }
    if (parsed instanceof SetSetting set) {
      IvmSetting setting = IvmSetting.of(set.name());
      connection.settings(connection.settings().with(setting, set.value()));
      return new Count(0);
    }
    if (parsed instanceof ResetSetting reset) {
      connection.settings(connection.settings().reset(IvmSetting.of(reset.name())));
      return new Count(0);
    }
    if (parsed instanceof PrepareWrite prepare) {
      // refused if a view reads its table; remembered, since a view may read it by its EXECUTE
      ChangeCapture.plan(
          connection.database().catalog(), connection.database().name(), prepare.write());
      Outcome prepared = new Delegated(duckDb.execute(sql));
      connection.sqlPreparedWrites().put(prepare.name(), prepare.write());
      return prepared;
    }
    if (parsed instanceof Execute execute) {
      Write prepared = connection.sqlPreparedWrites().get(execute.name());
      if (prepared != null) {
        // refused if a view created since the PREPARE reads its table: it would run uncaptured
        ChangeCapture.plan(connection.database().catalog(), connection.database().name(), prepared);
      }
    }
    if (parsed instanceof Write write) {
      Optional<CapturePlan> plan =
          ChangeCapture.plan(connection.database().catalog(), connection.database().name(), write);
      if (plan.isPresent()) {
        long rows =
            connection.capturing(plan.get(), () -> plan.get().run(connection.duckDb(), duckDb));
        // a RETURNING clause's rows are duckDb's result set
        return plan.get().returnsRows() ? new Delegated(true) : new Count(rows);
      }
    } else if (parsed instanceof AlterTable alter) {
      if (BaseTableAlterations.alter(connection, alter, sql)) {
        return new Count(0);
      }
    } else if (parsed instanceof SchemaChange change) {
      SchemaGuard.check(connection.database().catalog(), connection.database().name(), change);
    } else if (parsed instanceof TransactionControl control) {
      if (control.commits()) {
        // DuckDB reports success for the COMMIT of a transaction a conflict aborted
        connection.failCommitIfAborted();
      }
      try {
        return new Delegated(duckDb.execute(sql));
      } finally {
        // a failed COMMIT ends the transaction too; a failed BEGIN opens none
        connection.sqlTransaction(control.begins() && connection.duckDb().getAutoCommit());
      }
    }
    return new Delegated(duckDb.execute(sql));
  }

  /** Returns {@code lines} as a one-column result set on {@code duckDb}. */
  private static Outcome lines(Statement duckDb, List<String> lines) throws SQLException {
    String values =
        java.util.stream.IntStream.range(0, lines.size())
            .mapToObj(i -> "(" + i + ", " + IvmNames.literal(lines.get(i)) + ")")
            .collect(Collectors.joining(", "));
    return new Delegated(
        duckDb.execute(
            "SELECT line AS plan FROM (VALUES " + values + ") AS t(n, line) ORDER BY n"));
  }
}
