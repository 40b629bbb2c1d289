package shapeshift

import (
	"encoding/binary"
	"hash/crc32"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mixedColumn returns a small column whose chunks use many forms.
func mixedColumn(t testing.TB) ([]int64, []byte) {
	var v []int64
	for _, name := range []string{"zero", "constant", "random8", "random13", "timestamps", "runs", "outliers", "lowcard", "random64", "sparse"} {
		for _, d := range datasets {
			if d.name == name {
				v = append(v, genData(d, 5, 256)...)
			}
		}
	}
	v = append(v, 1, 2, 3) // a short last chunk
	enc := Encode(nil, v, Options{Target: Smaller, LogChunkSize: 8})
	col, err := Open(enc)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(col.Composition()), 7, "mixed column uses only %v", col.Composition())
	return v, enc
}

func TestEveryByteFlipIsCorrupt(t *testing.T) {
	_, enc := mixedColumn(t)
	buf := make([]byte, len(enc))
	for i := range enc {
		for _, x := range []byte{0x01, 0x80, 0xff} {
			copy(buf, enc)
			buf[i] ^= x
			_, err := Decode(nil, buf)
			require.ErrorIs(t, err, ErrCorrupt, "flip %#x at %d: Decode", x, i)
			_, err = Open(buf)
			require.ErrorIs(t, err, ErrCorrupt, "flip %#x at %d: Open", x, i)
		}
	}
}

func TestEveryTruncationIsCorrupt(t *testing.T) {
	_, enc := mixedColumn(t)
	for n := 0; n < len(enc); n++ {
		_, err := Decode(nil, enc[:n])
		require.ErrorIs(t, err, ErrCorrupt, "truncated to %d: Decode", n)
		_, err = Open(enc[:n])
		require.ErrorIs(t, err, ErrCorrupt, "truncated to %d: Open", n)
	}
}

// reseal recomputes the trailing checksum so structural checks are reached.
func reseal(b []byte) {
	if len(b) >= 4 {
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	}
}

// checkConsistent asserts what must hold for any bytes with a valid
// checksum: no panic, Open and Decode agree on acceptance, and an opened
// column's Get returns what Decode returned.
func checkConsistent(t testing.TB, b []byte) {
	vals, derr := Decode(nil, b)
	col, oerr := Open(b)
	require.Equal(t, derr == nil, oerr == nil, "Decode err %v but Open err %v", derr, oerr)
	if derr != nil {
		require.ErrorIs(t, derr, ErrCorrupt, "Decode")
		require.ErrorIs(t, oerr, ErrCorrupt, "Open")
		return
	}
	require.Equal(t, len(vals), col.Len(), "Len vs Decode")
	for i, v := range vals {
		if g := col.Get(i); g != v { // cheap check per value (called per mutation); require only on failure
			require.Equal(t, v, g, "Get(%d) vs Decode", i)
		}
	}
}

// TestResealedMutations changes every byte, fixes the checksum, and checks
// that the structural validation alone keeps Open, Get and Decode safe.
func TestResealedMutations(t *testing.T) {
	_, enc := mixedColumn(t)
	buf := make([]byte, len(enc))
	rejected := 0
	for i := 0; i < len(enc)-4; i++ {
		for _, x := range []byte{0x01, 0xfe} {
			copy(buf, enc)
			buf[i] ^= x
			reseal(buf)
			checkConsistent(t, buf)
			if _, err := Open(buf); err != nil {
				rejected++
			}
		}
	}
	require.NotZero(t, rejected, "no resealed mutation was rejected")
	// Truncations with a fresh checksum, too.
	for n := 4; n < len(enc); n++ {
		b := slices.Clone(enc[:n])
		reseal(b)
		checkConsistent(t, b)
	}
}

func TestStructuralErrors(t *testing.T) {
	one := Encode(nil, []int64{5, 6, 7, 1000}, Options{LogChunkSize: 8})
	cases := []struct {
		name string
		edit func([]byte) []byte
	}{
		{"version", func(b []byte) []byte { b[0] = 4; return b }},
		{"version 3 (a float column)", func(b []byte) []byte { b[0] = 3; return b }},
		{"version 2 header on a version 1 column", func(b []byte) []byte { b[0] = 2; return b }},
		{"log chunk size 7", func(b []byte) []byte { b[2] = 7; return b }},
		{"log chunk size 17", func(b []byte) []byte { b[2] = 17; return b }},
		{"composition", func(b []byte) []byte { b[3+int(BytePack)]++; return b }},
		{"unknown form", func(b []byte) []byte { b[3+len(intFormsV1)+4] = 99; return b }},
		{"trailing data", func(b []byte) []byte { return append(b[:len(b)-4], 0, 0, 0, 0, 0) }},
		{"count too large", func(b []byte) []byte { b[1] = 100; return b }},
	}
	for _, c := range cases {
		b := c.edit(slices.Clone(one))
		reseal(b)
		_, err := Decode(nil, b)
		assert.ErrorIs(t, err, ErrCorrupt, "%s: Decode", c.name)
		_, err = Open(b)
		assert.ErrorIs(t, err, ErrCorrupt, "%s: Open", c.name)

	}
}
