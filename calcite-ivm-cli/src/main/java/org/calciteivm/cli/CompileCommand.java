package org.calciteivm.cli;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.sql.ParsedStatement.CreateMaterializedView;
import org.calciteivm.jdbc.sql.SqlScript;
import org.calciteivm.jdbc.sql.StatementParser;
import picocli.CommandLine.Command;
import picocli.CommandLine.ExitCode;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code calcite-ivm compile}: prints what calcite-ivm would create for each materialized view of a
 * script, and the SQL of one refresh, without touching any database.
 *
 * <p>The script runs in a scratch in-memory database: its tables are created there (empty, or as
 * the script fills them), and with {@code --db} the tables of that database are first re-created
 * there from their DDL, the database being attached read-only and detached again. Each {@code
 * CREATE MATERIALIZED VIEW} is then created in the scratch database, and what it made is printed:
 * the stored state, the view users read, the tables that capture base-table changes, and {@code
 * EXPLAIN REFRESH MATERIALIZED VIEW}.
 */
@Command(
    name = "compile",
    description = {
      "Prints, per materialized view of a SQL script, the DDL of its stored state and delta "
          + "tables and the SQL of one refresh, without changing any database.",
      "",
      "The script (its CREATE TABLEs and CREATE MATERIALIZED VIEWs) runs in a scratch "
          + "in-memory database. With --db, that database's tables are copied there first "
          + "(definitions only, read-only access)."
    })
final class CompileCommand implements Callable<Integer> {
  private static final String SOURCE = "ivm_compile_source";

  @Spec CommandSpec spec;

  @Option(
      names = "--db",
      paramLabel = "PATH",
      description = "DuckDB database file whose tables the views read (opened read-only)")
  Path db;

  @Parameters(paramLabel = "FILE", description = "SQL script with CREATE MATERIALIZED VIEW")
  Path file;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    List<String> statements;
    try {
      statements = SqlScript.split(Files.readString(file, UTF_8));
    } catch (IOException e) {
      err.println("error: " + file + ": cannot read: " + ErrorMessages.oneLine(e));
      return ExitCode.USAGE;
    } catch (SQLException e) {
      err.println("error: " + file + ": " + ErrorMessages.oneLine(e));
      return ExitCode.USAGE;
    }
    if (db != null && !Files.isRegularFile(db)) {
      err.println("error: " + db + ": no such database file");
      return ExitCode.USAGE;
    }
    String where = "";
    try (Connection scratch = DriverManager.getConnection(Databases.url(null))) {
      if (db != null) {
        where = db.toString();
        copyTables(scratch);
      }
      int views = 0;
      for (int i = 0; i < statements.size(); i++) {
        where = file + ":" + (i + 1);
        String sql = statements.get(i);
        try (Statement statement = scratch.createStatement()) {
          statement.execute(sql);
        }
        if (StatementParser.parse(sql) instanceof CreateMaterializedView create) {
          print(scratch, create.name().name(), sql);
          views++;
        }
      }
      if (views == 0) {
        err.println("error: " + file + ": no CREATE MATERIALIZED VIEW");
        return ExitCode.USAGE;
      }
    } catch (SQLException e) {
      err.println("error: " + where + ": " + ErrorMessages.oneLine(e));
      return ExitCode.SOFTWARE;
    }
    spec.commandLine().getOut().flush();
    return ExitCode.OK;
  }

  /** Re-creates the tables of {@link #db} in {@code scratch}, in creation order, without rows. */
  private void copyTables(Connection scratch) throws SQLException {
    List<String> definitions = new ArrayList<>();
    try (Statement statement = scratch.createStatement()) {
      statement.execute(
          "ATTACH "
              + IvmNames.literal(db.toAbsolutePath().toString())
              + " AS "
              + SOURCE
              + " (READ_ONLY)");
      try (PreparedStatement tables =
          scratch.prepareStatement(
              "SELECT schema_name, sql FROM duckdb_tables() WHERE database_name = ?"
                  + " AND schema_name <> '_ivm' AND NOT internal ORDER BY table_oid")) {
        tables.setString(1, SOURCE);
        try (ResultSet rs = tables.executeQuery()) {
          while (rs.next()) {
            String schema = rs.getString(1);
            if (!schema.equals("main")) {
              definitions.add("CREATE SCHEMA IF NOT EXISTS " + IvmNames.quote(schema));
            }
            definitions.add(rs.getString(2));
          }
        }
      }
      statement.execute("DETACH " + SOURCE);
      for (String definition : definitions) {
        statement.execute(definition);
      }
    }
  }

  /** Prints what creating view {@code name} made, and how it refreshes. */
  private void print(Connection scratch, String name, String createSql) throws SQLException {
    PrintWriter out = spec.commandLine().getOut();
    out.println("-- materialized view " + name);
    out.println("-- " + createSql.strip().replace("\n", "\n-- "));
    out.println("-- stored state and the view users read:");
    int viewId = -1;
    try (PreparedStatement s =
        scratch.prepareStatement("SELECT view_id FROM _ivm.views WHERE view_name = ?")) {
      s.setString(1, name);
      try (ResultSet rs = s.executeQuery()) {
        if (rs.next()) {
          viewId = rs.getInt(1);
        }
      }
    }
    printDefinitions(
        scratch,
        "SELECT sql FROM duckdb_tables() WHERE schema_name = '_ivm'"
            + " AND starts_with(table_name, ?)",
        "view_" + viewId + "_");
    printDefinitions(
        scratch, "SELECT sql FROM duckdb_views() WHERE NOT internal AND view_name = ?", name);
    out.println("-- tables that capture the changes of its base tables:");
    printDefinitions(
        scratch,
        "SELECT t.sql FROM duckdb_tables() t JOIN _ivm.view_inputs i"
            + " ON starts_with(t.table_name, 'delta_' || i.table_id || '_')"
            + " WHERE t.schema_name = '_ivm' AND i.view_id = CAST(? AS INTEGER)"
            + " ORDER BY i.table_id",
        String.valueOf(viewId));
    out.println("-- one refresh:");
    try (Statement s = scratch.createStatement();
        ResultSet rs =
            s.executeQuery("EXPLAIN REFRESH MATERIALIZED VIEW " + IvmNames.quote(name))) {
      while (rs.next()) {
        rs.getString(1).lines().forEach(line -> out.println("--   " + line));
      }
    }
    out.println();
  }

  private void printDefinitions(Connection scratch, String query, String parameter)
      throws SQLException {
    PrintWriter out = spec.commandLine().getOut();
    try (PreparedStatement s = scratch.prepareStatement(query)) {
      s.setString(1, parameter);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          String sql = rs.getString(1).strip();
          out.println(sql.endsWith(";") ? sql : sql + ";");
        }
      }
    }
  }
}
