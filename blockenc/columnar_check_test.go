package blockenc

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestColumnarChecks: the branch-free column checks of Init agree with
// their plain loops on edge values and random ones, at every position.
func TestColumnarChecks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	edges := []int64{0, 1, 2, 3, 6, 7, 8, 255, 256, 1<<16 - 1, 1 << 16, math.MaxInt64, math.MinInt64, -1, -2, MaxValueLen, MaxValueLen + 1}
	for range 2000 {
		n := rng.IntN(11)
		vs := make([]int64, n)
		for i := range vs {
			if rng.IntN(2) == 0 {
				vs[i] = edges[rng.IntN(len(edges))]
			} else {
				vs[i] = rng.Int64N(10)
			}
		}
		for w := range 9 {
			want := -1
			for i, v := range vs {
				if w < 8 && uint64(v) >= 1<<(8*w) {
					want = i
					break
				}
			}
			if got := firstOver(vs, byteMask(w)); got != want {
				t.Fatalf("firstOver(%v, %d bytes) = %d, want %d", vs, w, got, want)
			}
		}
		want := -1
		for i, v := range vs {
			if v < 0 {
				want = i
				break
			}
		}
		if got := firstOver(vs, math.MaxInt64); got != want {
			t.Fatalf("firstOver(%v, sign) = %d, want %d", vs, got, want)
		}
		for nd := range 10 {
			want := -1
			for i, v := range vs {
				if uint64(v) >= uint64(nd) {
					want = i
					break
				}
			}
			if got := firstAtLeast(vs, uint64(nd)); got != want {
				t.Fatalf("firstAtLeast(%v, %d) = %d, want %d", vs, nd, got, want)
			}
		}
		ends := append([]int64{0}, vs...)
		if rng.IntN(2) == 0 { // mostly non-decreasing
			for i := 1; i < len(ends); i++ {
				ends[i] = ends[i-1] + rng.Int64N(3)
			}
			if len(ends) > 1 && rng.IntN(2) == 0 {
				ends[1+rng.IntN(len(ends)-1)] = edges[rng.IntN(len(edges))]
			}
		}
		want = -1
		for i := 1; i < len(ends); i++ {
			if ends[i] < ends[i-1] || ends[i]-ends[i-1] > MaxValueLen {
				want = i
				break
			}
		}
		if got := badEnd(ends); got != want {
			t.Fatalf("badEnd(%v) = %d, want %d", ends, got, want)
		}
	}
}
