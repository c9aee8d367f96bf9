package org.calciteivm.jdbc;

/**
 * What a captured write added to the change log of one tracked table: which signs of weight its
 * rows may have, and how many rows, as far as the driver knows.
 *
 * @param inserts whether some row may have weight +1 (an INSERT, an UPDATE's new values)
 * @param deletes whether some row may have weight -1 (a DELETE, a TRUNCATE, an UPDATE's old values)
 * @param rows how many rows, or -1 if not known
 */
public record CapturedChange(boolean inserts, boolean deletes, long rows) {
  /**
   * A change nothing is known of: a refresh's write of a view's change log, which other views read
   * as they read a base table's.
   */
  public static final CapturedChange UNKNOWN = new CapturedChange(true, true, -1);

  /**
   * The change of a write that reported {@code result} as its outcome: an update count ({@code
   * Long} or {@code Integer}) or a batch's counts ({@code int[]}); an UPDATE ({@code inserts} and
   * {@code deletes}) writes two rows per row it changes. Rows are unknown for any other result, or
   * a count a batch did not report.
   */
  public static CapturedChange of(boolean inserts, boolean deletes, Object result) {
    long rows = -1;
    if (result instanceof Number count) {
      rows = count.longValue();
    } else if (result instanceof int[] counts) {
      rows = 0;
      for (int count : counts) {
        if (count < 0) {
          rows = -1;
          break;
        }
        rows += count;
      }
    }
    return new CapturedChange(
        inserts, deletes, rows < 0 ? -1 : inserts && deletes ? 2 * rows : rows);
  }
}
