package org.calciteivm.rules.aggregate;

import java.util.List;

/**
 * The layouts of an aggregate view's stored state, one per version that changed it, oldest first. A
 * view keeps the layout it was stored in: planned again, it is planned in the newest layout whose
 * columns its stored table has ({@link #NEWEST_FIRST}).
 */
public enum StateVersion {
  /**
   * A column per aggregate call and measure, also where calls hold the same sum or count; a sum of
   * floating-point values one running sum.
   */
  SEPARATE_MEASURES,
  /**
   * Each measure kept once, shared by the calls that hold it ({@link StateColumn.Measure}); a sum
   * of floating-point values one running sum, which keeps a NaN or an infinity after its row goes.
   */
  SHARED_MEASURES,
  /**
   * As {@link #SHARED_MEASURES}, and a sum of floating-point values keeps its NaNs and infinities
   * apart from the sum of its finite values, counted ({@link SpecialValues}).
   */
  SPECIAL_VALUE_COUNTS;

  /** The layout new views are stored in. */
  public static final StateVersion CURRENT = SPECIAL_VALUE_COUNTS;

  /** Every layout, newest first: the order to try them in on a stored view. */
  public static final List<StateVersion> NEWEST_FIRST =
      List.of(SPECIAL_VALUE_COUNTS, SHARED_MEASURES, SEPARATE_MEASURES);

  /** Whether calls that hold the same measure share its column. */
  boolean sharesMeasures() {
    return this != SEPARATE_MEASURES;
  }

  /** Whether a floating-point sum counts its NaNs and infinities apart. */
  boolean countsSpecialValues() {
    return this == SPECIAL_VALUE_COUNTS;
  }
}
