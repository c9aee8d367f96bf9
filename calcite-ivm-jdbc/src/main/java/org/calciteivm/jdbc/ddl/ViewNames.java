package org.calciteivm.jdbc.ddl;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLSyntaxErrorException;
import java.util.List;
import java.util.Optional;
import org.calciteivm.core.IvmNames;
import org.calciteivm.jdbc.IvmConnection;
import org.calciteivm.jdbc.catalog.DuckDbCatalog;
import org.calciteivm.jdbc.catalog.Relation;
import org.calciteivm.jdbc.catalog.ViewEntry;
import org.calciteivm.jdbc.sql.ObjectName;

/**
 * The materialized view a statement names ({@code REFRESH}, {@code DROP}, {@code ALTER}, {@code
 * EXPLAIN}): its schema and name as the catalog keeps them, and the refusals of names that are not
 * a user's materialized view.
 */
final class ViewNames {
  private ViewNames() {}

  /** The user's materialized view {@code name}; fails if it names none, or a hidden view. */
  static ViewEntry view(IvmConnection connection, ObjectName name) throws SQLException {
    refuseHidden(connection, name);
    ObjectName viewName = viewName(connection.duckDb(), name, false);
    Optional<ViewEntry> view =
        connection.database().catalog().view(viewName.schema(), viewName.name());
    if (view.isEmpty()) {
      throw notAView(connection.duckDb(), viewName);
    }
    return view.get();
  }

  /** Fails if {@code name} names a hidden view: only its owner refreshes and drops it. */
  static void refuseHidden(IvmConnection connection, ObjectName name) throws SQLException {
    if (name.parts().size() > 2 || !name.schema().equalsIgnoreCase(IvmNames.SCHEMA)) {
      return;
    }
    Optional<ViewEntry> hidden =
        connection.database().catalog().viewByUserView(name.schema(), name.name());
    if (hidden.isPresent()) {
      ViewEntry view = hidden.get();
      throw new SQLException(
          view.describeHidden()
              + " (an intermediate state): it is refreshed and dropped only with \""
              + view.usersName()
              + "\"",
          "42809");
    }
  }

  /** The error for {@code name}, which names no materialized view: it says what it names. */
  static SQLException notAView(Connection duckDb, ObjectName name) throws SQLException {
    Optional<Relation> relation = DuckDbCatalog.read(duckDb).find(name.schema(), name.name());
    String what =
        relation
            .map(r -> r.isTable() ? "it is a table" : "it is a view")
            .orElse("nothing has that name");
    return new SQLException(
        "\""
            + ViewEntry.displayName(name.schema(), name.name())
            + "\" is not a materialized view ("
            + what
            + ")",
        "42809");
  }

  /**
   * The schema and name of the user's materialized view {@code name}: in {@code main} unless it
   * names a schema, which is then named as DuckDB has it (names ignore case). A name with a
   * database or in calcite-ivm's schema is refused; so is a schema that does not exist, if {@code
   * creating} the view (else no view is found under that name), and, as DuckDB refuses it for its
   * views, a name left unquoted that is one of DuckDB's keywords no relation may take ({@code
   * anti}, {@code pivot}): no query could read it unquoted.
   */
  static ObjectName viewName(Connection duckDb, ObjectName name, boolean creating)
      throws SQLException {
    if (creating && !name.nameQuoted() && isRelationKeyword(duckDb, name.name())) {
      throw new SQLSyntaxErrorException(
          "syntax error at or near \""
              + name.name()
              + "\": a keyword of DuckDB names no view unless quoted",
          "42601");
    }
    if (name.parts().size() > 2) {
      throw new SQLSyntaxErrorException(
          "a materialized view is named by its schema and name; cannot use " + name, "0A000");
    }
    if (name.schema().equalsIgnoreCase(IvmNames.SCHEMA)) {
      throw new SQLException(
          "cannot use " + name + ": the schema " + IvmNames.SCHEMA + " belongs to calcite-ivm",
          "42501");
    }
    String schema = "main";
    if (name.isQualified()) {
      Optional<String> existing = DuckDbCatalog.schemaNamed(duckDb, name.schema());
      if (existing.isEmpty() && creating) {
        throw new SQLException("schema \"" + name.schema() + "\" does not exist", "3F000");
      }
      schema = existing.orElse(name.schema());
    }
    return ObjectName.of(List.of(schema, name.name()), name.start(), name.end(), name.nameQuoted());
  }

  /** Whether {@code word} is a keyword of DuckDB that no table or view may take as its name. */
  private static boolean isRelationKeyword(Connection duckDb, String word) throws SQLException {
    try (PreparedStatement statement =
        duckDb.prepareStatement(
            "SELECT 1 FROM duckdb_keywords() WHERE keyword_name = lower(?)"
                + " AND keyword_category IN ('reserved', 'type_function')")) {
      statement.setString(1, word);
      try (ResultSet result = statement.executeQuery()) {
        return result.next();
      }
    }
  }
}
