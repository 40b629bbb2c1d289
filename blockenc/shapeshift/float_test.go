package shapeshift

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkFloats decodes enc both ways and compares bit patterns with want.
func checkFloats(t testing.TB, enc []byte, want []float64) {
	t.Helper()
	got, err := DecodeFloat64([]float64{-7}, enc)
	require.NoError(t, err, "DecodeFloat64")
	require.Len(t, got, len(want)+1)
	require.Equal(t, math.Float64bits(-7), math.Float64bits(got[0]), "DecodeFloat64 overwrote dst")
	for i, w := range want {
		if math.Float64bits(got[i+1]) != math.Float64bits(w) { // cheap check per value; require only on failure
			require.Equal(t, math.Float64bits(w), math.Float64bits(got[i+1]), "DecodeFloat64 value %d: %v, want %v", i, got[i+1], w)
		}
	}
	col, err := OpenFloat64(enc)
	require.NoError(t, err, "OpenFloat64")
	require.Equal(t, len(want), col.Len(), "Len")
	for i, w := range want {
		if g := col.Get(i); math.Float64bits(g) != math.Float64bits(w) {
			require.Equal(t, math.Float64bits(w), math.Float64bits(g), "Get(%d): %v, want %v", i, g, w)
		}
	}
}

// checkFloats32 is checkFloats for float32 columns.
func checkFloats32(t testing.TB, enc []byte, want []float32) {
	t.Helper()
	got, err := DecodeFloat32([]float32{-7}, enc)
	require.NoError(t, err, "DecodeFloat32")
	require.Len(t, got, len(want)+1)
	for i, w := range want {
		if math.Float32bits(got[i+1]) != math.Float32bits(w) {
			require.Equal(t, math.Float32bits(w), math.Float32bits(got[i+1]), "DecodeFloat32 value %d: %v, want %v", i, got[i+1], w)
		}
	}
	col, err := OpenFloat32(enc)
	require.NoError(t, err, "OpenFloat32")
	require.Equal(t, len(want), col.Len(), "Len")
	for i, w := range want {
		if g := col.Get(i); math.Float32bits(g) != math.Float32bits(w) {
			require.Equal(t, math.Float32bits(w), math.Float32bits(g), "Get(%d): %v, want %v", i, g, w)
		}
	}
}

// floatDatasets are synthetic float columns with fixed seeds; together
// with ALP's files they reach every float form.
var floatDatasets = []struct {
	name string
	gen  func(r *rand.Rand, n int) []float64
}{
	{"gauge", func(r *rand.Rand, n int) []float64 {
		// Two-decimal readings drifting: Decimal with delta forms.
		v := make([]float64, n)
		x := 2000
		for i := range v {
			x += r.IntN(21) - 10
			v[i] = float64(x) / 100
		}
		return v
	}},
	{"counter", func(r *rand.Rand, n int) []float64 {
		// Integral counter as float64.
		v := make([]float64, n)
		c := 1e9
		for i := range v {
			c += float64(r.IntN(1000))
			v[i] = c
		}
		return v
	}},
	{"coordinates", func(r *rand.Rand, n int) []float64 {
		// Doubles that are not decimals: FrontBits.
		v := make([]float64, n)
		for i := range v {
			v[i] = 0.6 + r.Float64()*0.1
		}
		return v
	}},
	{"randombits", func(r *rand.Rand, n int) []float64 {
		// Arbitrary bit patterns: Raw.
		v := make([]float64, n)
		for i := range v {
			v[i] = math.Float64frombits(r.Uint64())
		}
		return v
	}},
	{"special", func(r *rand.Rand, n int) []float64 {
		// Decimals sprinkled with every kind of exception.
		sp := specialFloats()
		v := make([]float64, n)
		for i := range v {
			if r.IntN(8) == 0 {
				v[i] = sp[r.IntN(len(sp))]
			} else {
				v[i] = float64(r.IntN(100000)) / 1000
			}
		}
		return v
	}},
	{"constant", func(r *rand.Rand, n int) []float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = 1.0 / 3
		}
		return v
	}},
}

// specialFloats are bit patterns a float codec is likely to get wrong.
func specialFloats() []float64 {
	b := []uint64{
		0x8000000000000000,          // -0
		0x7ff0000000000000,          // +Inf
		0xfff0000000000000,          // -Inf
		0x7ff8000000000000,          // quiet NaN
		0xfff8000000000001,          // negative quiet NaN with a payload
		0x7ff0000000000001,          // signaling NaN
		0x7ff4000000000000,          // signaling NaN with a high payload
		0x0000000000000001,          // smallest subnormal
		0x800fffffffffffff,          // largest negative subnormal
		0x0010000000000000,          // smallest normal
		0x7fefffffffffffff,          // largest finite
		math.Float64bits(1e300),     // huge decimal
		math.Float64bits(-2.5e-300), // tiny decimal
		math.Float64bits(0.1 + 0.2), // not a short decimal
		math.Float64bits(1 << 60),   // integer beyond the decimal range
	}
	v := make([]float64, len(b))
	for i, x := range b {
		v[i] = math.Float64frombits(x)
	}
	return v
}

func genFloats(name string, seed uint64, n int) []float64 {
	for _, d := range floatDatasets {
		if d.name == name {
			return d.gen(rand.New(rand.NewPCG(seed, 7)), n)
		}
	}
	panic("no float dataset " + name)
}

func TestFloatRoundTripALP(t *testing.T) {
	for _, f := range loadALP(t) {
		for _, tg := range targets {
			t.Run(fmt.Sprintf("file=%s/target=%v", f.name, tg), func(t *testing.T) {
				checkFloats(t, EncodeFloat64(nil, f.values, Options{Target: tg}), f.values)
				v32 := make([]float32, len(f.values))
				for i, v := range f.values {
					v32[i] = float32(v)
				}
				checkFloats32(t, EncodeFloat32(nil, v32, Options{Target: tg}), v32)
			})
		}
	}
}

func TestFloatRoundTripDatasets(t *testing.T) {
	for _, d := range floatDatasets {
		for _, lg := range []int{8, 10, 16} {
			for _, n := range []int{0, 1, 2, 255, 256, 257, 3000} {
				t.Run(fmt.Sprintf("data=%s/log=%d/n=%d", d.name, lg, n), func(t *testing.T) {
					v := genFloats(d.name, uint64(n), n)
					checkFloats(t, EncodeFloat64(nil, v, Options{LogChunkSize: lg}), v)
					v32 := make([]float32, n)
					for i, x := range v {
						v32[i] = float32(x)
					}
					checkFloats32(t, EncodeFloat32(nil, v32, Options{LogChunkSize: lg}), v32)
				})
			}
		}
	}
}

// TestFloatSpecialValues round trips every special bit pattern alone, in
// a column of its own kind, and among decimals, in both widths.
func TestFloatSpecialValues(t *testing.T) {
	sp := specialFloats()
	for _, x := range sp {
		checkFloats(t, EncodeFloat64(nil, []float64{x}, Options{}), []float64{x})
		run := slices.Repeat([]float64{x}, 300)
		checkFloats(t, EncodeFloat64(nil, run, Options{}), run)
		mixed := []float64{1.5, x, 2.25, 3.125, x, 4}
		checkFloats(t, EncodeFloat64(nil, mixed, Options{}), mixed)
	}
	checkFloats(t, EncodeFloat64(nil, sp, Options{}), sp)
	// float32: the same kinds, and NaN payloads a widening would quiet.
	b32 := []uint32{0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001, 0x7f800001, 0x7fa00000, 1, 0x807fffff, 0x00800000, 0x7f7fffff}
	v32 := make([]float32, 0, 2*len(b32))
	for _, b := range b32 {
		v32 = append(v32, math.Float32frombits(b), 0.25)
	}
	checkFloats32(t, EncodeFloat32(nil, v32, Options{}), v32)
	for _, b := range b32 {
		one := []float32{math.Float32frombits(b)}
		checkFloats32(t, EncodeFloat32(nil, one, Options{}), one)
	}
}

// TestFloatEveryForm checks that each float form is chosen by some input.
func TestFloatEveryForm(t *testing.T) {
	cases := map[Form][]float64{
		Decimal:   genFloats("gauge", 1, 1024),
		FrontBits: genFloats("coordinates", 1, 1024),
		Raw:       genFloats("randombits", 1, 1024),
	}
	for f, v := range cases {
		enc := EncodeFloat64(nil, v, Options{})
		col, err := OpenFloat64(enc)
		require.NoError(t, err)
		assert.Equal(t, map[Form]int{f: 1}, col.Composition(), "%v data", f)
	}
}

func TestFloatDecodeReusesCapacity(t *testing.T) {
	v := genFloats("gauge", 3, 2000)
	enc := EncodeFloat64(nil, v, Options{})
	dst := make([]float64, 0, 2000)
	got, err := DecodeFloat64(dst, enc)
	require.NoError(t, err)
	require.Equal(t, &dst[:1][0], &got[0], "DecodeFloat64 did not reuse dst")
	allocs := testing.AllocsPerRun(20, func() { got, _ = DecodeFloat64(got[:0], enc) })
	if raceBuild {
		// The pooled decoder is dropped at random: at most a new one and
		// its buffer per call.
		assert.LessOrEqual(t, allocs, 2.0, "DecodeFloat64 into a large enough dst")
	} else {
		assert.Zero(t, allocs, "DecodeFloat64 into a large enough dst")
	}
	// A FloatDecoder keeps its buffers: no allocation, race detector or not.
	var d FloatDecoder
	got, err = d.DecodeFloat64(got[:0], enc)
	require.NoError(t, err)
	allocs = testing.AllocsPerRun(20, func() { got, _ = d.DecodeFloat64(got[:0], enc) })
	assert.Zero(t, allocs, "FloatDecoder.DecodeFloat64 into a large enough dst")
	v32 := []float32{1.5, 2.5, 3.25}
	enc32 := EncodeFloat32(nil, v32, Options{})
	got32, err := d.DecodeFloat32(nil, enc32)
	require.NoError(t, err)
	require.Equal(t, v32, got32)
	allocs = testing.AllocsPerRun(20, func() { got32, _ = d.DecodeFloat32(got32[:0], enc32) })
	assert.Zero(t, allocs, "FloatDecoder.DecodeFloat32 into a large enough dst")
}

func TestFloatGetZeroAllocs(t *testing.T) {
	v := genFloats("special", 3, 5000)
	col, err := OpenFloat64(EncodeFloat64(nil, v, Options{}))
	require.NoError(t, err)
	var sink float64
	allocs := testing.AllocsPerRun(10, func() {
		for i := range v {
			sink += col.Get(i)
		}
	})
	assert.Zero(t, allocs)
	_ = sink
}

func TestFloatEncodeAppendsAndIsDeterministic(t *testing.T) {
	v := genFloats("special", 4, 3000)
	a := EncodeFloat64(nil, v, Options{})
	b := EncodeFloat64([]byte("prefix"), v, Options{})
	require.Equal(t, "prefix", string(b[:6]))
	require.Equal(t, a, b[6:])
}

// TestFloatKindMismatch: each decoder refuses the other kinds of column.
func TestFloatKindMismatch(t *testing.T) {
	ints := Encode(nil, []int64{1, 2, 3}, Options{})
	f64 := EncodeFloat64(nil, []float64{1, 2, 3}, Options{})
	f32 := EncodeFloat32(nil, []float32{1, 2, 3}, Options{})
	_, err := DecodeFloat64(nil, ints)
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = DecodeFloat64(nil, f32)
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = OpenFloat64(f32)
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = DecodeFloat32(nil, f64)
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = OpenFloat32(ints)
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = Decode(nil, f64)
	assert.ErrorIs(t, err, ErrCorrupt)
	_, err = Open(f32)
	assert.ErrorIs(t, err, ErrCorrupt)
}

// mixedFloatColumn is a small column with every float form and both kinds
// of exceptions.
func mixedFloatColumn() ([]float64, []byte) {
	var v []float64
	for _, name := range []string{"special", "coordinates", "randombits", "gauge", "constant"} {
		v = append(v, genFloats(name, 5, 256)...)
	}
	v = append(v, genFloats("coordinates", 6, 250)...)
	v[len(v)-3] = -5e-300   // a FrontBits exception
	v = append(v, 1.5, 2.5) // a short last chunk
	return v, EncodeFloat64(nil, v, Options{LogChunkSize: 8})
}

// checkFloatConsistent asserts what must hold for any bytes with a valid
// checksum: no panic, OpenFloat64 and DecodeFloat64 agree on acceptance,
// and Get returns what DecodeFloat64 returned.
func checkFloatConsistent(t testing.TB, b []byte) {
	vals, derr := DecodeFloat64(nil, b)
	col, oerr := OpenFloat64(b)
	require.Equal(t, derr == nil, oerr == nil, "Decode err %v but Open err %v", derr, oerr)
	if derr != nil {
		require.ErrorIs(t, derr, ErrCorrupt, "DecodeFloat64")
		require.ErrorIs(t, oerr, ErrCorrupt, "OpenFloat64")
		return
	}
	require.Equal(t, len(vals), col.Len(), "Len vs Decode")
	for i, v := range vals {
		if g := col.Get(i); math.Float64bits(g) != math.Float64bits(v) {
			require.Equal(t, math.Float64bits(v), math.Float64bits(g), "Get(%d) vs Decode", i)
		}
	}
}

func TestFloatCorrupt(t *testing.T) {
	v, enc := mixedFloatColumn()
	checkFloats(t, enc, v)
	col, err := OpenFloat64(enc)
	require.NoError(t, err)
	require.Len(t, col.Composition(), 3, "mixed column uses only %v", col.Composition())
	buf := make([]byte, len(enc))
	rejected := 0
	for i := range enc {
		copy(buf, enc)
		buf[i] ^= 0x41
		_, err := DecodeFloat64(nil, buf)
		require.ErrorIs(t, err, ErrCorrupt, "flip at %d: Decode", i)
		_, err = OpenFloat64(buf)
		require.ErrorIs(t, err, ErrCorrupt, "flip at %d: Open", i)
		if i < len(enc)-4 {
			for _, x := range []byte{0x01, 0xfe} {
				copy(buf, enc)
				buf[i] ^= x
				reseal(buf)
				checkFloatConsistent(t, buf)
				if _, err := DecodeFloat64(nil, buf); err != nil {
					rejected++
				}
			}
		}
	}
	require.NotZero(t, rejected, "no resealed mutation was rejected")
	for n := 0; n < len(enc); n++ {
		_, err := DecodeFloat64(nil, enc[:n])
		require.ErrorIs(t, err, ErrCorrupt, "truncated to %d", n)
		b := slices.Clone(enc[:n])
		reseal(b)
		checkFloatConsistent(t, b)
	}
}

func TestFloatStructuralErrors(t *testing.T) {
	v := make([]float64, 40)
	for i := range v {
		v[i] = float64(i) / 4
	}
	v[3] = math.NaN()
	gauge := EncodeFloat64(nil, v, Options{LogChunkSize: 8})
	// Offsets: version, width, count, k, 3 composition bytes, 4 end bytes,
	// then the Decimal chunk: form, e, f, exceptions u16, position u16.
	const chunk = 1 + 1 + 1 + 1 + 3 + 4
	cases := []struct {
		name string
		edit func([]byte) []byte
	}{
		{"width", func(b []byte) []byte { b[1] = 2; return b }},
		{"exponent", func(b []byte) []byte { b[chunk+1] = maxExp + 1; return b }},
		{"factor", func(b []byte) []byte { b[chunk+2] = maxExp + 1; return b }},
		{"exceptions", func(b []byte) []byte { b[chunk+3] = 4; return b }},
		{"position", func(b []byte) []byte { b[chunk+5] = 40; return b }},
		{"form", func(b []byte) []byte { b[chunk] = byte(Delta); return b }},
	}
	col, err := OpenFloat64(gauge)
	require.NoError(t, err)
	require.Equal(t, map[Form]int{Decimal: 1}, col.Composition())
	require.Equal(t, uint16(1), binary.LittleEndian.Uint16(gauge[chunk+3:]), "one exception")
	for _, c := range cases {
		b := c.edit(slices.Clone(gauge))
		reseal(b)
		_, err := DecodeFloat64(nil, b)
		assert.ErrorIs(t, err, ErrCorrupt, "%s: Decode", c.name)
		_, err = OpenFloat64(b)
		assert.ErrorIs(t, err, ErrCorrupt, "%s: Open", c.name)
	}
}
