package fuzz

import (
	"encoding/binary"
	"hash/crc32"
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

// shapeshiftValues turns fuzz bytes into a column. mode picks a shape so
// that short inputs still reach every form: runs, sorted, sparse, raw.
func shapeshiftValues(mode byte, data []byte) []int64 {
	var v []int64
	switch mode % 5 {
	case 0: // raw little-endian int64s
		for len(data) >= 8 {
			v = append(v, int64(binary.LittleEndian.Uint64(data)))
			data = data[8:]
		}
	case 1: // (count, value) runs
		for len(data) >= 2 {
			for range int(data[0]) + 1 {
				v = append(v, int64(int8(data[1]))*1_000_003)
			}
			data = data[2:]
		}
	case 2: // sorted: accumulated small deltas, each repeated 8 times
		x := int64(1_700_000_000_000)
		for _, b := range data {
			for range 8 {
				x += int64(b)
				v = append(v, x)
			}
		}
	case 3: // sparse: a byte is a gap of zeros then a spike
		for _, b := range data {
			v = append(v, make([]int64, int(b)*4)...)
			v = append(v, int64(b)<<uint(b%63))
		}
	case 4: // bytes as signed values, the sequence repeated to span chunks
		for range 4 {
			for _, b := range data {
				v = append(v, int64(int8(b)))
			}
		}
	}
	return v
}

func FuzzShapeshiftRoundTrip(f *testing.F) {
	f.Add(byte(0), byte(0), byte(0), []byte{1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Add(byte(1), byte(0), byte(1), []byte{200, 5, 10, 7, 255, 5, 3, 1})
	f.Add(byte(2), byte(1), byte(0), []byte("timestamps go up and up and up and up"))
	f.Add(byte(3), byte(2), byte(3), []byte{60, 0, 61, 62, 1, 200, 3})
	f.Add(byte(4), byte(0), byte(8), []byte("abcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabcabc"))
	// Sorted with rare wide jumps: PatchedDelta (format version 2).
	f.Add(byte(2), byte(0), byte(0), pdeltaSeed())
	f.Fuzz(func(t *testing.T, mode, target, logc byte, data []byte) {
		v := shapeshiftValues(mode, data)
		opts := shapeshift.Options{Target: shapeshift.Target(target % 3), LogChunkSize: 8 + int(logc%9)}
		enc := shapeshift.Encode(nil, v, opts)
		again := shapeshift.Encode([]byte{9, 9}, v, opts)
		require.Equal(t, []byte{9, 9}, again[:2], "Encode overwrote its dst prefix")
		require.Equal(t, enc, again[2:], "Encode is not deterministic or ignores its dst prefix")
		// Decode into a dst with a prefix and canaries in its spare capacity.
		dst := make([]int64, 3, 3+len(v)+4)
		dst[0], dst[1], dst[2] = -1, -2, -3
		canary := dst[:cap(dst)]
		for i := 3 + len(v); i < len(canary); i++ {
			canary[i] = 0x5a5a
		}
		got, err := shapeshift.Decode(dst, enc)
		require.NoError(t, err, "Decode")
		require.Equal(t, slices.Concat([]int64{-1, -2, -3}, v), got, "Decode does not round trip")
		for i := 3 + len(v); i < len(canary); i++ {
			require.Equal(t, int64(0x5a5a), canary[i], "Decode wrote past the values at %d", i)
		}
		col, err := shapeshift.Open(enc)
		require.NoError(t, err, "Open")
		require.Equal(t, len(v), col.Len(), "Len")
		for i := len(v) - 1; i >= 0; i-- {
			if g := col.Get(i); g != v[i] { // cheap check per value; require only on failure
				require.Equal(t, v[i], g, "Get(%d)", i)
			}
		}
		// Any byte flip is caught.
		if len(enc) > 0 {
			i := int(logc) * 7919 % len(enc)
			enc[i] ^= 1 << (mode % 8)
			_, err := shapeshift.Decode(nil, enc)
			require.ErrorIs(t, err, shapeshift.ErrCorrupt, "flip at %d", i)
		}
	})
}

// pdeltaSeed is mode-2 data (deltas, each repeated 8 times) of ones with a
// wide jump every 16 deltas, which encodes as PatchedDelta chunks.
func pdeltaSeed() []byte {
	b := make([]byte, 96)
	for i := range b {
		b[i] = 1
		if i%16 == 15 {
			b[i] = 250
		}
	}
	return b
}

func FuzzShapeshiftDecode(f *testing.F) {
	for _, v := range [][]int64{nil, {0, 0, 0}, {5, 6, 7, 1000}, shapeshiftValues(1, []byte{255, 3, 255, 4, 9, 9}), shapeshiftValues(3, []byte{40, 50, 60, 70}), shapeshiftValues(2, pdeltaSeed())} {
		f.Add(shapeshift.Encode(nil, v, shapeshift.Options{LogChunkSize: 8}), true)
	}
	f.Add([]byte{1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0}, true)
	f.Fuzz(func(t *testing.T, src []byte, fixCRC bool) {
		// A valid checksum is out of the fuzzer's reach; optionally fix it
		// so the structural checks get exercised.
		if fixCRC && len(src) >= 4 {
			binary.LittleEndian.PutUint32(src[len(src)-4:], crc32.Checksum(src[:len(src)-4], crc32.MakeTable(crc32.Castagnoli)))
		}
		// Zero chunks make 2^28 values fit in 20 KB; keep memory sane.
		if len(src) > 1 {
			if n, k := binary.Uvarint(src[1:]); k > 0 && n > 1<<20 {
				return
			}
		}
		vals, derr := shapeshift.Decode(nil, src)
		col, oerr := shapeshift.Open(src)
		require.Equal(t, derr == nil, oerr == nil, "Decode err %v, Open err %v", derr, oerr)
		if derr != nil {
			require.ErrorIs(t, derr, shapeshift.ErrCorrupt, "Decode")
			require.ErrorIs(t, oerr, shapeshift.ErrCorrupt, "Open")
			return
		}
		require.Equal(t, len(vals), col.Len(), "Len vs Decode")
		for i, v := range vals {
			if g := col.Get(i); g != v { // cheap check per value (up to 1<<20); require only on failure
				require.Equal(t, v, g, "Get(%d) vs Decode", i)
			}
		}
		// A valid column re-encodes to one that decodes the same.
		again, err := shapeshift.Decode(nil, shapeshift.Encode(nil, vals, shapeshift.Options{}))
		require.NoError(t, err, "re-encode")
		require.Equal(t, len(vals), len(again), "re-encode")
		if len(vals) > 0 { // Decode may give nil or empty for no values
			require.Equal(t, vals, again, "re-encode")
		}

	})
}

// FuzzShapeshiftFloatRoundTrip: arbitrary bit patterns, as float64 and as
// float32, come back bit for bit through Decode and Get. mode mixes them
// with decimals so that every float form is reached.
func FuzzShapeshiftFloatRoundTrip(f *testing.F) {
	f.Add(byte(0), byte(0), []byte{0, 0, 0, 0, 0, 0, 0, 0x80, 1, 0, 0, 0, 0, 0, 0xf8, 0x7f, 0, 0, 0, 0, 0, 0, 0xf0, 0xff})
	f.Add(byte(1), byte(2), []byte("decimals with exceptions: 0123456789abcdef"))
	f.Add(byte(2), byte(1), []byte{0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0xd5, 0x3f, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0xe5, 0x3f})
	f.Fuzz(func(t *testing.T, mode, logc byte, data []byte) {
		var v []float64
		for len(data) >= 8 {
			b := binary.LittleEndian.Uint64(data)
			data = data[8:]
			switch mode % 3 {
			case 0: // the bit pattern itself
				v = append(v, math.Float64frombits(b))
			case 1: // mostly decimals, a bit pattern every 16
				v = append(v, float64(int64(b)%1_000_000)/100)
				if b%16 == 0 {
					v = append(v, math.Float64frombits(b))
				}
			case 2: // the pattern repeated with varied low bits: FrontBits
				for k := range 8 {
					v = append(v, math.Float64frombits(b^uint64(k)*0x9e3779b9))
				}
			}
		}
		opts := shapeshift.Options{LogChunkSize: 8 + int(logc%9)}
		enc := shapeshift.EncodeFloat64(nil, v, opts)
		require.Equal(t, enc, shapeshift.EncodeFloat64(nil, v, opts), "EncodeFloat64 is not deterministic")
		got, err := shapeshift.DecodeFloat64([]float64{1}, enc)
		require.NoError(t, err, "DecodeFloat64")
		require.Len(t, got, len(v)+1)
		col, err := shapeshift.OpenFloat64(enc)
		require.NoError(t, err, "OpenFloat64")
		require.Equal(t, len(v), col.Len())
		for i, x := range v {
			if math.Float64bits(got[i+1]) != math.Float64bits(x) || math.Float64bits(col.Get(i)) != math.Float64bits(x) {
				require.Equal(t, math.Float64bits(x), math.Float64bits(got[i+1]), "DecodeFloat64 value %d", i)
				require.Equal(t, math.Float64bits(x), math.Float64bits(col.Get(i)), "Get(%d)", i)
			}
		}
		// The same patterns' low halves as float32.
		v32 := make([]float32, len(v))
		for i, x := range v {
			v32[i] = math.Float32frombits(uint32(math.Float64bits(x)))
		}
		enc32 := shapeshift.EncodeFloat32(nil, v32, opts)
		got32, err := shapeshift.DecodeFloat32(nil, enc32)
		require.NoError(t, err, "DecodeFloat32")
		require.Len(t, got32, len(v32))
		col32, err := shapeshift.OpenFloat32(enc32)
		require.NoError(t, err, "OpenFloat32")
		for i, x := range v32 {
			if math.Float32bits(got32[i]) != math.Float32bits(x) || math.Float32bits(col32.Get(i)) != math.Float32bits(x) {
				require.Equal(t, math.Float32bits(x), math.Float32bits(got32[i]), "DecodeFloat32 value %d", i)
				require.Equal(t, math.Float32bits(x), math.Float32bits(col32.Get(i)), "Float32Column.Get(%d)", i)
			}
		}
	})
}

// FuzzShapeshiftFloatDecode: the float decoders on arbitrary bytes return
// an error wrapping ErrCorrupt or values that Get agrees with, never panic.
func FuzzShapeshiftFloatDecode(f *testing.F) {
	dec := []float64{1.5, 2.25, math.NaN(), 3, math.Copysign(0, -1), 4.75, 5, 6.125}
	for range 5 {
		dec = append(dec, dec...)
	}
	fb := []float64{1.0 / 3, 2.0 / 3, -1.0 / 3, math.Pi, math.E, 1.0 / 7, 1e-300, math.Inf(1)}
	for range 5 {
		fb = append(fb, fb...)
	}
	// A price walk in cents: half the steps 0, most others 1 or 2 cents,
	// a few up to 40. Delta needs 7 bits a step, an entropy code about 2:
	// its integers take a Huffman chunk (a version 4 column).
	walk := make([]float64, 512)
	x, r := int64(10000), uint32(1)
	for i := range walk {
		r = r*1664525 + 1013904223
		switch u := int64(r >> 24); {
		case u < 128:
		case u < 192:
			x += u%2*2 - 1
		case u < 224:
			x += u%2*4 - 2
		case u < 254:
			x += (u%2*2 - 1) * (3 + u%5)
		default:
			x += (u%2*2 - 1) * 40
		}
		walk[i] = float64(x) / 100
	}
	for _, v := range [][]float64{nil, {0}, dec, fb, walk} {
		f.Add(shapeshift.EncodeFloat64(nil, v, shapeshift.Options{LogChunkSize: 8}), true)
		v32 := make([]float32, len(v))
		for i, x := range v {
			v32[i] = float32(x)
		}
		f.Add(shapeshift.EncodeFloat32(nil, v32, shapeshift.Options{LogChunkSize: 8}), true)
	}
	f.Fuzz(func(t *testing.T, src []byte, fixCRC bool) {
		if fixCRC && len(src) >= 4 {
			binary.LittleEndian.PutUint32(src[len(src)-4:], crc32.Checksum(src[:len(src)-4], crc32.MakeTable(crc32.Castagnoli)))
		}
		if len(src) > 2 {
			if n, k := binary.Uvarint(src[2:]); k > 0 && n > 1<<20 {
				return
			}
		}
		vals, derr := shapeshift.DecodeFloat64(nil, src)
		col, oerr := shapeshift.OpenFloat64(src)
		require.Equal(t, derr == nil, oerr == nil, "DecodeFloat64 err %v, OpenFloat64 err %v", derr, oerr)
		if derr != nil {
			require.ErrorIs(t, derr, shapeshift.ErrCorrupt, "DecodeFloat64")
			require.ErrorIs(t, oerr, shapeshift.ErrCorrupt, "OpenFloat64")
		} else {
			require.Equal(t, len(vals), col.Len())
			for i, v := range vals {
				if g := col.Get(i); math.Float64bits(g) != math.Float64bits(v) {
					require.Equal(t, math.Float64bits(v), math.Float64bits(g), "Get(%d) vs DecodeFloat64", i)
				}
			}
		}
		vals32, derr := shapeshift.DecodeFloat32(nil, src)
		col32, oerr := shapeshift.OpenFloat32(src)
		require.Equal(t, derr == nil, oerr == nil, "DecodeFloat32 err %v, OpenFloat32 err %v", derr, oerr)
		if derr != nil {
			require.ErrorIs(t, derr, shapeshift.ErrCorrupt, "DecodeFloat32")
			require.ErrorIs(t, oerr, shapeshift.ErrCorrupt, "OpenFloat32")
			return
		}
		require.Equal(t, len(vals32), col32.Len())
		for i, v := range vals32 {
			if g := col32.Get(i); math.Float32bits(g) != math.Float32bits(v) {
				require.Equal(t, math.Float32bits(v), math.Float32bits(g), "Float32Column.Get(%d) vs DecodeFloat32", i)
			}
		}
	})
}
