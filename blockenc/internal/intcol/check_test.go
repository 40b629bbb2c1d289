package intcol

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

const maxStep = 16 << 20

// TestChecks: the branch-free column checks agree with
// their plain loops on edge values and random ones, at every position.
func TestChecks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	edges := []int64{0, 1, 2, 3, 6, 7, 8, 255, 256, 1<<16 - 1, 1 << 16, math.MaxInt64, math.MinInt64, -1, -2, maxStep, maxStep + 1}
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
			require.Equal(t, want, FirstOver(vs, ByteMask(w)), "FirstOver(%v, %d bytes)", vs, w)
		}
		want := -1
		for i, v := range vs {
			if v < 0 {
				want = i
				break
			}
		}
		require.Equal(t, want, FirstOver(vs, math.MaxInt64), "FirstOver(%v, sign)", vs)
		for nd := range 10 {
			want := -1
			for i, v := range vs {
				if uint64(v) >= uint64(nd) {
					want = i
					break
				}
			}
			require.Equal(t, want, FirstAtLeast(vs, uint64(nd)), "FirstAtLeast(%v, %d)", vs, nd)
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
			if ends[i] < ends[i-1] || ends[i]-ends[i-1] > maxStep {
				want = i
				break
			}
		}
		require.Equal(t, want, BadStep(ends, maxStep), "BadStep(%v)", ends)
	}
}

// TestZigzagDeltas: deltas of either sign and across the int64 range
// come back.
func TestZigzagDeltas(t *testing.T) {
	vals := []int64{0, 5, 3, 3, -7, math.MaxInt64, math.MinInt64, 1}
	d := ZigzagDeltas(nil, vals)
	require.Equal(t, []int64{0, 10, 3, 0, 19}, d[:5])
	UndoZigzagDeltas(d)
	require.Equal(t, vals, d)
}
