package bloom

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func hashes(keys ...string) []uint64 {
	hs := make([]uint64, len(keys))
	for i, k := range keys {
		hs[i] = Hash([]byte(k))
	}
	return hs
}

// TestGoldenFilter pins the package doc's worked example.
func TestGoldenFilter(t *testing.T) {
	b := Build(hashes("apple", "banana", "pear"), BitsPerKey)
	require.Equal(t, golden.Unhex(t, "01 07 60 f4 0b de"), b, "filter against the package doc")
	golden.Check(t, "filter-v1.bin", b)
	require.Equal(t, uint64(0x9bd6c11a2c6bf096), Hash([]byte("apple")))
	f, err := Decode(b)
	require.NoError(t, err)
	for _, k := range []string{"apple", "banana", "pear"} {
		assert.True(t, f.MayContain(Hash([]byte(k))), k)
	}
	// The doc's probes of "apple": bits 5, 25, 12, 31, 19, 6, 26.
	h := Hash([]byte("apple"))
	h1, h2 := uint32(h), uint32(h>>32)
	var bits []uint64
	for j := uint32(0); j < 7; j++ {
		bits = append(bits, (uint64(h1+j*h2)*32)>>32)
	}
	assert.Equal(t, []uint64{5, 25, 12, 31, 19, 6, 26}, bits)
}

// TestFalsePositives: no false negative, and at BitsPerKey about 1% false
// positives over keys the filter does not hold.
func TestFalsePositives(t *testing.T) {
	const n = 100000
	key := func(i int) []byte { return fmt.Appendf(nil, "user%019d", i) }
	var hs []uint64
	for i := 0; i < n; i++ {
		hs = append(hs, Hash(key(2*i)))
	}
	b := Build(hs, BitsPerKey)
	assert.Equal(t, header+n*BitsPerKey/8, len(b))
	f, err := Decode(b)
	require.NoError(t, err)
	for i := 0; i < n; i++ {
		require.True(t, f.MayContain(Hash(key(2*i))), "key %d", 2*i)
	}
	fp := 0
	for i := 0; i < n; i++ {
		if f.MayContain(Hash(key(2*i + 1))) {
			fp++
		}
	}
	rate := float64(fp) / n
	assert.Less(t, rate, 0.0125, "false positives")
	assert.Greater(t, rate, 0.004, "false positives (a filter that says no too often is broken)")
	// Random binary keys too.
	r := rand.New(rand.NewPCG(1, 2))
	fp = 0
	for i := 0; i < n; i++ {
		if f.MayContain(Hash(binary.LittleEndian.AppendUint64(nil, r.Uint64()))) {
			fp++
		}
	}
	assert.Less(t, float64(fp)/n, 0.0125, "false positives, random keys")
}

func TestZeroFilter(t *testing.T) {
	var f Filter
	assert.True(t, f.IsZero())
	assert.True(t, f.MayContain(Hash([]byte("x"))))
	b := Build(nil, BitsPerKey)
	f, err := Decode(b)
	require.NoError(t, err)
	assert.False(t, f.IsZero())
	assert.False(t, f.MayContain(Hash([]byte("x"))), "an empty filter holds nothing")
}

func TestDecodeCorrupt(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":       nil,
		"header only": {1, 7},
		"version 0":   {0, 7, 0xff},
		"version 2":   {2, 7, 0xff},
		"no probes":   {1, 0, 0xff},
		"31 probes":   {1, 31, 0xff},
	} {
		_, err := Decode(b)
		require.ErrorIs(t, err, blockenc.ErrCorrupt, name)
	}
}

// FuzzDecode: arbitrary bytes decode to an error wrapping ErrCorrupt or
// to a filter that answers every key without panicking, and the filter
// Build makes of keys holds each of them.
func FuzzDecode(f *testing.F) {
	f.Add(Build(hashes("apple", "banana", "pear"), BitsPerKey), []byte("apple"))
	f.Add([]byte{1, 30, 0}, []byte(""))
	f.Add([]byte{1, 1, 0xff, 0xff}, []byte("k"))
	f.Fuzz(func(t *testing.T, b, key []byte) {
		flt, err := Decode(b)
		if err != nil {
			golden.RequireCorrupt(t, err)
		} else {
			_ = flt.MayContain(Hash(key))
		}
		g, err := Decode(Build([]uint64{Hash(key), Hash(b)}, BitsPerKey))
		require.NoError(t, err)
		require.True(t, g.MayContain(Hash(key)))
		require.True(t, g.MayContain(Hash(b)))
	})
}

func BenchmarkMayContain(b *testing.B) {
	var hs []uint64
	for i := 0; i < 20000; i++ {
		hs = append(hs, Hash(fmt.Appendf(nil, "user%019d", i)))
	}
	f, err := Decode(Build(hs, BitsPerKey))
	require.NoError(b, err)
	key := []byte("user0000000000000012345")
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if f.MayContain(Hash(key)) {
			n++
		}
	}
	_ = n
}
