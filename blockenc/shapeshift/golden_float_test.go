package shapeshift

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// floatGoldens are pinned float columns; together they hold every float
// form, both kinds of exceptions and both widths.
var floatGoldens = []struct {
	file   string
	width  int
	values func() []float64
	log    int
}{
	{"float64_mixed_k8.col", 8, func() []float64 { v, _ := mixedFloatColumn(); return v }, 8},
	{"float64_alp_k10.col", 8, func() []float64 {
		return slices.Concat(alpValues("city_temperature_f"), alpValues("neon_bio_temp_c"))
	}, 10},
	{"float32_mixed_k8.col", 4, func() []float64 { v, _ := mixedFloatColumn(); return v }, 8},
}

// alpValues returns the values of one of ALP's files.
func alpValues(name string) []float64 {
	for _, f := range loadALP(nil) {
		if f.name == name {
			return f.values
		}
	}
	panic("no ALP file " + name)
}

func TestGoldenFloat(t *testing.T) {
	seen := map[Form]bool{}
	for _, g := range floatGoldens {
		t.Run(g.file, func(t *testing.T) {
			v := g.values()
			var got []byte
			want64 := make([]uint64, len(v)) // bit patterns
			if g.width == 8 {
				got = EncodeFloat64(nil, v, Options{LogChunkSize: g.log})
				for i, x := range v {
					want64[i] = math.Float64bits(x)
				}
			} else {
				v32 := make([]float32, len(v))
				for i, x := range v {
					v32[i] = float32(x)
					want64[i] = uint64(math.Float32bits(v32[i]))
				}
				got = EncodeFloat32(nil, v32, Options{LogChunkSize: g.log})
				checkFloats32(t, got, v32)
			}
			path := filepath.Join("testdata", g.file)
			if *rewrite {
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run with -rewrite to create")
			i := 0
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			require.Equal(t, want, got, "encoding differs from %s at offset %d (got %d bytes, want %d); a format change needs -rewrite and a version review", path, i, len(got), len(want))
			ref, forms, err := refDecodeFloat(want)
			require.NoError(t, err, "reference decoder")
			require.Equal(t, want64, ref, "reference decode")
			for _, f := range forms {
				seen[f] = true
			}
			if g.width == 8 {
				checkFloats(t, want, v)
			}
		})
	}
	// Version 3, frozen: what this version wrote for the ALP golden's
	// values before the Huffman form; it must still decode.
	t.Run(v3FloatGolden, func(t *testing.T) {
		want, err := os.ReadFile(filepath.Join("testdata", v3FloatGolden))
		require.NoError(t, err)
		require.Equal(t, byte(3), want[0])
		v := slices.Concat(alpValues("city_temperature_f"), alpValues("neon_bio_temp_c"))
		checkFloats(t, want, v)
		ref, forms, err := refDecodeFloat(want)
		require.NoError(t, err, "reference decoder")
		for i, x := range v {
			require.Equal(t, math.Float64bits(x), ref[i], "reference decode of value %d", i)
		}
		for _, f := range forms {
			seen[f] = true
		}
	})
	for _, f := range []Form{Decimal, FrontBits, Raw, Zero, Constant, BitPack, Delta, PatchedDelta, Huffman} {
		assert.True(t, seen[f], "no golden float column holds a %v chunk", f)
	}
}

// v3FloatGolden is a version 3 float column, never rewritten.
const v3FloatGolden = "v3_float64_alp_k10.col"

// TestReferenceDecoderFloat cross-checks the reference float decoder on
// ALP's files and the synthetic float data.
func TestReferenceDecoderFloat(t *testing.T) {
	var cols [][]float64
	for _, f := range loadALP(t) {
		cols = append(cols, f.values)
	}
	for _, d := range floatDatasets {
		cols = append(cols, genFloats(d.name, 9, 3000))
	}
	for i, v := range cols {
		ref, _, err := refDecodeFloat(EncodeFloat64(nil, v, Options{LogChunkSize: 9}))
		require.NoError(t, err, "column %d", i)
		for j, x := range v {
			if ref[j] != math.Float64bits(x) {
				require.Equal(t, math.Float64bits(x), ref[j], "column %d value %d", i, j)
			}
		}
	}
}

// refDecodeFloat is a slow decoder of well-formed float columns written
// from the doc.go spec: it returns the values' bit patterns (a float32's
// in the low 32 bits) and the float forms of the chunks, and every form of
// the integer chunks inside them. Decimal values are computed with
// strconv-parsed powers of ten, not the package's tables.
func refDecodeFloat(b []byte) ([]uint64, []Form, error) {
	if crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, nil, errors.New("crc")
	}
	if b[0] != 3 && b[0] != 4 {
		return nil, nil, errors.New("version")
	}
	w := int(b[1])
	pow := func(e int) float64 {
		x, err := strconv.ParseFloat("1e"+strconv.Itoa(e), 64)
		if err != nil {
			panic(err)
		}
		return x
	}
	val := func(src []byte, j int) uint64 { return refBytes(src, j, w) }
	var out []uint64
	var seen []Form
	chunks, ns := refChunks(b, 2, 3) // composition: Raw, Decimal, FrontBits
	for c, ch := range chunks {
		n := ns[c]
		f := Form(ch[0])
		seen = append(seen, f)
		vals := make([]uint64, n)
		switch f {
		case Raw:
			for j := range vals {
				vals[j] = val(ch[1:], j)
			}
		case Decimal:
			e, fx := int(ch[1]), int(ch[2])
			x := int(binary.LittleEndian.Uint16(ch[3:]))
			pos, ev := ch[5:5+2*x], ch[5+2*x:5+2*x+w*x]
			ints, err := refChunk(ch[5+2*x+w*x:], n)
			if err != nil {
				return nil, nil, err
			}
			seen = append(seen, Form(ch[5+2*x+w*x]))
			for j, i := range ints {
				d := float64(i) * pow(fx) * pow(-e)
				if w == 8 {
					vals[j] = math.Float64bits(d)
				} else {
					vals[j] = uint64(math.Float32bits(float32(d)))
				}
			}
			for k := range x {
				vals[binary.LittleEndian.Uint16(pos[2*k:])] = val(ev, k)
			}
		case FrontBits:
			l, nd := int(ch[1]), int(ch[2])
			rb := 8*w - l
			dict := ch[3 : 3+2*nd]
			q := 3 + 2*nd
			x := int(binary.LittleEndian.Uint16(ch[q:]))
			pos, lefts := ch[q+2:q+2+2*x], ch[q+2+2*x:q+2+4*x]
			q += 2 + 4*x
			il := int(binary.LittleEndian.Uint32(ch[q:]))
			idx, err := refChunk(ch[q+4:q+4+il], n)
			if err != nil {
				return nil, nil, err
			}
			right, err := refChunk(ch[q+4+il:], n)
			if err != nil {
				return nil, nil, err
			}
			seen = append(seen, Form(ch[q+4]), Form(ch[q+4+il]))
			for j := range vals {
				vals[j] = refBytes(dict, int(idx[j]), 2)<<rb | uint64(right[j])
			}
			for k := range x {
				i := binary.LittleEndian.Uint16(pos[2*k:])
				vals[i] = refBytes(lefts, k, 2)<<rb | uint64(right[i])
			}
		default:
			return nil, nil, fmt.Errorf("float form %d", f)
		}
		out = append(out, vals...)
	}
	return out, slices.Compact(seen), nil
}
