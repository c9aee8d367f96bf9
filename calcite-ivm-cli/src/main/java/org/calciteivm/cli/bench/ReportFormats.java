package org.calciteivm.cli.bench;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/**
 * How the report writes numbers: exactly in the CSV, rounded for reading in the summary. Every
 * format of the summary writes a value that is not finite (a median of nothing, a ratio over a zero
 * time) as {@value #NONE}.
 */
final class ReportFormats {
  /** A summary cell without a value. */
  static final String NONE = "–";

  private ReportFormats() {}

  /** A number as a decimal without exponent that reads back as the same double. */
  static String plain(double value) {
    return value == 0 ? "0" : BigDecimal.valueOf(value).stripTrailingZeros().toPlainString();
  }

  /** A fraction as a percentage, e.g. {@code 0.1%}. */
  static String percent(double fraction) {
    if (!Double.isFinite(fraction)) {
      return NONE;
    }
    if (fraction == 0) {
      return "0%";
    }
    return BigDecimal.valueOf(fraction * 100)
            .round(new MathContext(3))
            .stripTrailingZeros()
            .toPlainString()
        + "%";
  }

  /** A time, rate or size: one decimal below 100, else a whole number with grouped digits. */
  static String decimal(double value) {
    if (!Double.isFinite(value)) {
      return NONE;
    }
    double rounded = Math.round(value * 10) / 10.0;
    return Math.abs(rounded) < 100
        ? String.format(Locale.ROOT, "%.1f", rounded)
        : String.format(Locale.ROOT, "%,.0f", value);
  }

  /** A count: whole with grouped digits, one decimal if a median fell between two counts. */
  static String count(double value) {
    if (!Double.isFinite(value)) {
      return NONE;
    }
    return value == Math.rint(value)
        ? String.format(Locale.ROOT, "%,.0f", value)
        : String.format(Locale.ROOT, "%,.1f", value);
  }

  /** A speedup: one decimal from 1 up, two significant digits below 1 (a slowdown). */
  static String speedup(double value) {
    if (!Double.isFinite(value)) {
      return NONE;
    }
    // 0.995 and up would round to 1.0 with two significant digits: written as from 1 up
    return Math.abs(value) >= 0.995 || value == 0
        ? String.format(Locale.ROOT, "%,.1f", value)
        : BigDecimal.valueOf(value).round(new MathContext(2)).toPlainString();
  }

  /** A capture overhead, near 1: two decimals. */
  static String overhead(double value) {
    return Double.isFinite(value) ? String.format(Locale.ROOT, "%.2f", value) : NONE;
  }
}
