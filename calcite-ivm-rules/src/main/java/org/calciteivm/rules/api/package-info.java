/**
 * The rewrite library's public API: compile a materialized view (SQL text over a Calcite schema, or
 * a logical {@code RelNode}) into its maintenance program, in the SQL of the engine that runs it,
 * without a database.
 *
 * <p>Start with {@link org.calciteivm.rules.api.IvmCompiler}. The caller provides a schema holding
 * the base tables as they are, each changing table's delta relation (the table's columns and a
 * signed {@code BIGINT} weight column {@code _ivm_weight}: +1 per inserted copy of a row, -1 per
 * deleted copy; an update is a delete and an insert) and says where those are with {@link
 * org.calciteivm.rules.api.DeltaRelations}; the tables hold their current state (after the change).
 * Previous states are derived from the two (current state UNION ALL the delta with negated
 * weights), so no time travel is needed. {@link org.calciteivm.rules.api.SqlTarget} says which SQL
 * to write: DuckDB's, or standard SQL {@code MERGE} in any Calcite dialect. Everything else in
 * {@code org.calciteivm.rules} is an implementation detail, except the rule constants ({@code
 * IvmRules}) and Hep programs ({@code IvmPrograms}).
 */
package org.calciteivm.rules.api;
