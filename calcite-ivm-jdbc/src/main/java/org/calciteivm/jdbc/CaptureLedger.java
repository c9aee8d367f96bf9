package org.calciteivm.jdbc;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The captured writes to a database's tracked tables, as this JVM saw them: every captured write of
 * a database runs in the JVM that opened it (DuckDB lets one process write a database file), and so
 * does every refresh that writes a view's change log. A write is {@linkplain #registered
 * registered} once it has run, before its transaction can commit, with what it captured ({@link
 * CapturedChange}); it {@linkplain #ended ends} when its transaction ends, committed or not.
 *
 * <p>A refresh reads it twice:
 *
 * <ul>
 *   <li>before its transaction begins, a {@link Mark} per base table: up to which write every write
 *       had ended then. Those committed before the refresh's snapshot or never will, so the refresh
 *       consumes every row they captured: the marks are where the next refresh's count starts, and
 *       if nothing was registered after them since, the next refresh has nothing to do.
 *   <li>inside its transaction, once its snapshot is taken, what was registered after its previous
 *       marks ({@link #since}). A write whose change the snapshot sees was registered before it
 *       committed, so that count covers every change the refresh has not consumed. It may cover
 *       more (a write still open, or rolled back): it errs one way only.
 * </ul>
 */
public final class CaptureLedger {
  /**
   * Where a count of one table's writes starts.
   *
   * @param write every write registered up to this one had ended
   * @param rows the rows those writes captured, where known
   */
  public record Mark(long write, long rows) {}

  /** The writes of one tracked table. */
  private static final class Table {
    /** How many writes were registered; the last one's number. */
    long registered;

    /** The last write whose change may insert, delete, or whose rows are not known (0: none). */
    long lastInserting;

    long lastDeleting;
    long lastUncounted;

    /** The rows of all registered writes whose rows are known. */
    long rows;

    /** The writes not ended yet, each with the rows registered before it. */
    final TreeMap<Long, Long> open = new TreeMap<>();

    Mark mark() {
      return open.isEmpty()
          ? new Mark(registered, rows)
          : new Mark(open.firstKey() - 1, open.firstEntry().getValue());
    }
  }

  private final Map<Integer, Table> tables = new HashMap<>();

  /** Registers a write to tracked table {@code tableId} that captured {@code change}. */
  public synchronized long registered(int tableId, CapturedChange change) {
    Table table = tables.computeIfAbsent(tableId, id -> new Table());
    long write = ++table.registered;
    table.open.put(write, table.rows);
    if (change.inserts()) {
      table.lastInserting = write;
    }
    if (change.deletes()) {
      table.lastDeleting = write;
    }
    if (change.rows() < 0) {
      table.lastUncounted = write;
    } else {
      table.rows += change.rows();
    }
    return write;
  }

  /** Records that the transaction of write {@code write} to table {@code tableId} has ended. */
  public synchronized void ended(int tableId, long write) {
    tables.get(tableId).open.remove(write);
  }

  /** The marks of {@code tableIds} now, in order. */
  public synchronized List<Mark> marks(List<Integer> tableIds) {
    List<Mark> marks = new ArrayList<>(tableIds.size());
    for (int tableId : tableIds) {
      Table table = tables.get(tableId);
      marks.add(table == null ? new Mark(0, 0) : table.mark());
    }
    return marks;
  }

  /**
   * The marks of {@code tableIds} now, if the writes registered to them after {@code before} (in
   * their order) are exactly {@code ours} many per table (by table id; a table missing has none),
   * all ended: then those writes are the only ones between the two marks. Null otherwise.
   */
  public synchronized @Nullable List<Mark> marksAfterOnly(
      List<Integer> tableIds, List<Mark> before, Map<Integer, Integer> ours) {
    List<Mark> now = marks(tableIds);
    for (int i = 0; i < tableIds.size(); i++) {
      if (now.get(i).write() != before.get(i).write() + ours.getOrDefault(tableIds.get(i), 0)) {
        return null;
      }
    }
    return now;
  }

  /**
   * How many writes to each of {@code tableIds} were registered until now, in order, if every one
   * of them has ended; null while one is open (its writer is likely to register more soon).
   */
  public synchronized long @Nullable [] registrationsIfEnded(List<Integer> tableIds) {
    long[] registered = new long[tableIds.size()];
    for (int i = 0; i < registered.length; i++) {
      Table table = tables.get(tableIds.get(i));
      if (table != null && !table.open.isEmpty()) {
        return null;
      }
      registered[i] = table == null ? 0 : table.registered;
    }
    return registered;
  }

  /** Whether no write to {@code tableIds} was registered after {@code marks} (in their order). */
  public synchronized boolean unchangedSince(List<Integer> tableIds, List<Mark> marks) {
    for (int i = 0; i < tableIds.size(); i++) {
      Table table = tables.get(tableIds.get(i));
      if (table != null && table.registered != marks.get(i).write()) {
        return false;
      }
    }
    return true;
  }

  /**
   * What the writes to table {@code tableId} registered after {@code mark} captured, as far as
   * known: null if some of their rows are not.
   */
  public synchronized @Nullable CapturedChange since(int tableId, Mark mark) {
    Table table = tables.get(tableId);
    if (table == null || table.registered == mark.write()) {
      return new CapturedChange(false, false, 0);
    }
    if (table.lastUncounted > mark.write()) {
      return null;
    }
    return new CapturedChange(
        table.lastInserting > mark.write(),
        table.lastDeleting > mark.write(),
        table.rows - mark.rows());
  }
}
