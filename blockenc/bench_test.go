package blockenc_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// The benchmark data: ~32 KiB blocks (a RowIndex block of the default
// interval fills to 32 KiB; every encoding gets the same cells) of one of
// three key sets, 8-byte random values, seqs of 5-7 byte vlongs. The
// generators are self-contained so bench/ can copy them for its peers.

const benchBlockSize = 32 << 10

// userKeys: "user/%08d/metric/%04d", 1..40 metrics per user, user ids
// increasing with gaps.
func userKeys(rng *rand.Rand, n int) [][]byte {
	var keys [][]byte
	for u := rng.IntN(1000); len(keys) < n; u += 1 + rng.IntN(50) {
		for m := range 1 + rng.IntN(40) {
			keys = append(keys, fmt.Appendf(nil, "user/%08d/metric/%04d", u, m))
		}
	}
	return keys[:n]
}

// lineitemKeys: TPC-H lineitem primary keys, an 8-byte big-endian orderkey
// (increasing with gaps) and a 4-byte big-endian linenumber, 1..7 lines
// per order.
func lineitemKeys(rng *rand.Rand, n int) [][]byte {
	var keys [][]byte
	for ok := uint64(1 + rng.IntN(1e6)); len(keys) < n; ok += 1 + uint64(rng.IntN(8)) {
		for l := range 1 + rng.IntN(7) {
			k := binary.BigEndian.AppendUint64(nil, ok)
			keys = append(keys, binary.BigEndian.AppendUint32(k, uint32(l+1)))
		}
	}
	return keys[:n]
}

// randomKeys: uniformly random 16-byte keys, sorted, distinct.
func randomKeys(rng *rand.Rand, n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, rng.Uint64()), rng.Uint64())
	}
	slices.SortFunc(keys, bytes.Compare)
	return slices.CompactFunc(keys, bytes.Equal)
}

// benchCells gives each key one Put with an 8-byte random value and a seq
// whose vlong is 5, 6 or 7 bytes (payload of 4, 5 or 6 bytes).
func benchCells(rng *rand.Rand, keys [][]byte) []blockenc.Cell {
	cells := make([]blockenc.Cell, len(keys))
	for i, k := range keys {
		width := 4 + rng.IntN(3)
		seq := uint64(1)<<(8*width-1) | rng.Uint64()>>(64-8*width+1)
		cells[i] = blockenc.Cell{Key: k, Value: binary.BigEndian.AppendUint64(nil, rng.Uint64()), Seq: seq, Kind: blockenc.KindPut}
	}
	return cells
}

type benchSet struct {
	name  string
	cells []blockenc.Cell
}

// benchSets returns the three key sets, each cut to the cells that fill a
// default RowIndex block to 32 KiB.
func benchSets() []benchSet {
	gens := []struct {
		name string
		gen  func(*rand.Rand, int) [][]byte
	}{{"user", userKeys}, {"lineitem", lineitemKeys}, {"random", randomKeys}}
	var sets []benchSet
	for i, g := range gens {
		rng := rand.New(rand.NewPCG(uint64(i), 42))
		cells := benchCells(rng, g.gen(rng, 4096))
		e := blockenc.NewEncoder(blockenc.DefaultOptions())
		n := 0
		for ; n < len(cells) && e.Size() < benchBlockSize; n++ {
			if err := e.Add(cells[n]); err != nil {
				panic(err)
			}
		}
		sets = append(sets, benchSet{g.name, cells[:n]})
	}
	return sets
}

var sinkInt int

func BenchmarkBlock(b *testing.B) {
	for _, set := range benchSets() {
		for _, enc := range blockenc.Encodings() {
			prefix := "keys=" + set.name + "/encoding=" + enc.String()
			benchEncoding(b, prefix, set.cells, blockenc.Options{Encoding: enc})
		}
	}
}

func benchEncoding(b *testing.B, prefix string, cells []blockenc.Cell, opts blockenc.Options) {
	block := encode(b, opts, cells)
	bytesPerCell := float64(len(block)) / float64(len(cells))
	keys := make([][]byte, len(cells))
	for i, c := range cells {
		keys[i] = c.Key
	}
	random := slices.Clone(keys)
	rand.New(rand.NewPCG(7, 7)).Shuffle(len(random), func(i, j int) { random[i], random[j] = random[j], random[i] })
	s, err := blockenc.NewSeeker(block)
	require.NoError(b, err)

	seek := func(targets [][]byte) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if !s.SeekGE(targets[i]) {
					b.Fatal("not found")
				}
				sinkInt += len(s.Cell().Value)
				if i++; i == len(targets) {
					i = 0
				}
			}
			b.ReportMetric(bytesPerCell, "B/cell")
		}
	}
	b.Run(prefix+"/op=seekrandom", seek(random))
	b.Run(prefix+"/op=seekasc", seek(keys))
	// SeekLT of a random key lands on the cell before it (the first key
	// has none: it is not a target).
	b.Run(prefix+"/op=seekltrandom", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if !s.SeekLT(random[i]) && !bytes.Equal(random[i], keys[0]) {
				b.Fatal("not found")
			}
			sinkInt += len(s.Value())
			if i++; i == len(random) {
				i = 0
			}
		}
		b.ReportMetric(bytesPerCell, "B/cell")
	})
	scan := func(first, next func() bool) func(b *testing.B) {
		return func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(block))) // encoded block bytes read per full scan
			n := 0
			for b.Loop() {
				for ok := first(); ok; ok = next() {
					sinkInt += len(s.Cell().Value)
					n++
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/cell")
			b.ReportMetric(bytesPerCell, "B/cell")
		}
	}
	b.Run(prefix+"/op=scan", scan(s.First, s.Next))
	b.Run(prefix+"/op=reversescan", scan(s.Last, s.Prev)) // Last, then Prev to the first cell
	b.Run(prefix+"/op=encode", func(b *testing.B) {
		raw := 0
		for _, c := range cells {
			raw += len(c.Key) + len(c.Value) + 9
		}
		b.SetBytes(int64(raw)) // key + value bytes + 9 (seq, kind) per cell encoded
		benchEncode(b, opts, cells)
	})
}

// benchEncode encodes cells into one block with opts per iteration.
func benchEncode(b *testing.B, opts blockenc.Options, cells []blockenc.Cell) {
	b.ReportAllocs()
	e := blockenc.NewEncoder(opts)
	for b.Loop() {
		e.Reset()
		for _, c := range cells {
			if err := e.Add(c); err != nil {
				b.Fatal(err)
			}
		}
		blk, _ := e.Finish()
		sinkInt += len(blk)
	}
}

// TestBenchSizes pins the sizes of the benchmark data: FastDiff is the
// smallest row encoding on every key set, and the blocks are about 32 KiB.
func TestBenchSizes(t *testing.T) {
	for _, set := range benchSets() {
		sizes := map[blockenc.Encoding]int{}
		for _, e := range blockenc.Encodings() {
			sizes[e] = len(encode(t, blockenc.Options{Encoding: e}, set.cells))
		}
		assert.GreaterOrEqual(t, sizes[blockenc.RowIndex], benchBlockSize, "keys=%s: RowIndex block bytes", set.name)
		assert.LessOrEqual(t, sizes[blockenc.RowIndex], benchBlockSize+200, "keys=%s: RowIndex block bytes", set.name)
		for e, n := range sizes {
			if e != blockenc.Columnar { // of the row encodings
				assert.GreaterOrEqual(t, n, sizes[blockenc.FastDiff], "keys=%s: %v smaller than fastdiff", set.name, e)
			}
		}
		t.Logf("keys=%s: %d cells, bytes/cell %v", set.name, len(set.cells), sizes)
	}
}
