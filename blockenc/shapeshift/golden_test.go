package shapeshift

import (
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden columns in testdata/")

// goldens are pinned columns; together they hold every form.
var goldens = []struct {
	file   string
	data   []string
	n      int
	target Target
	log    int
}{
	{"mixed_smaller_k8.col", []string{"zero", "constant", "random8", "timestamps", "runs", "outliers", "lowcard", "random64", "sparse", "gauge"}, 256, Smaller, 8},
	{"timestamps_balanced_k10.col", []string{"timestamps"}, 3000, Balanced, 10},
	{"sparse_faster_k9.col", []string{"sparse", "counter", "random8"}, 700, Faster, 9},
	{"extremes_balanced_k8.col", []string{"extremes", "negative"}, 300, Balanced, 8},
	// Version 2: holds a PatchedDelta chunk.
	{"v2_orderkeys_balanced_k9.col", []string{"orderkeys", "timestamps"}, 1000, Balanced, 9},
}

func goldenValues(names []string, n int) []int64 {
	var v []int64
	for _, name := range names {
		for _, d := range datasets {
			if d.name == name {
				v = append(v, genData(d, 11, n)...)
			}
		}
	}
	return v
}

func TestGolden(t *testing.T) {
	seen := map[Form]bool{}
	for _, g := range goldens {
		t.Run(g.file, func(t *testing.T) {
			v := goldenValues(g.data, g.n)
			got := Encode(nil, v, Options{Target: g.target, LogChunkSize: g.log})
			path := filepath.Join("testdata", g.file)
			if *rewrite {
				require.NoError(t, os.WriteFile(path, got, 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "run with -rewrite to create")
			i := 0 // first differing offset, for the message
			for i < min(len(got), len(want)) && got[i] == want[i] {
				i++
			}
			require.Equal(t, want, got, "encoding differs from %s at offset %d (got %d bytes, want %d); a format change needs -rewrite and a version review", path, i, len(got), len(want))
			// The golden bytes decode to the values, by this package and by
			// the independent reference decoder below.
			ref, forms, err := refDecode(want)
			require.NoError(t, err, "reference decoder")
			require.Equal(t, v, ref, "reference decode differs at %d", firstDiff(ref, v))
			for _, f := range forms {
				seen[f] = true
			}
			checkColumn(t, want, v)
		})
	}
	for f := Form(0); f < numIntForms; f++ {
		if f != Raw {
			assert.True(t, seen[f], "no golden column holds a %v chunk", f)
		}
	}
}

// TestReferenceDecoder cross-checks the reference decoder on forced forms,
// Raw included.
func TestReferenceDecoder(t *testing.T) {
	for _, d := range datasets {
		v := genData(d, 13, 1000)
		for f := Form(0); f < numIntForms; f++ {
			enc := encodeForced(v, f, 8)
			ref, _, err := refDecode(enc)
			require.NoError(t, err, "data=%s form=%v: reference decode", d.name, f)
			require.Equal(t, v, ref, "data=%s form=%v: reference decode, first diff %d", d.name, f, firstDiff(ref, v))

		}
	}
}

// refDecode is a slow decoder written from the doc.go spec alone, reading
// bit-packed fields one bit at a time; it shares no decoding code with the
// package. It trusts lengths that the package validates (it is for
// well-formed columns only).
func refDecode(b []byte) ([]int64, []Form, error) {
	if crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)) != binary.LittleEndian.Uint32(b[len(b)-4:]) {
		return nil, nil, errors.New("crc")
	}
	forms := 9
	switch b[0] {
	case 1:
	case 2:
		forms = 10
	default:
		return nil, nil, errors.New("version")
	}
	var out []int64
	var seen []Form
	chunks, ns := refChunks(b, 1, forms)
	for c, ch := range chunks {
		seen = append(seen, Form(ch[0]))
		vals, err := refChunk(ch, ns[c])
		if err != nil {
			return nil, nil, fmt.Errorf("chunk %d: %w", c, err)
		}
		out = append(out, vals...)
	}
	return out, seen, nil
}

// refChunks returns the chunk bodies of column b and their value counts;
// the count is at offset p, the composition has forms entries.
func refChunks(b []byte, p, forms int) ([][]byte, []int) {
	count, k := binary.Uvarint(b[p:])
	p += k
	logc := int(b[p])
	p++
	for range forms {
		_, k := binary.Uvarint(b[p:])
		p += k
	}
	nChunks := (int(count) + 1<<logc - 1) >> logc
	ends := b[p : p+4*nChunks]
	data := b[p+4*nChunks : len(b)-4]
	var chunks [][]byte
	var ns []int
	start := 0
	for c := 0; c < nChunks; c++ {
		end := int(binary.LittleEndian.Uint32(ends[4*c:]))
		chunks = append(chunks, data[start:end])
		ns = append(ns, min(1<<logc, int(count)-c<<logc))
		start = end
	}
	return chunks, ns
}

func refLE64(p []byte) int64 { return int64(binary.LittleEndian.Uint64(p)) }

// refField returns field j of width bits of a stream, one bit at a time.
func refField(stream []byte, j, width int) uint64 {
	var x uint64
	for k := 0; k < width; k++ {
		i := j*width + k
		x |= uint64(stream[i/8]>>(i%8)) & 1 << k
	}
	return x
}

// refBytes returns the j-th w-byte little-endian field of src.
func refBytes(src []byte, j, w int) uint64 {
	var x uint64
	for k := 0; k < w; k++ {
		x |= uint64(src[j*w+k]) << (8 * k)
	}
	return x
}

func refWords(n, width int) int { return (n*width + 63) / 64 * 8 }

// refChunk decodes integer chunk ch (form byte first) of n values.
func refChunk(ch []byte, n int) ([]int64, error) {
	var out []int64
	f := Form(ch[0])
	pl := ch[1:]
	switch f {
	case Zero:
		out = append(out, make([]int64, n)...)
	case Constant:
		for range n {
			out = append(out, refLE64(pl))
		}
	case BytePack, LZ4:
		base, w := refLE64(pl), int(pl[8])
		src := pl[9:]
		if f == LZ4 {
			src = make([]byte, n*w)
			if k, err := lz4.UncompressBlock(pl[9:], src); err != nil || k != n*w {
				return nil, errors.New("lz4")
			}
		}
		for j := range n {
			out = append(out, base+int64(refBytes(src, j, w)))
		}
	case BitPack:
		base, w := refLE64(pl), int(pl[8])
		for j := range n {
			out = append(out, base+int64(refField(pl[9:], j, w)))
		}
	case Delta:
		x, dmin, w := refLE64(pl), refLE64(pl[8:]), int(pl[16])
		out = append(out, x)
		for j := 0; j < n-1; j++ {
			x += dmin + int64(refField(pl[17:], j, w))
			out = append(out, x)
		}
	case PatchedDelta:
		x, dmin, lo, hi := refLE64(pl), refLE64(pl[8:]), int(pl[16]), int(pl[17])
		e := int(binary.LittleEndian.Uint16(pl[18:]))
		low := pl[20:]
		pos := low[refWords(n-1, lo):]
		high := pos[2*e:]
		deltas := make([]int64, n-1)
		for j := range deltas {
			deltas[j] = dmin + int64(refField(low, j, lo))
		}
		for k := range e {
			deltas[binary.LittleEndian.Uint16(pos[2*k:])] += int64(refField(high, k, hi) << lo)
		}
		out = append(out, x)
		for _, d := range deltas {
			x += d
			out = append(out, x)
		}
	case RunLength:
		base := refLE64(pl)
		runs := int(binary.LittleEndian.Uint16(pl[8:])) + 1
		vw, lw := int(pl[10]), int(pl[11])
		lens := pl[12:]
		vals := pl[12+runs*lw:]
		for r := range runs {
			for range refBytes(lens, r, lw) + 1 {
				out = append(out, base+int64(refBytes(vals, r, vw)))
			}
		}
	case Patched:
		base, lo, hi := refLE64(pl), int(pl[8]), int(pl[9])
		e := int(binary.LittleEndian.Uint16(pl[10:]))
		low := pl[12:]
		pos := low[refWords(n, lo):]
		high := pos[2*e:]
		vals := make([]int64, n)
		for j := range n {
			vals[j] = base + int64(refField(low, j, lo))
		}
		for x := range e {
			i := binary.LittleEndian.Uint16(pos[2*x:])
			vals[i] += int64(refField(high, x, hi) << lo)
		}
		out = append(out, vals...)
	case Raw:
		for j := range n {
			out = append(out, refLE64(pl[8*j:]))
		}
	case Huffman:
		return refHuffman(pl, n)
	default:
		return nil, fmt.Errorf("form %d", f)
	}
	return out, nil
}
