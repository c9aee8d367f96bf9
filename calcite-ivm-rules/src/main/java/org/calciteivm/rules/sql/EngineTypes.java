package org.calciteivm.rules.sql;

import java.util.Map;
import org.apache.calcite.sql.type.SqlTypeName;

/**
 * A type system of an engine whose SQL knows more of types than Calcite's standard SQL: names
 * Calcite's parser does not know ({@code TEXT}, {@code INT8}, {@code BLOB}), and casts it refuses
 * ({@code CAST(b AS INTEGER)} of a BOOLEAN), and arithmetic it does ({@code d + 30} of a DATE). A
 * view's {@code CAST(x AS TEXT)} and {@code x::TEXT} resolve to the type the name stands for, which
 * the SQL sent back to the engine writes by its standard name.
 */
public interface EngineTypes {
  /**
   * The type each other name stands for, by upper-case name; only types whose standard name the
   * engine reads as the same type.
   */
  Map<String, SqlTypeName> typeNames();

  /** Whether a BOOLEAN casts to a number (true is 1, false 0) and a number to a BOOLEAN. */
  boolean castsBooleansAndNumbers();

  /**
   * Whether {@code DATE + INTEGER} (and {@code INTEGER + DATE}, {@code DATE - INTEGER}) is a date
   * that many days away, and {@code DATE - DATE} the BIGINT number of days between the two.
   */
  boolean addsDaysToDates();

  /**
   * Whether REAL combined with an exact number (the branches of a union, of a {@code CASE}, the
   * arguments of {@code COALESCE}) stays REAL, where Calcite makes it DOUBLE: the rows a refresh
   * computes would then hold other values than the engine stores ({@code 2.3} against the REAL
   * {@code 2.2999999523}), and its deletes would find no stored row.
   */
  boolean keepsRealBesideExactNumbers();

  /**
   * Whether {@code x % y} and {@code MOD(x, y)} of a DOUBLE or REAL are computed in that type (C's
   * {@code fmod}), where Calcite's MOD takes exact numbers and would cast them to DECIMAL.
   */
  boolean takesRemaindersOfApproximateNumbers();
}
