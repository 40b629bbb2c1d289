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

// featureOptions is every encoding (and RowIndex restart edge cases) x
// compression x dedupe x value column.
func optionCombos() []blockenc.Options {
	var opts []blockenc.Options
	for _, base := range allOptions() {
		if base.RestartInterval == 1000 {
			continue
		}
		for _, c := range blockenc.Compressions() {
			for _, dedupe := range []bool{false, true} {
				for _, ints := range []bool{false, true} {
					if base.Encoding == blockenc.Columnar && (dedupe || ints) {
						continue // ignored: Columnar picks its own value forms
					}
					o := base
					o.Compression, o.DedupeValues, o.IntValues = c, dedupe, ints
					opts = append(opts, o)
				}
			}
		}
	}
	return opts
}

func comboName(o blockenc.Options) string {
	return fmt.Sprintf("%s/compression=%v/dedupe=%v/ints=%v", optName(o), o.Compression, o.DedupeValues, o.IntValues)
}

func hasOptions(o blockenc.Options) bool {
	return o.Compression != blockenc.NoCompression || o.DedupeValues || o.IntValues
}

// poolCells returns n sorted cells whose values come from a pool of
// distinct values (lengths 0..40) far more often than not: what dedupe
// finds. Keys share long prefixes, so LZ4 has something to match.
func poolCells(rng *rand.Rand, n, distinct int) []blockenc.Cell {
	pool := make([][]byte, distinct)
	for i := range pool {
		pool[i] = randBytes(rng, rng.IntN(41))
	}
	var cells []blockenc.Cell
	for len(cells) < n {
		c := blockenc.Cell{
			Key:  fmt.Appendf(nil, "row/%06d/col/%d", rng.IntN(100000), rng.IntN(4)),
			Seq:  uint64(rng.IntN(1 << 30)),
			Kind: blockenc.KindPut,
		}
		switch r := rng.IntN(10); {
		case r == 0:
			c.Kind = blockenc.KindDelete
		case r == 1:
			c.Value = randBytes(rng, rng.IntN(30))
		default:
			c.Value = pool[rng.IntN(len(pool))]
		}
		cells = append(cells, c)
	}
	return sortCells(cells)
}

// intCells returns n sorted cells with w-byte values: time series of a few
// series, counters that grow by small steps, as big-endian integers.
func intCells(rng *rand.Rand, n, w int) []blockenc.Cell {
	var cells []blockenc.Cell
	series := 1 + n/200
	for s := range series {
		v := rng.Uint64() >> (64 - 8*w + 4)
		for t := range n / series {
			key := binary.BigEndian.AppendUint64(fmt.Appendf(nil, "s%03d/", s), uint64(1_700_000_000+10*t))
			v += uint64(rng.IntN(5))
			val := binary.BigEndian.AppendUint64(nil, v)[8-w:]
			kind := blockenc.KindPut
			if rng.IntN(100) == 0 {
				kind = blockenc.KindDelete // a delete with a w-byte value keeps the column
			}
			cells = append(cells, blockenc.Cell{Key: key, Value: val, Seq: uint64(1<<40 + s*n + t), Kind: kind})
		}
	}
	return sortCells(cells)
}

// conform checks a block of cells made with opts: round trip, Verify,
// every kind of seek, First after seeks.
func conform(t *testing.T, s *blockenc.Seeker, rng *rand.Rand, block []byte, cells []blockenc.Cell) {
	t.Helper()
	require.NoError(t, verify(block), "Verify")
	require.NoError(t, initSeeker(s, block))
	checkAll(t, s, cells)
	targets := seekTargets(cells)
	for _, tg := range targets {
		checkSeek(t, s, cells, tg)
	}
	rng.Shuffle(len(targets), func(i, j int) { targets[i], targets[j] = targets[j], targets[i] })
	// A fresh seeker per random seek: sub-blocks decompressed on demand.
	for _, tg := range targets[:min(len(targets), 30)] {
		require.NoError(t, initSeeker(s, block))
		checkSeek(t, s, cells, tg)
	}
	targets = targets[:min(len(targets), 200)]
	for _, tg := range targets {
		checkSeek(t, s, cells, tg)
	}
	slices.SortFunc(targets, bytes.Compare)
	for _, tg := range targets { // strictly ascending: the forward fast paths
		checkSeek(t, s, cells, tg)
	}
	checkAll(t, s, cells)
	checkAllReverse(t, s, cells)
	for _, tg := range targets {
		checkSeekLT(t, s, cells, tg)
	}
	// A fresh seeker per backward move: sub-blocks decompressed on demand.
	for _, tg := range targets[:min(len(targets), 30)] {
		require.NoError(t, initSeeker(s, block))
		checkSeekLT(t, s, cells, tg)
	}
	require.NoError(t, initSeeker(s, block))
	checkAllReverse(t, s, cells)
	require.NoError(t, initSeeker(s, block))
	checkMoves(t, s, rng, cells, targets, 1000)
}

// TestOptionsConformance runs the conformance checks over every encoding x
// compression x dedupe x value column, with small LZ4Dict sub-blocks (many
// per block) and, for a few, the default sizes; and checks that each
// feature is used where it pays and that Size bounds the block.
func TestOptionsConformance(t *testing.T) {
	defer blockenc.SetSubBlockSizes(512, 1024)()
	rng := rand.New(rand.NewPCG(11, 12))
	sets := []struct {
		name  string
		cells []blockenc.Cell
	}{
		{"empty", nil},
		{"one", []blockenc.Cell{{Key: []byte("k"), Value: []byte("v"), Seq: 1, Kind: blockenc.KindPut}}},
		{"random", randomCells(rng, 120)},
		{"pool", poolCells(rng, 250, 12)},
		{"ints8", intCells(rng, 300, 8)},
		{"ints2", intCells(rng, 200, 2)},
		{"ints1", intCells(rng, 150, 1)},
	}
	var s blockenc.Seeker // one seeker through every block: Init reuses its buffers
	for _, set := range sets {
		plain := map[string]int{} // block size without features, per encoding
		for _, opts := range optionCombos() {
			t.Run("cells="+set.name+"/"+comboName(opts), func(t *testing.T) {
				e := blockenc.NewEncoder(opts)
				for _, c := range set.cells {
					require.NoError(t, e.Add(c))
				}
				block, err := e.Finish()
				require.NoError(t, err)
				require.GreaterOrEqual(t, e.Size(), len(block), "Size vs block bytes")
				if !hasOptions(opts) && opts.Encoding != blockenc.Columnar {
					require.Equal(t, len(block), e.Size(), "Size vs block bytes")
				}
				conform(t, &s, rng, block, set.cells)
				if opts.Encoding == blockenc.Columnar {
					return // the flags are the row encodings'; columnar_test.go checks its forms
				}
				flags := blockenc.Flags(block)
				if !hasOptions(opts) {
					plain[optName(opts)] = len(block)
					require.Zero(t, flags, "flags without features")
					return
				}
				if opts.Compression != blockenc.LZ4Dict && !opts.DedupeValues {
					require.LessOrEqual(t, len(block), plain[optName(opts)], "bytes vs without features")
				}
				// Random values do not compress, 1-byte values gain nothing
				// from a column: there the features may rightly stay off.
				big := len(set.cells) > 100 && set.name != "random"
				want := func(what string, bit byte, ok bool) {
					if ok {
						assert.NotZero(t, flags&bit, "%s not used: flags %#x", what, flags)
					}
				}
				want("LZ4", blockenc.FlagLZ4, big && opts.Compression == blockenc.LZ4)
				want("LZ4Dict", blockenc.FlagLZ4Dict, big && opts.Compression == blockenc.LZ4Dict)
				want("int values", blockenc.FlagIntValues, big && opts.IntValues && set.name != "ints1" && set.name[:3] == "int")
				want("dedupe", blockenc.FlagValueDedup, opts.DedupeValues && flags&blockenc.FlagIntValues == 0)
				if set.name == "pool" && opts.DedupeValues && opts.Compression == blockenc.NoCompression {
					assert.Less(t, len(block), plain[optName(opts)]*9/10, "dedupe: bytes vs 9/10 of %d without", plain[optName(opts)])
				}
			})
		}
	}
}

// TestOptionsDefaultSizes: LZ4Dict at its default sub-block sizes, on
// blocks of about 64 KiB.
func TestOptionsDefaultSizes(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	cells := poolCells(rng, 1500, 300)
	var s blockenc.Seeker
	for _, enc := range []blockenc.Encoding{blockenc.FastDiff, blockenc.RowIndex} {
		for _, dedupe := range []bool{false, true} {
			opts := blockenc.Options{Encoding: enc, Compression: blockenc.LZ4Dict, DedupeValues: dedupe}
			block := encodeAny(t, opts, cells)
			require.NotZero(t, blockenc.Flags(block)&blockenc.FlagLZ4Dict, "%s: not LZ4Dict", comboName(opts))
			conform(t, &s, rng, block, cells)
		}
	}
}

// TestOptionsReuse: Reset gives identical bytes, Finish twice continues the
// block, Add copies, for every feature combination.
func TestOptionsReuse(t *testing.T) {
	defer blockenc.SetSubBlockSizes(256, 512)()
	rng := rand.New(rand.NewPCG(15, 16))
	a, b := poolCells(rng, 150, 8), intCells(rng, 300, 4)
	for _, opts := range optionCombos() {
		e := blockenc.NewEncoder(opts)
		var blocks [2][]byte
		for round := range 2 {
			for i, cells := range [][]blockenc.Cell{a, b} {
				e.Reset()
				for j, c := range cells {
					c.Key, c.Value = bytes.Clone(c.Key), bytes.Clone(c.Value)
					require.NoError(t, e.Add(c))
					clear(c.Key) // the encoder copied what it needs
					clear(c.Value)
					if j == len(cells)/2 {
						_, err := e.Finish()
						require.NoError(t, err)
					}
				}
				blk, err := e.Finish()
				require.NoError(t, err)
				if round == 1 {
					require.Equal(t, blocks[i], blk, "%s: re-encoding after Reset differs at offset %d", comboName(opts), firstDiff(blk, blocks[i]))
				}
				want := encodeAny(t, opts, cells)
				require.Equal(t, want, blk, "%s: Finish in the middle changed the block at offset %d", comboName(opts), firstDiff(blk, want))
				blocks[i] = blk
				s, err := blockenc.NewSeeker(blk)
				require.NoError(t, err)
				checkAll(t, s, cells)
			}
		}
	}
}

// TestOptionsZeroAllocs: SeekGE, SeekLT, Next, Prev, Last and Cell
// allocate nothing after Init, nor does Init once the seeker's buffers have grown.
func TestOptionsZeroAllocs(t *testing.T) {
	defer blockenc.SetSubBlockSizes(512, 1024)()
	rng := rand.New(rand.NewPCG(17, 18))
	sets := [][]blockenc.Cell{poolCells(rng, 300, 10), intCells(rng, 400, 8)}
	for _, opts := range optionCombos() {
		for _, cells := range sets {
			block := encodeAny(t, opts, cells)
			targets := seekTargets(cells)
			var s blockenc.Seeker
			require.NoError(t, s.Init(block))
			for ok := s.First(); ok; ok = s.Next() { // grow the key buffer
			}
			var sink int
			i := 0
			allocs := testing.AllocsPerRun(200, func() {
				if i%10 == 0 {
					require.NoError(t, s.Init(block))
				}
				s.SeekGE(targets[i%len(targets)])
				i += 7
				for range 3 {
					s.Next()
					sink += len(s.Key()) + len(s.Value())
				}
			})
			assert.Zero(t, allocs, "%s: allocs per SeekGE+Next+Cell", comboName(opts))
			allocs = testing.AllocsPerRun(200, func() {
				if i%10 == 0 {
					require.NoError(t, s.Init(block))
				}
				s.SeekLT(targets[i%len(targets)])
				i += 7
				for range 3 {
					s.Prev()
					sink += len(s.Key()) + len(s.Value())
				}
				s.Next()
			})
			assert.Zero(t, allocs, "%s: allocs per SeekLT+Prev+Next+Cell", comboName(opts))
			allocs = testing.AllocsPerRun(5, func() {
				for ok := s.Last(); ok; ok = s.Prev() {
					sink += len(s.Key()) + len(s.Value())
				}
			})
			assert.Zero(t, allocs, "%s: allocs per reverse scan", comboName(opts))
			_ = sink
		}
	}
}

// TestOptionsErrors: an unknown compression is reported.
func TestOptionsErrors(t *testing.T) {
	e := blockenc.NewEncoder(blockenc.Options{Compression: 3})
	assert.ErrorIs(t, e.Add(blockenc.Cell{Key: []byte("a")}), blockenc.ErrInvalidOptions, "Add with compression 3")
	for i, c := range blockenc.Compressions() {
		assert.Equal(t, i, int(c), "compression %d", i)
		assert.True(t, c.IsValid(), "compression %d", i)
		assert.Equal(t, []string{"none", "lz4", "lz4dict"}[i], c.String(), "compression %d", i)
	}
	c := blockenc.Compression(3)
	assert.False(t, c.IsValid(), "Compression(3)")
	assert.Equal(t, "Compression(3)", c.String())

}
