package shapeshift

import (
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"
)

// refHuffman decodes the payload of a Huffman chunk (after its form byte)
// of n values as doc.go specifies it, one bit at a time, with the
// canonical code found by counting codes per length (no tables).
func refHuffman(pl []byte, n int) ([]int64, error) {
	mode, base := pl[0], refLE64(pl[1:])
	nl, nb := int(pl[9]), int(pl[10])
	var clen [4]int
	for k := range clen {
		clen[k] = int(binary.LittleEndian.Uint16(pl[11+2*k:]))
	}
	p := 19
	var vals []uint64 // symbol -> residual base
	var extra []int   // symbol -> bits after the code
	var lit uint64
	for k := range nl {
		x, m := binary.Uvarint(pl[p:])
		p += m
		if k == 0 {
			lit = x
		} else {
			lit += x + 1
		}
		vals, extra = append(vals, lit), append(extra, 0)
	}
	for c := range nb {
		switch c {
		case 0:
			vals, extra = append(vals, 0), append(extra, 0)
		default:
			vals, extra = append(vals, 1<<(c-1)), append(extra, c-1)
		}
	}
	nsym := nl + nb
	lens := make([]int, nsym)
	for s := range lens {
		lens[s] = int(pl[p+s/2]>>(4*(s%2))) & 15
	}
	p += (nsym + 1) / 2
	var code [4][]byte
	for k := range code {
		code[k] = pl[p : p+clen[k]]
		p += clen[k]
	}
	bucket := pl[p:]
	bit := func(src []byte, i int) int {
		if i/8 >= len(src) {
			return -1
		}
		return int(src[i/8]>>(i%8)) & 1
	}
	// Symbols in canonical order: by length, then symbol number.
	var order []int
	for l := 1; l <= 15; l++ {
		for s, sl := range lens {
			if sl == l {
				order = append(order, s)
			}
		}
	}
	var ci [4]int
	bi := 0
	next := func(k int) (int, error) {
		codeVal, first, index := 0, 0, 0
		for l := 1; l <= 15; l++ {
			b := bit(code[k], ci[k])
			if b < 0 {
				return 0, errors.New("code stream ends")
			}
			ci[k]++
			codeVal |= b
			count := 0
			for _, sl := range lens {
				if sl == l {
					count++
				}
			}
			if codeVal-first < count {
				return order[index+codeVal-first], nil
			}
			index += count
			first = (first + count) << 1
			codeVal <<= 1
		}
		return 0, errors.New("no code")
	}
	nr := n
	if mode == 1 {
		nr = n - 1
	}
	res := make([]uint64, nr)
	for j := range res {
		k := 0 // stream k holds residuals [k*nr/4, (k+1)*nr/4)
		for (k+1)*nr/4 <= j {
			k++
		}
		s, err := next(k)
		if err != nil {
			return nil, err
		}
		r := vals[s]
		for k := range extra[s] {
			b := bit(bucket, bi)
			if b < 0 {
				return nil, errors.New("bucket bits end")
			}
			bi++
			r |= uint64(b) << k
		}
		res[j] = r
	}
	var out []int64
	if mode == 0 {
		for _, r := range res {
			out = append(out, base+int64(r))
		}
		return out, nil
	}
	x := base
	out = append(out, x)
	for _, r := range res {
		x += int64(r>>1) ^ -int64(r&1)
		out = append(out, x)
	}
	return out, nil
}

// huffChunk encodes v as a Huffman chunk body, as the encoder's trial
// plans it, or returns nil if it cannot.
func huffChunk(v []int64) []byte {
	e := new(encoder)
	m := measure(v)
	if _, ok := e.huffTrial(v, m, math.MaxFloat64); !ok {
		return nil
	}
	e.write(v, m, choice{form: Huffman})
	return e.body
}

// huffData are integer chunks of the shapes Huffman is for, and its edges.
func huffData() map[string][]int64 {
	r := rand.New(rand.NewPCG(7, 29))
	d := map[string][]int64{}
	walk := make([]int64, 1024) // small steps, many zeros
	for i := 1; i < len(walk); i++ {
		walk[i] = walk[i-1] + int64(r.IntN(7)-3)*int64(r.IntN(2))
	}
	d["walk"] = walk
	fives := make([]int64, 1000) // steps of +-5 and +-15: literals
	for i := 1; i < len(fives); i++ {
		fives[i] = fives[i-1] + []int64{5, -5, 15, -15, 5, -5, 0}[r.IntN(7)]
	}
	d["fives"] = fives
	few := make([]int64, 777) // few distinct wide values: offsets with literals
	for i := range few {
		few[i] = 1_000_000_007 * int64(r.IntN(20))
	}
	d["few"] = few
	wide := make([]int64, 513) // geometric spread up to 2^45 (bucket 46)
	for i := range wide {
		wide[i] = int64(r.Uint64() >> (19 + r.IntN(45)))
	}
	wide[7] = 1<<45 | 12345
	d["wide"] = wide
	skew := make([]int64, 8192) // halving counts: code lengths reach the limit
	for i := range skew {
		k := 0
		for k < 30 && r.IntN(2) == 0 {
			k++
		}
		skew[i] = int64(k)
	}
	d["skew"] = skew
	d["two"] = []int64{3, 9, 3, 9, 9, 3}
	d["negative"] = []int64{-5, math.MinInt64, math.MaxInt64, -5, 0, -5, math.MinInt64, math.MaxInt64, 0, 1 << 40, 1 << 40} // literals only
	return d
}

func TestHuffmanChunkRoundTrip(t *testing.T) {
	for name, v := range huffData() {
		t.Run(name, func(t *testing.T) {
			b := huffChunk(v)
			require.NotNil(t, b, "no Huffman plan")
			require.Equal(t, Huffman, Form(b[0]))
			got := make([]int64, len(v))
			require.NoError(t, decodeChunk(got, b, 0, nil))
			require.Equal(t, v, got, "decodeChunk")
			ref, err := refHuffman(b[1:], len(v))
			require.NoError(t, err, "reference decoder")
			require.Equal(t, v, ref, "reference decoder")
			require.Equal(t, len(b), 1+len(b[1:]))
			planned := e0size(v)
			require.LessOrEqual(t, len(b), planned, "planned size bounds the written size")
			require.GreaterOrEqual(t, len(b), planned-huffStreams, "planned size bounds the written size")
		})
	}
}

// TestHuffmanLengthLimit: counts that halve from symbol to symbol would
// give codes longer than huffMaxCode; the plan's are at most that long
// and still a complete code.
func TestHuffmanLengthLimit(t *testing.T) {
	v := huffData()["skew"]
	e := new(encoder)
	_, ok := e.huffTrial(v, measure(v), math.MaxFloat64)
	require.True(t, ok)
	p := &e.hs.plan
	nsym := len(p.lits) + p.nb
	require.Greater(t, nsym, huffMaxCode+1, "enough symbols to need longer codes")
	require.Equal(t, uint8(huffMaxCode), slices.Max(p.lens[:nsym]))
	var codes [huffMaxSyms]uint16
	require.True(t, huffCodes(codes[:nsym], p.lens[:nsym]), "complete code")
}

// e0size is the size huffTrial plans for v.
func e0size(v []int64) int {
	e := new(encoder)
	size, _ := e.huffTrial(v, measure(v), math.MaxFloat64)
	return size
}

func TestHuffmanNotPossible(t *testing.T) {
	require.Nil(t, huffChunk([]int64{4}), "one value")
	require.Nil(t, huffChunk([]int64{4, 4, 4, 4}), "one symbol")
	wide := []int64{0, 1 << 47, 5, 1 << 50, 3}
	require.Nil(t, huffChunk(wide), "residuals beyond bucket 46 that are no literals")
}

// TestHuffmanCorrupt: every byte flip and truncation of Huffman chunks
// decodes to an error wrapping ErrCorrupt or to some values, never a panic;
// the decoder agrees with the reference decoder whenever both succeed.
func TestHuffmanCorrupt(t *testing.T) {
	for name, v := range huffData() {
		b := huffChunk(v)
		for i := range b {
			for _, x := range []byte{0x01, 0x10, 0x80, 0xff} {
				c := append([]byte(nil), b...)
				c[i] ^= x
				got := make([]int64, len(v))
				if err := decodeChunk(got, c, 0, nil); err != nil {
					require.ErrorIs(t, err, ErrCorrupt, "%s: flip %#x at %d", name, x, i)
				}
			}
		}
		for k := 1; k < len(b); k++ {
			got := make([]int64, len(v))
			err := decodeChunk(got, b[:k], 0, nil)
			require.ErrorIs(t, err, ErrCorrupt, "%s: truncated to %d bytes", name, k)
		}
	}
}

func TestHuffmanIntegerColumnRefuses(t *testing.T) {
	v := huffData()["walk"]
	b := huffChunk(v)
	col := appendColumn(appendHeader(nil, len(v), 10, 1), 0, &[numForms]int{}, []uint32{uint32(len(b))}, b)
	_, err := Decode(nil, col)
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = Open(col)
	require.ErrorIs(t, err, ErrCorrupt)
}

// TestFloatVersion3RefusesHuffman: a float column that holds a Huffman
// chunk is version 4; the same bytes labelled version 3 are refused.
func TestFloatVersion3RefusesHuffman(t *testing.T) {
	v := alpValues("stocks_usa_c")
	enc := EncodeFloat64(nil, v, Options{})
	require.Equal(t, byte(4), enc[0])
	old := append([]byte(nil), enc...)
	old[0] = 3
	reseal(old)
	_, err := DecodeFloat64(nil, old)
	require.ErrorIs(t, err, ErrCorrupt)
	_, err = OpenFloat64(old)
	require.ErrorIs(t, err, ErrCorrupt)
	// A column without Huffman chunks stays version 3.
	require.Equal(t, byte(3), EncodeFloat64(nil, alpValues("gov26"), Options{})[0])
}

// TestFloatIntComposition: IntComposition counts the forms of the integer
// chunks inside the float chunks.
func TestFloatIntComposition(t *testing.T) {
	col, err := OpenFloat64(EncodeFloat64(nil, alpValues("stocks_usa_c"), Options{}))
	require.NoError(t, err)
	require.Equal(t, map[Form]int{Decimal: 1}, col.Composition())
	require.Equal(t, map[Form]int{Huffman: 1}, col.IntComposition())

	fb := []float64{1.0 / 3, 2.0 / 3, -1.0 / 3, 1.0 / 3}
	v32 := []float32{1.5, 2.5, 3.5, 4.5}
	c32, err := OpenFloat32(EncodeFloat32(nil, slices.Repeat(v32, 64), Options{}))
	require.NoError(t, err)
	require.Equal(t, map[Form]int{Decimal: 1}, c32.Composition())
	require.Equal(t, 1, len(c32.IntComposition()))
	col, err = OpenFloat64(EncodeFloat64(nil, slices.Repeat(fb, 64), Options{}))
	require.NoError(t, err)
	require.Equal(t, map[Form]int{FrontBits: 1}, col.Composition())
	n := 0
	for _, k := range col.IntComposition() {
		n += k
	}
	require.Equal(t, 2, n, "indexes and backs")
}
