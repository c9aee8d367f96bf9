package org.calciteivm.core;

import java.util.Locale;

/**
 * How the delta of a join is expanded into terms; the value of the setting {@code
 * ivm_join_strategy}.
 */
public enum JoinStrategy {
  /**
   * Chosen per refresh: {@link #INCLUSION_EXCLUSION} when at most one join input has changed (both
   * expansions are then the same single term, and no previous state is needed), {@link
   * #TELESCOPING} when several have ({@code k} terms instead of {@code 2^k - 1}).
   */
  AUTO,
  /**
   * {@code Δ(R ⋈ S) = ΔR ⋈ S' + R' ⋈ ΔS - ΔR ⋈ ΔS} over the post-change states {@code R', S'}: for
   * n inputs, one term per non-empty subset of the changed inputs, signed {@code (-1)^(|S|-1)}.
   */
  INCLUSION_EXCLUSION,
  /**
   * {@code Δ(R ⋈ S) = ΔR ⋈ S + R' ⋈ ΔS}, where {@code S = S' - ΔS} is the state before the change:
   * term i joins the current states of the inputs before i, the delta of input i and the previous
   * states of the inputs after it.
   */
  TELESCOPING;

  /**
   * The value as written in SQL: {@code auto}, {@code inclusion_exclusion}, {@code telescoping}.
   */
  public String sqlValue() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The strategy with this SQL value. */
  public static JoinStrategy ofSqlValue(String value) {
    return valueOf(value.toUpperCase(Locale.ROOT));
  }
}
