package org.calciteivm.jdbc.sql;

import com.google.common.collect.ImmutableList;
import com.google.common.collect.ImmutableMap;
import java.util.Map;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * What the driver needs to know about one statement before running it. Only IVM statements are
 * parsed completely; of other statements, the kind and the objects they write are enough.
 */
public sealed interface ParsedStatement {

  /**
   * {@code CREATE MATERIALIZED VIEW [IF NOT EXISTS] name [WITH (option = 'value', ...)] AS query}.
   *
   * @param options the options of {@code WITH (...)}, by lower-case name ({@link
   *     ViewOptions#NAMES}), with their values as written (without quotes)
   * @param queryInPlace the query preceded by the statement's text before it, blanked, so that
   *     positions in it are the statement's (for messages)
   */
  record CreateMaterializedView(
      ObjectName name,
      boolean ifNotExists,
      ImmutableMap<String, String> options,
      String query,
      String queryInPlace)
      implements ParsedStatement {}

  /**
   * {@code ALTER MATERIALIZED VIEW name SET (option = 'value', ...)}, or {@code RESET (option,
   * ...)}, which sets each named option to its default (a null value in {@code options}).
   */
  record AlterMaterializedView(ObjectName name, Map<String, @Nullable String> options)
      implements ParsedStatement {}

  /** {@code REFRESH MATERIALIZED VIEW name}. */
  record RefreshMaterializedView(ObjectName name) implements ParsedStatement {}

  /** {@code DROP MATERIALIZED VIEW [IF EXISTS] name}. */
  record DropMaterializedView(ObjectName name, boolean ifExists) implements ParsedStatement {}

  /**
   * {@code EXPLAIN [ANALYZE] REFRESH MATERIALIZED VIEW name}; with {@code ANALYZE} ({@code
   * analyze}) the refresh runs and its statements are reported with their times.
   */
  record ExplainRefresh(ObjectName name, boolean analyze) implements ParsedStatement {}

  /** {@code SET ivm_name = value}. */
  record SetSetting(String name, String value) implements ParsedStatement {}

  /** {@code RESET ivm_name}. */
  record ResetSetting(String name) implements ParsedStatement {}

  /**
   * A statement that changes the rows of {@code target} (INSERT, UPDATE, DELETE, ...). Of a write
   * that is captured, {@link WriteFrameParser} reads the rest of the frame.
   *
   * @param statement the whole statement, with its tokens
   * @param nestedWrites the targets of the writes inside its WITH clause (DuckDB's data-modifying
   *     common table expressions), which run with it
   */
  record Write(
      WriteKind kind,
      ObjectName target,
      SqlStatement statement,
      ImmutableList<ObjectName> nestedWrites)
      implements ParsedStatement {

    /** A write without writes inside it. */
    public Write(WriteKind kind, ObjectName target, SqlStatement statement) {
      this(kind, target, statement, ImmutableList.of());
    }

    /** The statement's tokens. */
    public ImmutableList<SqlToken> tokens() {
      return statement.tokens();
    }
  }

  /** A statement that changes or removes the definition of tables ({@code DROP TABLE}, ...). */
  record SchemaChange(SchemaChangeKind kind, ImmutableList<ObjectName> targets)
      implements ParsedStatement {}

  /**
   * {@code ALTER TABLE target ...}: what it changes and, for a column change, which column ({@code
   * column}: the added, dropped, renamed or retyped column; null otherwise).
   */
  record AlterTable(ObjectName target, TableAlteration alteration, String column)
      implements ParsedStatement {}

  /**
   * {@code BEGIN} ({@code begins}), {@code COMMIT} ({@code commits}) or {@code ROLLBACK} and their
   * synonyms.
   */
  record TransactionControl(boolean begins, boolean commits) implements ParsedStatement {}

  /** Anything else: passed to DuckDB unchanged. */
  record Other() implements ParsedStatement {}

  /**
   * {@code PREPARE name AS write}: a write that {@code EXECUTE name} runs later, out of the
   * driver's sight (a JDBC PreparedStatement is captured).
   */
  record PrepareWrite(String name, Write write) implements ParsedStatement {}

  /** {@code EXECUTE name ...}: runs what {@code PREPARE name} prepared. */
  record Execute(String name) implements ParsedStatement {}

  /** What an {@code ALTER TABLE} does, as far as materialized views care. */
  enum TableAlteration {
    /** {@code ADD [COLUMN]}. */
    ADD_COLUMN,
    /** {@code DROP [COLUMN]}. */
    DROP_COLUMN,
    /** {@code RENAME [COLUMN] c TO d}. */
    RENAME_COLUMN,
    /** {@code ALTER [COLUMN] c [SET DATA] TYPE t}. */
    CHANGE_COLUMN_TYPE,
    /**
     * {@code ALTER [COLUMN] c SET/DROP DEFAULT}, {@code SET/DROP NOT NULL}: rows stay as they are.
     */
    CHANGE_COLUMN_RULE,
    /** {@code ADD PRIMARY KEY / UNIQUE / CONSTRAINT ...}: rows stay as they are. */
    ADD_CONSTRAINT,
    /** {@code RENAME TO}. */
    RENAME_TABLE,
    /** Anything else. */
    OTHER
  }

  /** What a {@link SchemaChange} does to its targets. */
  enum SchemaChangeKind {
    /** {@code CREATE TEMP TABLE}: hides a table of the same name in {@code main}. */
    CREATE_TEMPORARY_TABLE("create temporary table"),
    /** {@code CREATE TEMP VIEW}: hides a relation of the same name in {@code main}. */
    CREATE_TEMPORARY_VIEW("create temporary view"),
    /** {@code CREATE OR REPLACE TABLE}. */
    REPLACE_TABLE("replace table"),
    /** {@code CREATE OR REPLACE VIEW}. */
    REPLACE_VIEW("replace view"),
    /** {@code DROP TABLE}. */
    DROP_TABLE("drop table"),
    /** {@code DROP VIEW}. */
    DROP_VIEW("drop view"),
    /** {@code DROP SCHEMA}: its targets are schemas. */
    DROP_SCHEMA("drop schema"),
    /** {@code ALTER TABLE}, other than a change of columns or constraints. */
    ALTER_TABLE("alter table"),
    /** {@code ALTER TABLE ... RENAME TO}. */
    RENAME_TABLE("rename table"),
    /** {@code ALTER VIEW}. */
    ALTER_VIEW("alter view");

    private final String words;

    SchemaChangeKind(String words) {
      this.words = words;
    }

    /** The statement as refusals name it, e.g. "drop table". */
    public String words() {
      return words;
    }

    /** Whether it creates a temporary object, which hides the object of its name in main. */
    public boolean createsTemporary() {
      return this == CREATE_TEMPORARY_TABLE || this == CREATE_TEMPORARY_VIEW;
    }

    /** Whether its target may be a view (or hide one). */
    public boolean mayConcernViews() {
      return createsTemporary() || this == REPLACE_VIEW || this == DROP_VIEW || this == ALTER_VIEW;
    }
  }

  /** The kinds of row-changing statements. */
  enum WriteKind {
    /**
     * {@code INSERT INTO}, also {@code INSERT OR IGNORE}, {@code OR REPLACE} and {@code ON
     * CONFLICT}.
     */
    INSERT,
    /** {@code UPDATE}. */
    UPDATE,
    /** {@code DELETE FROM}. */
    DELETE,
    /** {@code TRUNCATE}: captured as a delete of every row. */
    TRUNCATE,
    /** {@code COPY ... FROM}: captured as an insert of the rows it loads. */
    COPY,
    /** {@code MERGE INTO}. */
    MERGE,
    /** A write the driver cannot capture: writes inside WITH, EXPLAIN ANALYZE, ... */
    UNCAPTURABLE
  }
}
