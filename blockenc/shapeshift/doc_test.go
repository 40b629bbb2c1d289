package shapeshift

import (
	"encoding/hex"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDocExamples pins the worked examples in doc.go.
func TestDocExamples(t *testing.T) {
	lz := make([]int64, 64)
	for i := range lz {
		lz[i] = []int64{70000, 70001, 70300}[i%3]
	}
	cases := []struct {
		f    Form
		v    []int64
		want string
	}{
		{Zero, []int64{0, 0, 0, 0}, "00"},
		{Constant, []int64{7, 7, 7, 7}, "01 | 07 00 00 00 00 00 00 00"},
		{BytePack, []int64{1000, 1001, 1300, 1002}, "02 | e8 03 00 00 00 00 00 00 | 02 | 00 00  01 00  2c 01  02 00 | 00 00 00 00 00 00"},
		{BitPack, []int64{3, 5, 4, 10}, "03 | 03 00 00 00 00 00 00 00 | 03 | 50 0e 00 00 00 00 00 00"},
		{Delta, []int64{100, 110, 120, 131}, "04 | 64 00 00 00 00 00 00 00 | 0a 00 00 00 00 00 00 00 | 01 | 04 00 00 00 00 00 00 00"},
		{RunLength, []int64{5, 5, 5, 9, 9, 5}, "05 | 05 00 00 00 00 00 00 00 | 02 00 | 01 | 01 | 02 01 00 | 00 04 00 | 00 00 00 00 00 00 00"},
		{Patched, []int64{1, 0, 2, 1, 0, 900, 3, 1}, "06 | 00 00 00 00 00 00 00 00 | 05 | 05 | 01 00 | 01 88 00 c8 08 00 00 00 | 05 00 | 1c 00 00 00 00 00 00 00"},
		{LZ4, lz, "07 | 70 11 01 00 00 00 00 00 | 02 | 6f 00 00 01 00 2c 01 06 00 59 e0 00 00 01 00 2c 01 00 00 01 00 2c 01 00 00"},
		{Raw, []int64{-1, 2}, "08 | ff ff ff ff ff ff ff ff | 02 00 00 00 00 00 00 00"},
		{PatchedDelta, []int64{100, 100, 101, 101, 126, 127}, "09 | 64 00 00 00 00 00 00 00 | 00 00 00 00 00 00 00 00 | 02 | 03 | 01 00 | 44 01 00 00 00 00 00 00 | 03 00 | 06 00 00 00 00 00 00 00"},
	}
	for _, c := range cases {
		got, ok := forceChunk(c.v, c.f)
		require.True(t, ok, "%v: cannot force", c.f)
		assert.Equal(t, unhex(t, c.want), got, "%v", c.f)
		// Selection picks these forms for these inputs too (for the other
		// tiny examples, BitPack is smaller).
		if c.f == Zero || c.f == Constant || c.f == BitPack {
			col, err := Open(Encode(nil, c.v, Options{}))
			if assert.NoError(t, err, "%v example", c.f) {
				assert.Equal(t, 1, col.Composition()[c.f], "%v example encodes as %v", c.f, col.Composition())
			}
		}
	}
	v := append(make([]int64, 256), 3, 5, 4, 10)
	want := unhex(t, `01 | 84 02 | 08 | 01 00 00 01 00 00 00 00 00 | 01 00 00 00 | 13 00 00 00 |
		00 | 03 03 00 00 00 00 00 00 00 03 50 0e 00 00 00 00 00 00 | 94 66 90 e3`)
	assert.Equal(t, want, Encode(nil, v, Options{LogChunkSize: 8}), "column")
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	s = strings.NewReplacer("|", "", " ", "", "\n", "", "\t", "").Replace(s)
	b, err := hex.DecodeString(s)
	require.NoError(t, err)

	return b
}

// TestDocFloatExamples pins the float examples in doc.go.
func TestDocFloatExamples(t *testing.T) {
	v := []float64{20.5, 20.25, 20.75, 21, 21.25, 21.5, math.Copysign(0, -1), 21.75}
	want := unhex(t, `03 | 08 | 08 | 0a | 00 01 00 | 21 00 00 00 |
		0a | 0e | 0c | 01 00 | 06 00 | 00 00 00 00 00 00 00 80 |
		03 e9 07 00 00 00 00 00 00 08 19 00 32 4b 64 7d 7d 96 | 03 54 00 b0`)
	assert.Equal(t, want, EncodeFloat64(nil, v, Options{}), "Decimal column")

	fb := []float64{1.0 / 3, 2.0 / 3, -1.0 / 3, 1.0 / 3}
	bits := make([]uint64, len(fb))
	for i, x := range fb {
		bits[i] = math.Float64bits(x)
	}
	e := new(encoder)
	e.writeFrontBits(bits, 8)
	want = unhex(t, `0b | 10 | 03 | d5 3f e5 3f d5 bf | 00 00 | 12 00 00 00 |
		03 00 00 00 00 00 00 00 00 02 24 00 00 00 00 00 00 00 |
		01 55 55 55 55 55 55 00 00`)
	assert.Equal(t, want, e.body, "FrontBits chunk")

	for _, c := range []struct {
		v    []int64
		want string
	}{
		{[]int64{7, 7, 8, 7, 9, 7, 7, 20}, `0c | 00 | 07 00 00 00 00 00 00 00 | 00 | 05 | 01 00 01 00 01 00 01 00 |
			31 03 02 | 00 | 03 | 07 | 02 | 0a`},
		{[]int64{500, 505, 505, 500, 495, 500, 505, 505, 510}, `0c | 01 | f4 01 00 00 00 00 00 00 | 03 | 00 | 01 00 01 00 01 00 01 00 |
			00 08 00 | 22 01 | 02 | 0f | 00 | 01`},
	} {
		got := huffChunk(c.v)
		assert.Equal(t, unhex(t, c.want), got, "Huffman chunk of %v", c.v)
		ref, err := refHuffman(got[1:], len(c.v))
		require.NoError(t, err)
		assert.Equal(t, c.v, ref, "Huffman example decodes")
	}
	ref, _, err := refDecodeFloat(appendColumn([]byte{3, 8, 4, 8}, 0, &[numForms]int{FrontBits: 1}, []uint32{uint32(len(e.body))}, e.body))
	require.NoError(t, err)
	assert.Equal(t, bits, ref, "FrontBits example decodes")
}
