package org.calciteivm.rules;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * A multiset of rows with signed counts, in which a Z-set is applied by adding its weights. Numbers
 * are compared by value ({@code 2}, {@code 2L} and {@code 2.00} are one value): the engine may give
 * a sum another Java type or scale than a recompute does, which is not a difference of contents.
 */
final class Bag {
  private final Map<List<Object>, Long> counts = new HashMap<>();

  /** The bag of {@code rows}, each counted once. */
  static Bag of(List<List<Object>> rows) {
    Bag bag = new Bag();
    rows.forEach(row -> bag.add(row, 1));
    return bag;
  }

  /** Adds {@code weight} copies of {@code row} (removes them if negative). */
  void add(List<Object> row, long weight) {
    counts.merge(normalize(row), weight, Long::sum);
    counts.values().removeIf(count -> count == 0);
  }

  /** Adds every row of a Z-set whose last column is the weight. */
  void addWeighted(List<List<Object>> zset) {
    for (List<Object> row : zset) {
      Object weight = Objects.requireNonNull(row.get(row.size() - 1), "NULL weight");
      add(row.subList(0, row.size() - 1), ((Number) weight).longValue());
    }
  }

  /** The rows with a negative count: copies removed that were never there. */
  List<String> negativeRows() {
    return counts.entrySet().stream()
        .filter(e -> e.getValue() < 0)
        .map(e -> e.getKey() + " x " + e.getValue())
        .sorted()
        .toList();
  }

  /** Every row, as many times as it is counted (negative counts left out). */
  List<List<Object>> rows() {
    List<List<Object>> rows = new ArrayList<>();
    counts.forEach(
        (row, count) -> {
          for (long i = 0; i < count; i++) {
            rows.add(row);
          }
        });
    return rows;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Bag other && counts.equals(other.counts);
  }

  @Override
  public int hashCode() {
    return counts.hashCode();
  }

  /** Sorted, one line per distinct row: {@code [1, x] x 2}. */
  @Override
  public String toString() {
    return String.join(
        "\n",
        counts.entrySet().stream().map(e -> e.getKey() + " x " + e.getValue()).sorted().toList());
  }

  /** {@code row} with every number as a {@link BigDecimal} without trailing zeros. */
  static List<Object> normalize(List<Object> row) {
    List<Object> normalized = new ArrayList<>(row.size());
    for (Object value : row) {
      normalized.add(value instanceof Number n ? number(n) : value);
    }
    return normalized;
  }

  /** {@code n} as a {@link BigDecimal} without trailing zeros, or null. */
  static BigDecimal number(Object n) {
    return n == null ? null : new BigDecimal(n.toString()).stripTrailingZeros();
  }
}
