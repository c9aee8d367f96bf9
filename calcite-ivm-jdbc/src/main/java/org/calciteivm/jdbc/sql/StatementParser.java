package org.calciteivm.jdbc.sql;

import static org.calciteivm.jdbc.sql.ParsedStatement.SchemaChangeKind.ALTER_VIEW;
import static org.calciteivm.jdbc.sql.ParsedStatement.SchemaChangeKind.CREATE_TEMPORARY_TABLE;
import static org.calciteivm.jdbc.sql.ParsedStatement.SchemaChangeKind.CREATE_TEMPORARY_VIEW;
import static org.calciteivm.jdbc.sql.ParsedStatement.SchemaChangeKind.DROP_SCHEMA;
import static org.calciteivm.jdbc.sql.ParsedStatement.SchemaChangeKind.DROP_TABLE;
import static org.calciteivm.jdbc.sql.ParsedStatement.SchemaChangeKind.DROP_VIEW;
import static org.calciteivm.jdbc.sql.ParsedStatement.SchemaChangeKind.REPLACE_TABLE;
import static org.calciteivm.jdbc.sql.ParsedStatement.SchemaChangeKind.REPLACE_VIEW;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLSyntaxErrorException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.IvmSetting;
import org.calciteivm.jdbc.sql.ParsedStatement.AlterMaterializedView;
import org.calciteivm.jdbc.sql.ParsedStatement.AlterTable;
import org.calciteivm.jdbc.sql.ParsedStatement.CreateMaterializedView;
import org.calciteivm.jdbc.sql.ParsedStatement.DropMaterializedView;
import org.calciteivm.jdbc.sql.ParsedStatement.Execute;
import org.calciteivm.jdbc.sql.ParsedStatement.ExplainRefresh;
import org.calciteivm.jdbc.sql.ParsedStatement.Other;
import org.calciteivm.jdbc.sql.ParsedStatement.PrepareWrite;
import org.calciteivm.jdbc.sql.ParsedStatement.RefreshMaterializedView;
import org.calciteivm.jdbc.sql.ParsedStatement.ResetSetting;
import org.calciteivm.jdbc.sql.ParsedStatement.SchemaChange;
import org.calciteivm.jdbc.sql.ParsedStatement.SchemaChangeKind;
import org.calciteivm.jdbc.sql.ParsedStatement.SetSetting;
import org.calciteivm.jdbc.sql.ParsedStatement.TableAlteration;
import org.calciteivm.jdbc.sql.ParsedStatement.TransactionControl;
import org.calciteivm.jdbc.sql.ParsedStatement.Write;
import org.calciteivm.jdbc.sql.ParsedStatement.WriteKind;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * Classifies one SQL statement by its leading keywords. It reads the IVM statements fully and, of
 * every other statement, only what decides whether it must be captured or refused: the kind of
 * write and its target. The rest of the text is never interpreted, so DuckDB syntax that Calcite
 * cannot parse passes through untouched.
 */
public final class StatementParser {
  private StatementParser() {}

  /** Classifies {@code sql}, a single statement. */
  public static ParsedStatement parse(String sql) throws SQLException {
    return parse(SqlStatement.of(sql));
  }

  /** Classifies {@code statement}, reading the tokens it was lexed into. */
  public static ParsedStatement parse(SqlStatement statement) throws SQLException {
    List<SqlToken> tokens = statement.tokens();
    ParsedStatement parsed = parse(new TokenCursor(statement));
    if (parsed instanceof Other && definesObjects(tokens) && namesIvmSchema(tokens)) {
      throw new SQLException(
          "cannot run "
              + tokens.get(0).upper()
              + " on objects of calcite-ivm's schema "
              + IvmNames.SCHEMA
              + ": it belongs to calcite-ivm",
          "42501");
    }
    return parsed;
  }

  /** Whether the statement creates, drops, alters or comments on an object. */
  private static boolean definesObjects(List<SqlToken> tokens) {
    return !tokens.isEmpty()
        && List.of("CREATE", "DROP", "ALTER", "COMMENT").contains(tokens.get(0).upper())
        && tokens.get(0).kind() == SqlToken.Kind.WORD;
  }

  /** Whether some name in the statement is qualified by calcite-ivm's schema. */
  private static boolean namesIvmSchema(List<SqlToken> tokens) {
    for (int i = 0; i + 1 < tokens.size(); i++) {
      if (tokens.get(i).isIdentifier()
          && tokens.get(i).identifier().equalsIgnoreCase(IvmNames.SCHEMA)
          && tokens.get(i + 1).isSymbol(".")) {
        return true;
      }
    }
    return false;
  }

  private static ParsedStatement parse(TokenCursor in) throws SQLException {
    if (in.atEnd()) {
      return new Other();
    }
    SqlToken first = in.peek();
    if (first.kind() != SqlToken.Kind.WORD) {
      return new Other();
    }
    switch (first.upper()) {
      case "CREATE":
        return create(in);
      case "REFRESH":
        in.next();
        in.expect("MATERIALIZED");
        in.expect("VIEW");
        return new RefreshMaterializedView(endsAfter(in, in.name()));
      case "DROP":
        return drop(in);
      case "ALTER":
        return alter(in);
      case "EXPLAIN":
        return explain(in);
      case "USE":
        throw changesDefaultSchema("USE");
      case "SET":
        return set(in);
      case "RESET":
        return reset(in);
      case "INSERT":
        return insert(in);
      case "UPDATE":
        in.next();
        return write(WriteKind.UPDATE, in.name(), in);
      case "DELETE":
        in.next();
        in.expect("FROM");
        return write(WriteKind.DELETE, in.name(), in);
      case "TRUNCATE":
        in.next();
        in.accept("TABLE");
        return write(WriteKind.TRUNCATE, in.name(), in);
      case "MERGE":
        in.next();
        in.expect("INTO");
        return write(WriteKind.MERGE, in.name(), in);
      case "COPY":
        return copy(in);
      case "PREPARE":
        return prepare(in);
      case "EXECUTE":
        in.next();
        return in.peek() != null && in.peek().isIdentifier()
            ? new Execute(in.next().identifier().toLowerCase(Locale.ROOT))
            : new Other();
      case "WITH":
        return with(in);
      case "BEGIN":
      case "START":
        return new TransactionControl(true, false);
      case "COMMIT":
      case "END":
        return new TransactionControl(false, true);
      case "ROLLBACK":
      case "ABORT":
        return new TransactionControl(false, false);
      default:
        return new Other();
    }
  }

  private static ParsedStatement create(TokenCursor in) throws SQLException {
    in.next();
    boolean orReplace = in.acceptAll("OR", "REPLACE");
    boolean temporary = in.accept("TEMP") || in.accept("TEMPORARY");
    if (in.acceptAll("MATERIALIZED", "VIEW")) {
      if (orReplace) {
        throw new SQLSyntaxErrorException(
            "CREATE OR REPLACE MATERIALIZED VIEW is not supported:"
                + " drop the materialized view first",
            "0A000");
      }
      boolean ifNotExists = in.acceptAll("IF", "NOT", "EXISTS");
      ObjectName name = in.name();
      Map<String, String> options = new LinkedHashMap<>();
      if (in.accept("WITH")) {
        ViewOptions.read(in, options, true);
      }
      in.expect("AS");
      String query = in.rest().trim();
      if (query.isEmpty()) {
        throw new SQLSyntaxErrorException(
            "syntax error: CREATE MATERIALIZED VIEW " + name + " AS needs a query", "42601");
      }
      return new CreateMaterializedView(
          name,
          ifNotExists,
          ImmutableMap.copyOf(options),
          query,
          ViewSqlPlanner.inPlace(in.sql(), in.peek().start()).stripTrailing());
    }
    if (in.accept("TABLE")) {
      return created(in, temporary ? CREATE_TEMPORARY_TABLE : orReplace ? REPLACE_TABLE : null);
    }
    if (in.accept("VIEW")) {
      return created(in, temporary ? CREATE_TEMPORARY_VIEW : orReplace ? REPLACE_VIEW : null);
    }
    return new Other();
  }

  /**
   * A {@code CREATE TABLE} or {@code VIEW} after its object keyword: a schema change of {@code
   * kind}, or {@link Other} if it only adds an object ({@code kind} null). A temporary object hides
   * the main object of the same name from unqualified references.
   */
  private static ParsedStatement created(TokenCursor in, @Nullable SchemaChangeKind kind)
      throws SQLException {
    in.acceptAll("IF", "NOT", "EXISTS");
    return kind == null ? new Other() : new SchemaChange(kind, ImmutableList.of(in.name()));
  }

  private static ParsedStatement drop(TokenCursor in) throws SQLException {
    in.next();
    if (in.acceptAll("MATERIALIZED", "VIEW")) {
      boolean ifExists = in.acceptAll("IF", "EXISTS");
      return new DropMaterializedView(endsAfter(in, in.name()), ifExists);
    }
    SchemaChangeKind kind =
        in.accept("TABLE")
            ? DROP_TABLE
            : in.accept("VIEW") ? DROP_VIEW : in.accept("SCHEMA") ? DROP_SCHEMA : null;
    if (kind == null) {
      return new Other();
    }
    in.acceptAll("IF", "EXISTS");
    List<ObjectName> names = new ArrayList<>();
    names.add(in.name());
    while (in.peek() != null && in.peek().isSymbol(",")) {
      in.next();
      names.add(in.name());
    }
    return new SchemaChange(kind, ImmutableList.copyOf(names));
  }

  private static ParsedStatement alter(TokenCursor in) throws SQLException {
    in.next();
    if (in.acceptAll("MATERIALIZED", "VIEW")) {
      ObjectName name = in.name();
      boolean set = in.accept("SET");
      if (!set && !in.accept("RESET")) {
        throw new SQLSyntaxErrorException(
            "syntax error: ALTER MATERIALIZED VIEW "
                + name
                + " takes SET (option = 'value', ...) or RESET (option, ...)",
            "42601");
      }
      Map<String, String> options = new LinkedHashMap<>();
      ViewOptions.read(in, options, set);
      endsAfter(in, name);
      return new AlterMaterializedView(name, options);
    }
    if (in.accept("TABLE")) {
      in.acceptAll("IF", "EXISTS");
      return alterTable(in, in.name());
    }
    if (in.accept("VIEW")) {
      in.acceptAll("IF", "EXISTS");
      return new SchemaChange(ALTER_VIEW, ImmutableList.of(in.name()));
    }
    return new Other();
  }

  private static AlterTable alterTable(TokenCursor in, ObjectName table) throws SQLException {
    if (in.accept("ADD")) {
      for (String constraint : List.of("PRIMARY", "UNIQUE", "CONSTRAINT", "FOREIGN", "CHECK")) {
        if (in.peek() != null && in.peek().isKeyword(constraint)) {
          return new AlterTable(table, TableAlteration.ADD_CONSTRAINT, null);
        }
      }
      in.accept("COLUMN");
      in.acceptAll("IF", "NOT", "EXISTS");
      return new AlterTable(table, TableAlteration.ADD_COLUMN, column(in));
    }
    if (in.accept("DROP")) {
      if (in.peek() != null && in.peek().isKeyword("CONSTRAINT")) {
        return new AlterTable(table, TableAlteration.OTHER, null);
      }
      in.accept("COLUMN");
      in.acceptAll("IF", "EXISTS");
      return new AlterTable(table, TableAlteration.DROP_COLUMN, column(in));
    }
    if (in.accept("RENAME")) {
      if (in.accept("TO")) {
        return new AlterTable(table, TableAlteration.RENAME_TABLE, null);
      }
      in.accept("COLUMN");
      return new AlterTable(table, TableAlteration.RENAME_COLUMN, column(in));
    }
    if (in.accept("ALTER")) {
      in.accept("COLUMN");
      String column = column(in);
      boolean type =
          in.accept("TYPE") || in.acceptAll("SET", "DATA", "TYPE") || in.acceptAll("SET", "TYPE");
      return new AlterTable(
          table,
          type ? TableAlteration.CHANGE_COLUMN_TYPE : TableAlteration.CHANGE_COLUMN_RULE,
          column);
    }
    return new AlterTable(table, TableAlteration.OTHER, null);
  }

  private static String column(TokenCursor in) throws SQLException {
    SqlToken token = in.next();
    if (!token.isIdentifier()) {
      throw new SQLSyntaxErrorException(
          "syntax error: expected a column name at \"" + token.text() + "\"", "42601");
    }
    return token.identifier();
  }

  private static ParsedStatement explain(TokenCursor in) throws SQLException {
    in.next();
    if (in.acceptAll("REFRESH", "MATERIALIZED", "VIEW")) {
      return new ExplainRefresh(endsAfter(in, in.name()), false);
    }
    if (in.acceptAll("ANALYZE", "REFRESH", "MATERIALIZED", "VIEW")) {
      return new ExplainRefresh(endsAfter(in, in.name()), true);
    }
    // EXPLAIN ANALYZE runs its statement: a write under it must be captured like any other
    if (in.accept("ANALYZE")) {
      ParsedStatement analyzed = parse(in);
      if (analyzed instanceof Write write) {
        return new Write(
            WriteKind.UNCAPTURABLE, write.target(), in.statement(), write.nestedWrites());
      }
    }
    return new Other();
  }

  private static ParsedStatement set(TokenCursor in) throws SQLException {
    in.next();
    boolean global = false;
    if (!in.accept("SESSION") && !in.accept("LOCAL")) {
      global = in.accept("GLOBAL");
    }
    SqlToken name = in.peek();
    if (name != null
        && (name.isKeyword("schema") || name.isKeyword("search_path"))
        && !(in.peek(1) != null && in.peek(1).isSymbol("."))) {
      throw changesDefaultSchema("SET " + name.text());
    }
    if (global
        || name == null
        || !name.isIdentifier()
        || !IvmSetting.isIvmName(name.identifier())) {
      return new Other();
    }
    in.next();
    if (!(in.peek() != null && in.peek().isSymbol("=")) && !in.accept("TO")) {
      throw new SQLSyntaxErrorException(
          "syntax error: expected SET " + name.identifier() + " = value", "42601");
    }
    if (in.peek() != null && in.peek().isSymbol("=")) {
      in.next();
    }
    String value = in.rest().trim();
    if (value.isEmpty()) {
      throw new SQLSyntaxErrorException(
          "syntax error: SET " + name.identifier() + " needs a value", "42601");
    }
    return new SetSetting(name.identifier(), value);
  }

  /**
   * The refusal of a statement that changes which schema unqualified names mean: the driver decides
   * which writes to capture and which objects to protect by their names, taking an unqualified name
   * to be in {@code main}, as DuckDB does by default.
   */
  private static SQLException changesDefaultSchema(String statement) {
    return new SQLFeatureNotSupportedException(
        statement
            + " is not supported by calcite-ivm: it resolves unqualified names in the schema main;"
            + " qualify names with their schema instead",
        "0A000");
  }

  private static ParsedStatement reset(TokenCursor in) throws SQLException {
    in.next();
    if (!in.accept("SESSION")) {
      in.accept("LOCAL");
    }
    SqlToken name = in.peek();
    if (name == null || !name.isIdentifier() || !IvmSetting.isIvmName(name.identifier())) {
      return new Other();
    }
    in.next();
    if (!in.atEnd()) {
      throw new SQLSyntaxErrorException(
          "syntax error: unexpected \"" + in.peek().text() + "\" after RESET " + name.text(),
          "42601");
    }
    return new ResetSetting(name.identifier());
  }

  private static ParsedStatement insert(TokenCursor in) throws SQLException {
    in.next();
    // INSERT OR IGNORE and INSERT OR REPLACE are captured (WriteFrameParser); DuckDB has no other
    boolean known = true;
    if (in.accept("OR")) {
      known =
          in.peek() != null && (in.peek().isKeyword("IGNORE") || in.peek().isKeyword("REPLACE"));
      in.next();
    }
    in.expect("INTO");
    return write(known ? WriteKind.INSERT : WriteKind.UNCAPTURABLE, in.name(), in);
  }

  private static ParsedStatement copy(TokenCursor in) throws SQLException {
    in.next();
    if (in.peek() == null || !in.peek().isIdentifier()) {
      return new Other(); // COPY (query) TO ...
    }
    ObjectName target = in.name();
    return in.skipToTopLevel(token -> token.isKeyword("FROM"))
        ? write(WriteKind.COPY, target, in)
        : new Other();
  }

  /**
   * {@code PREPARE name AS statement}: a write prepared so runs later by {@code EXECUTE}, which the
   * driver cannot capture (a JDBC PreparedStatement is captured).
   */
  private static ParsedStatement prepare(TokenCursor in) throws SQLException {
    in.next();
    if (in.peek() == null || !in.peek().isIdentifier()) {
      return new Other();
    }
    String name = in.next().identifier().toLowerCase(Locale.ROOT);
    if (!in.skipToTopLevel(token -> token.isKeyword("AS"))) {
      return new Other();
    }
    in.next();
    return parse(in) instanceof Write prepared
        ? new PrepareWrite(
            name,
            new Write(
                WriteKind.UNCAPTURABLE, prepared.target(), in.statement(), prepared.nestedWrites()))
        : new Other();
  }

  private static ParsedStatement with(TokenCursor in) throws SQLException {
    ImmutableList<ObjectName> nested = NestedWrites.of(in.statement());
    in.next();
    if (!in.skipToTopLevel(token -> WITH_BODIES.contains(token.upper()))) {
      return new Other();
    }
    // the statement after the clause, parsed as if it stood alone (a query is Other)
    ParsedStatement body = parse(in);
    if (nested.isEmpty()) {
      return body;
    }
    return body instanceof Write write
        ? new Write(write.kind(), write.target(), write.statement(), nested)
        // a query: only its nested writes change tables, and they are not captured
        : new Write(WriteKind.UNCAPTURABLE, nested.get(0), in.statement(), nested);
  }

  /** The first words of the statement a WITH clause is followed by. */
  private static final Set<String> WITH_BODIES =
      Set.of("INSERT", "UPDATE", "DELETE", "MERGE", "SELECT", "FROM", "VALUES", "TABLE");

  private static Write write(WriteKind kind, ObjectName target, TokenCursor in) {
    return new Write(kind, target, in.statement());
  }

  private static ObjectName endsAfter(TokenCursor in, ObjectName name) throws SQLException {
    if (!in.atEnd()) {
      throw new SQLSyntaxErrorException(
          "syntax error: unexpected \"" + in.peek().text() + "\" after " + name, "42601");
    }
    return name;
  }
}
