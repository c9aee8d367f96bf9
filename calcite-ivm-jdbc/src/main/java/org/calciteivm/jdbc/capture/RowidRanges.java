package org.calciteivm.jdbc.capture;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Sorted, disjoint ranges of rowids (first and last included): the rows a transaction claimed in
 * one table ({@link RowClaims}). They are kept as one array {@code [first0, last0, first1, last1,
 * ...]}, so that looking a range up is a binary search and a claim of thousands of rows stays
 * small.
 */
final class RowidRanges {
  private final long[] bounds;

  private RowidRanges(long[] bounds) {
    this.bounds = bounds;
  }

  /** The ranges {@code [first0, last0, first1, last1, ...]}, given sorted and disjoint. */
  static RowidRanges of(long... bounds) {
    return new RowidRanges(bounds.clone());
  }

  /** The first {@code count} of {@code rowids} (which it sorts) as runs of consecutive rowids. */
  static RowidRanges runs(long[] rowids, int count) {
    Arrays.sort(rowids, 0, count);
    long[] runs = new long[2 * count];
    int n = 0;
    for (int i = 0; i < count; i++) {
      if (n > 0 && rowids[i] <= runs[n - 1] + 1) {
        runs[n - 1] = Math.max(runs[n - 1], rowids[i]);
      } else {
        runs[n++] = rowids[i];
        runs[n++] = rowids[i];
      }
    }
    return new RowidRanges(Arrays.copyOf(runs, n));
  }

  /** One range of the rowids. */
  private record Range(long first, long last) {}

  /** The union of {@code lists}, merging overlapping and adjacent ranges. */
  static RowidRanges union(List<RowidRanges> lists) {
    List<Range> ranges = new ArrayList<>();
    for (RowidRanges list : lists) {
      for (int i = 0; i < list.bounds.length; i += 2) {
        ranges.add(new Range(list.bounds[i], list.bounds[i + 1]));
      }
    }
    ranges.sort(Comparator.comparingLong(Range::first));
    long[] union = new long[2 * ranges.size()];
    int n = 0;
    for (Range range : ranges) {
      if (n > 0 && range.first() <= union[n - 1] + 1) {
        union[n - 1] = Math.max(union[n - 1], range.last());
      } else {
        union[n++] = range.first();
        union[n++] = range.last();
      }
    }
    return new RowidRanges(Arrays.copyOf(union, n));
  }

  /**
   * Whether these and {@code other} share a rowid: each range of the shorter is looked up in the
   * longer.
   */
  boolean overlaps(RowidRanges other) {
    long[] few = bounds.length <= other.bounds.length ? bounds : other.bounds;
    long[] many = few == bounds ? other.bounds : bounds;
    for (int i = 0; i < few.length; i += 2) {
      // the first range of many that ends at or after this one starts
      int low = 0;
      int high = many.length / 2;
      while (low < high) {
        int mid = (low + high) >>> 1;
        if (many[2 * mid + 1] < few[i]) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      if (low < many.length / 2 && many[2 * low] <= few[i + 1]) {
        return true;
      }
    }
    return false;
  }

  /** The number of bounds kept (two per range), which the registry caps. */
  int size() {
    return bounds.length;
  }

  /** The bounds {@code [first0, last0, ...]}. */
  long[] bounds() {
    return bounds.clone();
  }
}
