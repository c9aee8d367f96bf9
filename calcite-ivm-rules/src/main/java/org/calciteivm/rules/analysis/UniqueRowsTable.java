package org.calciteivm.rules.analysis;

import java.util.List;
import org.apache.calcite.util.ImmutableBitSet;

/**
 * A table whose rows no two agree on some columns although no constraint declares it: a
 * materialized aggregate view keeps one row per group, a {@code DISTINCT} view one row per value.
 * Unlike a declared key, such columns may hold NULLs, and two rows never agree on them with NULL
 * taken as equal to NULL ({@code IS NOT DISTINCT FROM}), as {@code GROUP BY} takes it.
 *
 * <p>Ordering by them leaves no ties ({@link RowKeys#distinguishing}); it does not make them a key
 * to find rows by with {@code =} ({@link RowKeys#of} ignores them).
 */
public interface UniqueRowsTable {
  /** Each set of columns whose values no two rows share; empty if none is known. */
  List<ImmutableBitSet> uniqueColumns();
}
