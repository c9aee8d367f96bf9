package org.calciteivm.jdbc.capture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * First-committer-wins on claimed rowids: which transactions conflict, and the range arithmetic.
 */
class RowClaimsTest {
  @Test
  void rowidsBecomeRuns() {
    assertThat(RowidRanges.runs(new long[] {7, 3, 4, 5, 9, 4, 10}, 7).bounds())
        .containsExactly(3, 5, 7, 7, 9, 10);
    assertThat(RowidRanges.runs(new long[] {1, 99}, 1).bounds()).containsExactly(1, 1);
  }

  @Test
  void rangesOverlapWhenTheyShareARowid() {
    RowidRanges held = RowidRanges.of(0, 0, 5, 9, 20, 20, 40, 100);
    assertThat(held.overlaps(RowidRanges.of(1, 4))).isFalse();
    assertThat(held.overlaps(RowidRanges.of(1, 5))).isTrue();
    assertThat(held.overlaps(RowidRanges.of(10, 19, 21, 39))).isFalse();
    assertThat(held.overlaps(RowidRanges.of(10, 19, 21, 40))).isTrue();
    assertThat(held.overlaps(RowidRanges.of(101, 200))).isFalse();
    assertThat(RowidRanges.of(50, 50).overlaps(held)).isTrue();
    assertThat(RowidRanges.of().overlaps(held)).isFalse();
  }

  @Test
  void unionMergesOverlappingAndAdjacentRanges() {
    assertThat(
            RowidRanges.union(
                    List.of(RowidRanges.of(5, 9, 20, 20), RowidRanges.of(0, 4, 8, 12, 30, 31)))
                .bounds())
        .containsExactly(0, 12, 20, 20, 30, 31);
  }

  @Test
  void secondWriterOfARowConflictsWhileTheFirstIsOpenOrCommittedAfterItBegan() throws Exception {
    RowClaims claims = new RowClaims();
    RowClaims.Session a = claims.session();
    RowClaims.Session b = claims.session();
    a.begin();
    b.begin();
    a.claim(1, RowidRanges.of(10, 12));
    b.claim(1, RowidRanges.of(13, 20));
    b.claim(2, RowidRanges.of(10, 12));
    assertThatThrownBy(() -> b.claim(1, RowidRanges.of(12, 12)))
        .isInstanceOf(RowClaims.RowConflictException.class)
        .hasMessageContaining("an open transaction");
    a.end(true);
    assertThatThrownBy(() -> b.claim(1, RowidRanges.of(11, 11)))
        .hasMessageContaining("committed after this one began");
    b.end(false);

    // a transaction that begins after A ended sees its change: no conflict
    b.begin();
    b.claim(1, RowidRanges.of(11, 11));
    b.end(true);
  }

  @Test
  void rolledBackClaimsAreDropped() throws Exception {
    RowClaims claims = new RowClaims();
    RowClaims.Session a = claims.session();
    RowClaims.Session b = claims.session();
    b.begin();
    a.begin();
    a.claim(1, RowidRanges.of(1, 1));
    a.end(false);
    b.claim(1, RowidRanges.of(1, 1));
    b.end(true);
  }
}
