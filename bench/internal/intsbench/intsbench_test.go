package intsbench

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/bench/internal/measure"
)

// TestCodecsRoundTrip runs every codec's own check on awkward columns:
// negative values, full 64-bit range, lengths around the buffer and chunk
// sizes.
func TestCodecsRoundTrip(t *testing.T) {
	cols := [][]int64{
		nil,
		{7},
		{math.MinInt64, math.MaxInt64, 0, -1, 1},
	}
	for _, n := range []int{colblkChunk + 1, lz4BufBytes/3 + 5} {
		v := make([]int64, n)
		for i := range v {
			v[i] = int64(i*i%1000) - 500
		}
		cols = append(cols, v)
	}
	for _, codec := range Codecs() {
		for ci, col := range cols {
			enc, err := codec.Encode(col)
			require.NoError(t, err, "%s col %d", codec.Name, ci)
			assert.NoError(t, check(enc, col, randomRows(len(col), 50, 3)), "%s col %d", codec.Name, ci)
		}
	}
}

func TestMeasureAndSelectN(t *testing.T) {
	require.NoError(t, measure.SetBenchtime("3x"))
	v := make([]int64, 3000)
	for i := range v {
		v[i] = int64(i / 7)
	}
	res := Measure([]Column{{"steps", v}}, Codecs(), 1, nil)
	require.Len(t, res, len(Codecs()))
	for _, r := range res {
		assert.NoError(t, r.Err, "%+v", r)
		assert.Positive(t, r.Bytes, "%+v", r)
		assert.Greater(t, r.Decode, 0.0, "%+v", r)
		assert.Greater(t, r.Encode, 0.0, "%+v", r)
		assert.Equal(t, r.Codec != "zstd", r.Get > 0, "%s: Get %v", r.Codec, r.Get)
		assert.Equal(t, strings.HasPrefix(r.Codec, ShapeshiftPrefix), r.Composition != nil,
			"%s: composition %v", r.Codec, r.Composition)
	}
	curves, err := SelectN(v, Codecs()[:2], 1, nil)
	require.NoError(t, err)
	if got := curves[0].Ns; assert.Len(t, got, 5, "ns %v", got) {
		assert.Equal(t, 3000, got[4], "ns %v", got)
	}
}
