package org.calciteivm.cli;

import java.nio.file.Path;

/** JDBC URLs of the calcite-ivm driver for the subcommands' {@code --db} option. */
final class Databases {
  static final String URL_PREFIX = "jdbc:ivm:duckdb:";

  private Databases() {}

  /** Returns the URL of the database file {@code db}, or of a new in-memory database if null. */
  static String url(Path db) {
    return db == null ? URL_PREFIX : URL_PREFIX + db;
  }
}
