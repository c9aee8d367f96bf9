package org.calciteivm.jdbc.capture;

import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * First-committer-wins on the rows that captured UPDATEs and DELETEs change, for all connections of
 * this JVM to one database.
 *
 * <p>A captured write records the old values of its rows as its snapshot saw them. That is only the
 * row's value at commit if no concurrent transaction changed the row, and DuckDB does not ensure
 * it: it fails the second of two transactions that update the same column of a row (when the value
 * changes) or that both delete it, but lets an UPDATE and a DELETE of one row, or UPDATEs of
 * different columns, both commit. The delta would then remove an old row twice, or add a new row
 * that never existed, and the view would differ from its query. So every captured UPDATE or DELETE
 * claims the rowids it changes here, in its transaction before that can commit, and fails with a
 * {@link RowConflictException} (which aborts the transaction) if another transaction claimed one of
 * them and is still open, or committed after this transaction's snapshot began.
 *
 * <p>Every captured write of a database runs in this JVM (DuckDB lets one process open a file), so
 * this registry sees them all. A transaction's snapshot begins at its first access to the database,
 * after the driver knows it is open; its <em>floor</em> is the number of claiming transactions that
 * had ended when the driver last knew no transaction was open, so a transaction that ended after
 * the floor is treated as concurrent even if it ended just before the snapshot (a conflict too
 * many, never one too few). INSERTs claim nothing: no other transaction sees their rows before they
 * commit.
 */
public final class RowClaims {
  /** The session whose transaction the captured write on this thread runs in. */
  private static final ThreadLocal<@Nullable Session> SCOPE = new ThreadLocal<>();

  /** The rows of a write with more rows than this are claimed as one range, first to last. */
  static final int MAX_ROWS = 4096;

  /**
   * Ended claim sets kept at most, and rowid bounds kept in them; older sets are forgotten (see
   * {@link #horizon}).
   */
  private static final int MAX_ENDED = 10_000;

  private static final long MAX_ENDED_BOUNDS = 1 << 20;

  /** The number of transactions that claimed rows and may have committed. */
  private long ended;

  /**
   * Claim sets that ended at or before this number are forgotten: a transaction whose floor is
   * older cannot tell whether it conflicts with them, and fails its next claim.
   */
  private long horizon;

  private final Set<Session> open = new HashSet<>();
  private final ArrayDeque<ClaimSet> endedSets = new ArrayDeque<>();

  /** The rowid bounds kept in {@link #endedSets}. */
  private long endedBounds;

  /** An empty registry, for one database (kept by {@code IvmDatabase}). */
  public RowClaims() {}

  /** A new session, for one connection's transactions. */
  public Session session() {
    synchronized (this) {
      return new Session(ended);
    }
  }

  /**
   * The first rowid DuckDB gives the rows a transaction inserted until it commits ({@code
   * MAX_ROW_ID}); other transactions cannot see those rows, and each transaction numbers its own
   * from here, so they are not claimed.
   */
  static final long FIRST_LOCAL_ROWID = 36_028_797_018_960_000L;

  /**
   * The query that lists the rowids in column {@code rowidColumn} (quoted) of the stage table
   * {@code stage}, except rows the transaction inserted.
   */
  static String rowidsSql(String stage, String rowidColumn) {
    return "SELECT "
        + rowidColumn
        + " FROM "
        + stage
        + " WHERE "
        + rowidColumn
        + " < "
        + FIRST_LOCAL_ROWID;
  }

  /**
   * Claims the rows staged for a write to table {@code tableId}, listed by {@code rowidsSql} (see
   * {@link #rowidsSql}) on the connection of {@code duckDb}, for the transaction of the session in
   * scope on this thread: each run of consecutive rowids, or one range from the first to the last
   * if there are more than {@link #MAX_ROWS} (keeping them all would cost more than the conflicts
   * the gaps avoid).
   *
   * @throws RowConflictException if a concurrent transaction claimed one of them
   */
  static void claimStaged(CaptureStatements duckDb, int tableId, String rowidsSql)
      throws SQLException {
    Session session = SCOPE.get();
    if (session == null) {
      throw new IllegalStateException(
          "a captured write ran outside IvmConnection.capturing: its rows were not claimed");
    }
    long[] rowids =
        duckDb.query(
            rowidsSql + " LIMIT " + (MAX_ROWS + 1),
            rs -> {
              long[] read = new long[16];
              int count = 0;
              while (rs.next()) {
                if (count == read.length) {
                  read = Arrays.copyOf(read, 2 * count);
                }
                read[count++] = rs.getLong(1);
              }
              return Arrays.copyOf(read, count);
            });
    if (rowids.length > MAX_ROWS) {
      session.claim(
          tableId,
          duckDb.query(
              "SELECT min(r), max(r) FROM (" + rowidsSql + ") AS s(r)",
              rs -> {
                rs.next();
                return RowidRanges.of(rs.getLong(1), rs.getLong(2));
              }));
    } else if (rowids.length > 0) {
      session.claim(tableId, RowidRanges.runs(rowids, rowids.length));
    }
  }

  /** Forgets claim sets no open transaction can conflict with, and the oldest beyond the caps. */
  private void prune() {
    long oldestFloor = ended;
    for (Session session : open) {
      oldestFloor = Math.min(oldestFloor, session.floor);
    }
    while (!endedSets.isEmpty()
        && (endedSets.peekFirst().endedAt <= oldestFloor
            || endedSets.size() > MAX_ENDED
            || endedBounds > MAX_ENDED_BOUNDS)) {
      ClaimSet forgotten = endedSets.removeFirst();
      endedBounds -= forgotten.bounds;
      horizon = Math.max(horizon, forgotten.endedAt);
    }
  }

  /** The rows one transaction claimed, per table. */
  private static final class ClaimSet {
    /** Per table, the ranges of each claim; merged into one when there are many. */
    final Map<Integer, List<RowidRanges>> ranges = new HashMap<>();

    /** The rowid bounds in {@link #ranges}. */
    long bounds;

    /** When it ended (see {@link RowClaims#ended}), or 0 while open. */
    long endedAt;

    boolean overlaps(int tableId, RowidRanges claim) {
      for (RowidRanges held : ranges.getOrDefault(tableId, List.of())) {
        if (held.overlaps(claim)) {
          return true;
        }
      }
      return false;
    }

    void add(int tableId, RowidRanges claim) {
      List<RowidRanges> lists = ranges.computeIfAbsent(tableId, id -> new ArrayList<>());
      lists.add(claim);
      if (lists.size() > 16) {
        // a long transaction: keep lookups logarithmic
        RowidRanges union = RowidRanges.union(lists);
        lists.clear();
        lists.add(union);
      }
      bounds = 0;
      ranges.values().forEach(l -> l.forEach(r -> bounds += r.size()));
    }
  }

  /** Makes a session the one captured writes on this thread claim rows for, until closed. */
  public interface Scope extends AutoCloseable {
    @Override
    void close();
  }

  /**
   * The claims of one connection: its open transaction's claim set and floor. The connection tells
   * when a transaction may have begun ({@link #begin}) and when it ended ({@link #end}).
   */
  public final class Session {
    /** Whether a transaction may be open. */
    private boolean active;

    /** Ended claim sets up to this number ended before this transaction's snapshot began. */
    private long floor;

    private @Nullable ClaimSet claims;

    private Session(long floor) {
      this.floor = floor;
    }

    /**
     * Records that a transaction may begin from now on, before it has read anything. Does nothing
     * if one is already open.
     */
    public void begin() {
      synchronized (RowClaims.this) {
        if (!active) {
          active = true;
          floor = ended;
          open.add(this);
        }
      }
    }

    /**
     * Records that the open transaction, if any, ended; its claims are kept for the transactions
     * that overlapped it if it {@code mayHaveCommitted}, and dropped if it surely rolled back.
     */
    public void end(boolean mayHaveCommitted) {
      synchronized (RowClaims.this) {
        if (claims != null) {
          if (mayHaveCommitted) {
            claims.endedAt = ++ended;
            endedSets.addLast(claims);
            endedBounds += claims.bounds;
          }
          claims = null;
        }
        active = false;
        floor = ended;
        open.remove(this);
        prune();
      }
    }

    /** Makes this session the one captured writes on this thread claim rows for. */
    public Scope enter() {
      Session previous = SCOPE.get();
      SCOPE.set(this);
      return () -> SCOPE.set(previous);
    }

    void claim(int tableId, RowidRanges ranges) throws RowConflictException {
      synchronized (RowClaims.this) {
        if (!active) {
          // a transaction the connection did not report: its floor is from its last end
          active = true;
          open.add(this);
        }
        if (floor < horizon) {
          throw new RowConflictException(
              "this transaction began before changes whose rows are no longer tracked", tableId);
        }
        for (Session other : open) {
          if (other != this && other.claims != null && other.claims.overlaps(tableId, ranges)) {
            throw new RowConflictException(
                "an open transaction changes some of the same rows", tableId);
          }
        }
        for (var it = endedSets.descendingIterator(); it.hasNext(); ) {
          ClaimSet set = it.next();
          if (set.endedAt <= floor) {
            break;
          }
          if (set.overlaps(tableId, ranges)) {
            throw new RowConflictException(
                "a transaction that committed after this one began changed some of the same rows",
                tableId);
          }
        }
        if (claims == null) {
          claims = new ClaimSet();
        }
        claims.add(tableId, ranges);
      }
    }
  }

  /** A captured write's rows were claimed by a concurrent transaction (SQLState 40001). */
  public static final class RowConflictException extends SQLException {
    private static final long serialVersionUID = 1L;

    RowConflictException(String what, int tableId) {
      super("row conflict on tracked table #" + tableId + ": " + what, "40001");
    }
  }
}
