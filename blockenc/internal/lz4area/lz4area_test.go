package lz4area

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// subsOf returns AppendSubs's output for area cut every sub bytes at
// level, and checks that it decodes back to area.
func subsOf(t *testing.T, area []byte, sub, level int) []byte {
	out, _ := subsAndRest(t, area, sub, level)
	return out
}

// subsAndRest is subsOf and the compressed bytes of every sub-block but
// the first.
func subsAndRest(t *testing.T, area []byte, sub, level int) (out, rest []byte) {
	t.Helper()
	var cuts []int
	for c := 0; c < len(area); c += sub {
		cuts = append(cuts, c)
	}
	w := &Writer{Level: level}
	out = w.AppendSubs(nil, area, cuts, nil, false)
	var r Reader
	p, n, err := r.ParseSubs(out, 0, len(out), len(cuts), false, false, "area")
	require.NoError(t, err)
	require.Equal(t, len(area), n)
	r.Grow(n)
	for j := range cuts {
		require.NoError(t, r.Load(out, j), "level %d sub-block %d", level, j)
	}
	require.Equal(t, area, r.Raw[:n], "level %d", level)
	require.Positive(t, p, "the index comes first")
	require.Equal(t, len(out), r.DataEnd(), "level %d", level)
	return out, out[r.Subs[1].Comp:]
}

// TestAppendSubsIncompressible: above level 0, an area whose first
// sub-block compresses by less than an eighth compresses the others at
// level 0 (the bytes level 0 gives); an area that compresses keeps its
// level.
func TestAppendSubsIncompressible(t *testing.T) {
	random := make([]byte, 10<<10)
	r := rand.New(rand.NewPCG(7, 7))
	for i := range random {
		random[i] = byte(r.Uint32())
	}
	var records []byte // random values between repeated names, as YCSB records
	for i := 0; len(records) < 10<<10; i += 100 {
		records = append(append(records, "field"...), random[i:i+100]...)
	}
	for _, level := range []int{4, 9, 12} {
		assert.Equal(t, subsOf(t, random, 1<<10, 0), subsOf(t, random, 1<<10, level), "random, level %d", level)
		_, fast := subsAndRest(t, records, 1<<10, 0)
		_, slow := subsAndRest(t, records, 1<<10, level)
		assert.Equal(t, fast, slow, "records after the first sub-block, level %d", level)
		text := textRows(9, 10<<10)
		fast, slow = subsOf(t, text, 1<<10, 0), subsOf(t, text, 1<<10, level)
		assert.Less(t, len(slow), len(fast), "text, level %d", level)
	}
	// The Writer keeps its level for the next area.
	w := &Writer{Level: 9}
	w.AppendSubs(nil, random, []int{0, 1 << 10}, nil, false)
	assert.Equal(t, 9, w.compressor().Level)
}
