package org.calciteivm.jdbc.refresh;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlWith;
import org.apache.calcite.sql.SqlWithItem;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.sql.SqlLexer;
import org.calciteivm.jdbc.sql.SqlToken;
import org.calciteivm.rules.frontend.LambdaSyntax;
import org.calciteivm.rules.frontend.ViewSqlPlanner;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The plain (not materialized) DuckDB views a view's query reads, written in as their definitions:
 * {@code FROM recent r} becomes {@code FROM (SELECT ... FROM orders WHERE ...) AS r}, so the view
 * is maintained from the tables the plain view reads. The definition is the one at CREATE: a later
 * {@code CREATE OR REPLACE VIEW} does not change the materialized view, as DuckDB's own late
 * binding would. Plain views over plain views are written in recursively; a view's own column list
 * ({@code CREATE VIEW v (a, b) AS ...}) names the subquery's columns.
 */
public final class PlainViews {
  private PlainViews() {}

  /** A plain view: where it is, and its query with its column names, if it names them. */
  private record Definition(String schema, String name, String query, @Nullable String columns) {}

  /**
   * {@code query}, already in Calcite's reach ({@link QueryRewrites}), with every plain view it
   * reads written in; {@code isMaterialized} tells the user views of materialized views, which are
   * read as they are. {@code rewrite} brings a definition into Calcite's reach too.
   */
  public static String inline(
      String query, Connection duckDb, Predicate<List<String>> isMaterialized, Rewrite rewrite)
      throws SQLException {
    List<Definition> views = read(duckDb, isMaterialized);
    return views.isEmpty() ? query : inline(query, views, rewrite, 0);
  }

  /** How a plain view's definition is brought into Calcite's reach. */
  public interface Rewrite {
    String apply(String query) throws SQLException;
  }

  private static String inline(String query, List<Definition> views, Rewrite rewrite, int depth)
      throws SQLException {
    SqlNode parsed;
    try {
      parsed = LambdaSyntax.parser(query, ViewSqlPlanner.PARSER).parseQuery();
    } catch (SqlParseException e) {
      return query; // the planner reports it
    }
    QueryText text = new QueryText(query);
    Set<String> withNames = new HashSet<>();
    List<SqlIdentifier> references = new ArrayList<>();
    parsed.accept(
        new SqlBasicVisitor<Void>() {
          @Override
          public Void visit(SqlCall call) {
            if (call instanceof SqlWith with) {
              for (SqlNode item : with.withList) {
                withNames.add(((SqlWithItem) item).name.getSimple().toLowerCase(Locale.ROOT));
              }
            }
            if (call instanceof SqlSelect select && select.getFrom() != null) {
              addTables(select.getFrom(), references);
            }
            return super.visit(call);
          }
        });
    List<QueryEdits.Edit> edits = new ArrayList<>();
    for (SqlIdentifier reference : references) {
      Definition view = find(views, reference, withNames);
      QueryText.Range range = view == null ? null : text.range(reference);
      if (view == null || range == null) {
        continue;
      }
      if (depth > 16) {
        throw new SQLException(
            "plain view \"" + view.name() + "\" reads itself, or views nested too deep", "42P17");
      }
      String definition = readable(view.query(), rewrite);
      if (definition == null) {
        continue; // read as a view, which the analysis refuses, naming it
      }
      definition = inline(definition, views, rewrite, depth + 1);
      String alias = reference.names.get(reference.names.size() - 1);
      edits.add(
          new QueryEdits.Edit(
              range.start(),
              range.end(),
              "("
                  + definition
                  + ")"
                  + (aliased(query, range.end())
                      ? ""
                      : " AS "
                          + IvmNames.quote(alias)
                          + (view.columns() == null ? "" : view.columns()))));
    }
    return QueryEdits.apply(query, edits);
  }

  /**
   * {@code definition} brought into Calcite's reach, or null if it cannot be: DuckDB keeps some
   * operators in spellings no query parser but its own reads.
   */
  private static @Nullable String readable(String definition, Rewrite rewrite) {
    try {
      String rewritten = rewrite.apply(definition);
      LambdaSyntax.parser(rewritten, ViewSqlPlanner.PARSER).parseQuery();
      return rewritten;
    } catch (SQLException | SqlParseException e) {
      return null;
    }
  }

  /** The table references of a FROM clause: its identifiers, aliased or not, through its joins. */
  private static void addTables(SqlNode from, List<SqlIdentifier> references) {
    if (from instanceof SqlIdentifier identifier) {
      references.add(identifier);
    } else if (from instanceof SqlJoin join) {
      addTables(join.getLeft(), references);
      addTables(join.getRight(), references);
    } else if (from.getKind() == SqlKind.AS
        && ((SqlCall) from).operand(0) instanceof SqlIdentifier identifier) {
      references.add(identifier);
    }
  }

  /** Whether an alias follows the relation that ends at offset {@code end} of {@code query}. */
  private static boolean aliased(String query, int end) throws SQLException {
    List<SqlToken> rest = SqlLexer.tokenize(query.substring(end));
    if (rest.isEmpty()) {
      return false;
    }
    SqlToken next = rest.get(0);
    return next.isKeyword("AS")
        || next.kind() == SqlToken.Kind.QUOTED_IDENTIFIER
        || next.kind() == SqlToken.Kind.WORD && !QueryEdits.NOT_ALIASES.contains(next.upper());
  }

  /** The plain view {@code reference} names, unless a WITH query of that name hides it; or null. */
  private static @Nullable Definition find(
      List<Definition> views, SqlIdentifier reference, Set<String> withNames) {
    List<String> names = reference.names;
    String name = names.get(names.size() - 1);
    if (names.size() == 1 && withNames.contains(name.toLowerCase(Locale.ROOT))) {
      return null;
    }
    String schema = names.size() >= 2 ? names.get(names.size() - 2) : "main";
    for (Definition view : views) {
      if (view.name().equalsIgnoreCase(name) && view.schema().equalsIgnoreCase(schema)) {
        return view;
      }
    }
    return null;
  }

  /** The plain views of the database, outside calcite-ivm's schema. */
  private static List<Definition> read(Connection duckDb, Predicate<List<String>> isMaterialized)
      throws SQLException {
    List<Definition> views = new ArrayList<>();
    try (PreparedStatement s =
        duckDb.prepareStatement(
            "SELECT schema_name, view_name, sql FROM duckdb_views()"
                + " WHERE NOT internal AND database_name = current_database()"
                + " AND schema_name <> ?")) {
      s.setString(1, IvmNames.SCHEMA);
      try (ResultSet rs = s.executeQuery()) {
        while (rs.next()) {
          List<String> name = List.of(rs.getString(1), rs.getString(2));
          Definition view =
              isMaterialized.test(name)
                  ? null
                  : definition(name.get(0), name.get(1), rs.getString(3));
          if (view != null) {
            views.add(view);
          }
        }
      }
    }
    return views;
  }

  /**
   * The operators DuckDB writes in the text it keeps of a view, by the tokens that spell them, and
   * what a query writes for them: {@code LIKE} is kept as {@code ~~}, {@code COUNT(*)} as {@code
   * count_star()}. Longer spellings come first.
   */
  private static final List<Map.Entry<List<String>, String>> DUCKDB_SPELLINGS =
      List.of(
          Map.entry(List.of("!", "~", "~", "*"), " NOT ILIKE "),
          Map.entry(List.of("~", "~", "*"), " ILIKE "),
          Map.entry(List.of("!", "~", "~"), " NOT LIKE "),
          Map.entry(List.of("~", "~"), " LIKE "),
          Map.entry(List.of("count_star", "(", ")"), "COUNT(*)"));

  /** {@code query}, as DuckDB keeps a view's text, with its operators written as queries do. */
  private static String spelledOut(String query) throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(query);
    StringBuilder out = new StringBuilder();
    int copied = 0;
    for (int i = 0; i < tokens.size(); i++) {
      for (Map.Entry<List<String>, String> spelling : DUCKDB_SPELLINGS) {
        List<String> parts = spelling.getKey();
        if (spells(tokens, i, parts)) {
          out.append(query, copied, tokens.get(i).start()).append(spelling.getValue());
          copied = tokens.get(i + parts.size() - 1).end();
          i += parts.size() - 1;
          break;
        }
      }
    }
    return out.append(query.substring(copied)).toString();
  }

  /** Whether the adjacent tokens from {@code at} are {@code parts}. */
  private static boolean spells(List<SqlToken> tokens, int at, List<String> parts) {
    if (at + parts.size() > tokens.size()) {
      return false;
    }
    for (int k = 0; k < parts.size(); k++) {
      SqlToken token = tokens.get(at + k);
      boolean adjacent = k == 0 || tokens.get(at + k - 1).end() == token.start();
      boolean word = Character.isLetter(parts.get(k).charAt(0));
      if (!adjacent && !word
          || (word ? !token.isKeyword(parts.get(k)) : !token.isSymbol(parts.get(k)))) {
        return false;
      }
    }
    return true;
  }

  /**
   * The query of {@code CREATE VIEW name [(columns)] AS query;}, with the column list; null if the
   * text is not of that shape.
   */
  private static @Nullable Definition definition(String schema, String name, String sql)
      throws SQLException {
    List<SqlToken> tokens = SqlLexer.tokenize(sql);
    int depth = 0;
    int columnsStart = -1;
    int columnsEnd = -1;
    for (int i = 0; i < tokens.size(); i++) {
      SqlToken token = tokens.get(i);
      if (token.isSymbol("(")) {
        if (depth++ == 0 && columnsStart < 0) {
          columnsStart = token.start();
        }
      } else if (token.isSymbol(")")) {
        if (--depth == 0 && columnsEnd < 0) {
          columnsEnd = token.end();
        }
      } else if (depth == 0 && token.isKeyword("AS")) {
        int end =
            tokens.get(tokens.size() - 1).kind() == SqlToken.Kind.SEMICOLON
                ? tokens.get(tokens.size() - 1).start()
                : sql.length();
        String query = spelledOut(sql.substring(token.end(), end).strip());
        String columns = columnsStart >= 0 ? sql.substring(columnsStart, columnsEnd) : null;
        return new Definition(schema, name, query, columns);
      }
    }
    return null;
  }
}
