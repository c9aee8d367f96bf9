package org.calciteivm.cli.bench;

import java.util.List;
import java.util.Locale;

/**
 * When the benchmark's view is brought up to date, the {@code refresh} option of {@code CREATE
 * MATERIALIZED VIEW ... WITH (refresh = '...')}: by the timed {@code REFRESH MATERIALIZED VIEW}
 * ({@link #DEFERRED}), or by every captured write in the writer's transaction ({@link #IMMEDIATE}),
 * so that the timed write includes the view's maintenance and the timed refresh finds nothing
 * pending.
 */
public enum Timing {
  /** Maintained by {@code REFRESH MATERIALIZED VIEW} only: the default, and every run before. */
  DEFERRED,
  /** Maintained by every captured write to a table it reads, before the write returns. */
  IMMEDIATE;

  /**
   * The value of the option as written in SQL and in reports: {@code deferred}, {@code immediate}.
   */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** The labels of every timing, in declaration order. */
  public static List<String> labels() {
    return List.of(values()).stream().map(Timing::label).toList();
  }

  /**
   * The timing called {@code label}.
   *
   * @throws IllegalArgumentException if no timing has that label
   */
  public static Timing ofLabel(String label) {
    for (Timing timing : values()) {
      if (timing.label().equals(label.trim())) {
        return timing;
      }
    }
    throw new IllegalArgumentException("no timing " + label);
  }
}
