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
    assertThat(RowClaims.runs(new long[] {7, 3, 4, 5, 9, 4, 10}, 7))
        .containsExactly(3, 5, 7, 7, 9, 10);
    assertThat(RowClaims.runs(new long[] {1, 99}, 1)).containsExactly(1, 1);
  }

  @Test
  void rangesOverlapWhenTheyShareARowid() {
    long[] held = {0, 0, 5, 9, 20, 20, 40, 100};
    assertThat(RowClaims.overlap(held, new long[] {1, 4})).isFalse();
    assertThat(RowClaims.overlap(held, new long[] {1, 5})).isTrue();
    assertThat(RowClaims.overlap(held, new long[] {10, 19, 21, 39})).isFalse();
    assertThat(RowClaims.overlap(held, new long[] {10, 19, 21, 40})).isTrue();
    assertThat(RowClaims.overlap(held, new long[] {101, 200})).isFalse();
    assertThat(RowClaims.overlap(new long[] {50, 50}, held)).isTrue();
    assertThat(RowClaims.overlap(new long[] {}, held)).isFalse();
  }

  @Test
  void unionMergesOverlappingAndAdjacentRanges() {
    assertThat(
            RowClaims.union(List.of(new long[] {5, 9, 20, 20}, new long[] {0, 4, 8, 12, 30, 31})))
        .containsExactly(0, 12, 20, 20, 30, 31);
  }

  @Test
  void secondWriterOfARowConflictsWhileTheFirstIsOpenOrCommittedAfterItBegan() throws Exception {
    RowClaims claims = new RowClaims();
    RowClaims.Session a = claims.session();
    RowClaims.Session b = claims.session();
    a.begin();
    b.begin();
    a.claim(1, new long[] {10, 12});
    b.claim(1, new long[] {13, 20});
    b.claim(2, new long[] {10, 12});
    assertThatThrownBy(() -> b.claim(1, new long[] {12, 12}))
        .isInstanceOf(RowClaims.RowConflictException.class)
        .hasMessageContaining("an open transaction");
    a.end(true);
    assertThatThrownBy(() -> b.claim(1, new long[] {11, 11}))
        .hasMessageContaining("committed after this one began");
    b.end(false);

    // a transaction that begins after A ended sees its change: no conflict
    b.begin();
    b.claim(1, new long[] {11, 11});
    b.end(true);
  }

  @Test
  void rolledBackClaimsAreDropped() throws Exception {
    RowClaims claims = new RowClaims();
    RowClaims.Session a = claims.session();
    RowClaims.Session b = claims.session();
    b.begin();
    a.begin();
    a.claim(1, new long[] {1, 1});
    a.end(false);
    b.claim(1, new long[] {1, 1});
    b.end(true);
  }
}
