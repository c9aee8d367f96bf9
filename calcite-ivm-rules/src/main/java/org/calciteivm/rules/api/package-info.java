/**
 * The rewrite library's public API: compile a materialized view (SQL text over a Calcite schema, or
 * a logical {@code RelNode}) into its maintenance program, without a database.
 *
 * <p>Start with {@link org.calciteivm.rules.api.IvmCompiler}. The caller provides a schema in which
 * every base table that changes implements {@link org.calciteivm.rules.delta.ChangingTable}, naming
 * a delta relation with the table's columns and a signed {@code BIGINT} weight column {@code
 * _ivm_weight} (+1 per inserted copy of a row, -1 per deleted copy; an update is a delete and an
 * insert), while the table itself holds its current state (after the change). Previous states are
 * derived from the two (current state UNION ALL the delta with negated weights), so no time travel
 * is needed. Everything else in {@code org.calciteivm.rules} is an implementation detail.
 */
package org.calciteivm.rules.api;
