package floatbench

import (
	"math"
	"testing"

	"github.com/prometheus/prometheus/tsdb/chunkenc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/measure"
)

func testVectors(t *testing.T) []Vector {
	dir, err := dataset.FindALPDir()
	require.NoError(t, err)
	files, err := dataset.LoadALP(dir, []string{"neon_air_pressure", "poi_lat"})
	require.NoError(t, err)
	var vecs []Vector
	for _, f := range files {
		vecs = append(vecs, Vector{f.Name, f.Values})
	}
	return vecs
}

func TestMeasure(t *testing.T) {
	require.NoError(t, measure.SetBenchtime("1x"))
	vecs := testVectors(t)
	rs := Measure(vecs, append(Codecs(), KvencCodec()), 1, nil)
	require.Len(t, rs, 2*4)
	lossy := map[string]bool{}
	for _, r := range rs {
		require.NoError(t, r.Err)
		assert.Equal(t, 1024, r.Values)
		assert.Greater(t, r.BitsPerValue(), 0.5, "%s on %s", r.Codec, r.Vector)
		assert.Less(t, r.BitsPerValue(), 70.0, "%s on %s", r.Codec, r.Vector)
		assert.Positive(t, r.Encode, "%s on %s", r.Codec, r.Vector)
		assert.Positive(t, r.Decode, "%s on %s", r.Codec, r.Vector)
		lossy[r.Vector+"/"+r.Codec] = r.Lossy != ""
	}
	// poi_lat holds doubles with 16-17 significant digits, more than
	// VictoriaMetrics' decimal conversion keeps; neon_air_pressure has
	// one decimal.
	assert.Equal(t, map[string]bool{
		"neon_air_pressure/xor": false, "neon_air_pressure/vm": false, "neon_air_pressure/zstd": false,
		"poi_lat/xor": false, "poi_lat/vm": true, "poi_lat/zstd": false,
		"neon_air_pressure/kvenc": false, "poi_lat/kvenc": false,
	}, lossy)
	for _, r := range rs {
		assert.Equal(t, r.Codec == KvencName, r.Forms != "", "%s on %s: forms %q", r.Codec, r.Vector, r.Forms)
	}
}

// A chunk of 120 equal values at timestamps 0..119: 2 header bytes, the
// timestamps (XORTimestampBits), the first value in 64 bits and a 0 bit
// per repeat, padded to a byte: 16 + 134 + 64 + 119 = 333 bits, 42 bytes.
func TestXORBits(t *testing.T) {
	assert.Equal(t, 134, XORTimestampBits(120))
	assert.Equal(t, 8, XORTimestampBits(1))
	v := make([]float64, 240)
	for i := range v {
		v[i] = 21.5
	}
	enc, err := xorCodec().Encode(v)
	require.NoError(t, err)
	assert.Equal(t, float64(2*(42*8-134)), enc.Bits())
	chunks := 0
	require.NoError(t, XORChunks(make([]int64, 121), make([]float64, 121), func(c *chunkenc.XORChunk, n int) {
		chunks++
		assert.Equal(t, n, c.NumSamples())
	}))
	assert.Equal(t, 2, chunks, "120 samples per chunk")
}

func TestVMRounds(t *testing.T) {
	enc, err := vmCodec().Encode([]float64{math.Pi, 0.25, 1e-300})
	require.NoError(t, err)
	got, err := enc.Decode(nil)
	require.NoError(t, err)
	require.Len(t, got, 3)
	assert.Equal(t, 0.25, got[1])
	assert.NotEqual(t, math.Pi, got[0], "VictoriaMetrics keeps 12 significant digits of pi")
	assert.InDelta(t, math.Pi, got[0], 1e-11)
}

func TestMismatch(t *testing.T) {
	n, first := Mismatch([]float64{1, math.NaN(), 3}, []float64{1, math.NaN(), 3})
	assert.Equal(t, 0, n)
	assert.Equal(t, -1, first)
	n, first = Mismatch([]float64{1, math.Copysign(0, -1)}, []float64{1, 0, 5})
	assert.Equal(t, 2, n, "-0 is not 0, and a missing value differs")
	assert.Equal(t, 1, first)
	assert.Contains(t, describeMismatch([]float64{1}, []float64{1, 2}), "1 values decoded for 2")
	assert.Empty(t, describeMismatch([]float64{1}, []float64{1}))
}
