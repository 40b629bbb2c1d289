package blockenc_test

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// randomCells returns n sorted, distinct cells: keys 0..256 bytes built on
// a few long shared prefixes, the empty key, keys with many versions,
// deletes, empty and repeated values up to 4 KiB, seqs from 0 to MaxSeq.
func randomCells(rng *rand.Rand, n int) []blockenc.Cell {
	prefixes := [][]byte{nil, []byte("a"), bytes.Repeat([]byte("p"), 100)}
	for range 3 {
		p := make([]byte, rng.IntN(200))
		for i := range p {
			p[i] = byte('a' + rng.IntN(3)) // small alphabet: long shared runs
		}
		prefixes = append(prefixes, p)
	}
	var cells []blockenc.Cell
	var prevVal []byte
	for len(cells) < n {
		p := prefixes[rng.IntN(len(prefixes))]
		key := append([]byte(nil), p...)
		for range rng.IntN(257 - len(p)) {
			if rng.IntN(4) == 0 {
				break
			}
			key = append(key, byte(rng.IntN(256)))
		}
		if rng.IntN(50) == 0 {
			key = nil
		}
		versions := 1
		if rng.IntN(10) == 0 {
			versions = 1 + rng.IntN(40)
		}
		for range versions {
			c := blockenc.Cell{Key: key, Kind: blockenc.KindPut}
			if rng.IntN(5) == 0 {
				c.Kind = blockenc.KindDelete
			}
			switch rng.IntN(4) {
			case 0:
				c.Seq = uint64(rng.IntN(200))
			case 1:
				c.Seq = rng.Uint64() >> 1 // up to MaxSeq
			default:
				c.Seq = 1<<40 + uint64(rng.IntN(1<<20))
			}
			if rng.IntN(100) == 0 {
				c.Seq = blockenc.MaxSeq
			}
			switch r := rng.IntN(10); {
			case r == 0:
				// empty value
			case r <= 2 && prevVal != nil:
				c.Value = prevVal
			case r == 3:
				c.Value = randBytes(rng, rng.IntN(4097))
			default:
				c.Value = randBytes(rng, rng.IntN(20))
			}
			prevVal = c.Value
			cells = append(cells, c)
		}
	}
	return sortCells(cells)
}

// sortCells sorts cells and drops repeated (key, seq) pairs.
func sortCells(cells []blockenc.Cell) []blockenc.Cell {
	slices.SortStableFunc(cells, blockenc.Compare)
	return slices.CompactFunc(cells, func(a, b blockenc.Cell) bool { return blockenc.Compare(a, b) == 0 })
}

func randBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(rng.Uint32())
	}
	return b
}

// encode encodes cells with opts (no compression or other option): Size
// must be the block's size exactly, or for Columnar, which picks the
// smallest form of each section, a bound.
func encode(t testing.TB, opts blockenc.Options, cells []blockenc.Cell) []byte {
	t.Helper()
	b, e := encodeSized(t, opts, cells)
	if opts.Encoding != blockenc.Columnar {
		require.Equal(t, len(b), e.Size(), "Size")
	}
	return b
}

// encodeAny is encode for blocks whose Size is a bound, not exact.
func encodeAny(t testing.TB, opts blockenc.Options, cells []blockenc.Cell) []byte {
	t.Helper()
	b, _ := encodeSized(t, opts, cells)
	return b
}

// encodeSized encodes cells with opts and returns the block and its
// Encoder, whose Len must be the cell count and Size a bound on the
// block, whatever forms Finish picked.
func encodeSized(t testing.TB, opts blockenc.Options, cells []blockenc.Cell) ([]byte, *blockenc.Encoder) {
	t.Helper()
	e := blockenc.NewEncoder(opts)
	for i, c := range cells {
		require.NoError(t, e.Add(c), "Add cell %d", i)
	}
	b, err := e.Finish()
	require.NoError(t, err, "Finish")
	require.Equal(t, len(cells), e.Len(), "Len")
	require.GreaterOrEqual(t, e.Size(), len(b), "Size bounds the block")
	return b, e
}

// norm returns c with empty Key and Value as nil, so that require.Equal
// compares cells by their bytes.
func norm(c blockenc.Cell) blockenc.Cell {
	if len(c.Key) == 0 {
		c.Key = nil
	}
	if len(c.Value) == 0 {
		c.Value = nil
	}
	return c
}

// cellOf returns s's current cell as norm does, or the zero Cell.
func cellOf(s *blockenc.Seeker) blockenc.Cell {
	if c := s.Cell(); c != nil {
		return norm(*c)
	}
	return blockenc.Cell{}
}

// checkAll reads the whole block with First/Next and compares.
func checkAll(t *testing.T, s *blockenc.Seeker, cells []blockenc.Cell) {
	t.Helper()
	i := 0
	for ok := s.First(); ok; ok = s.Next() {
		require.Less(t, i, len(cells), "more cells than added")
		require.Equal(t, norm(cells[i]), cellOf(s), "cell %d", i)
		i++
	}
	require.NoError(t, s.Err())
	require.Equal(t, len(cells), i, "cells read")
	require.False(t, s.Next(), "Next after the end")
	require.Nil(t, s.Cell(), "Cell after the end")
}

// checkSeek checks SeekGE(target) against a binary search of cells, and
// that Next continues from the right cell.
func checkSeek(t *testing.T, s *blockenc.Seeker, cells []blockenc.Cell, target []byte) {
	t.Helper()
	want := sort.Search(len(cells), func(i int) bool { return bytes.Compare(cells[i].Key, target) >= 0 })
	ok := s.SeekGE(target)
	require.NoError(t, s.Err(), "SeekGE(%q)", target)
	require.Equal(t, want < len(cells), ok, "SeekGE(%q) found a cell", target)
	if !ok {
		return
	}
	require.Equal(t, norm(cells[want]), cellOf(s), "SeekGE(%q): cell %d", target, want)
	if want+1 < len(cells) {
		require.True(t, s.Next(), "Next after SeekGE(%q)", target)
		require.Equal(t, norm(cells[want+1]), cellOf(s), "Next after SeekGE(%q)", target)
	}
}

// checkAllReverse reads the whole block with Last/Prev and compares with
// the cells in reverse; Prev before the first cell stays there and Next
// then moves to the first cell.
func checkAllReverse(t *testing.T, s *blockenc.Seeker, cells []blockenc.Cell) {
	t.Helper()
	i := len(cells) - 1
	for ok := s.Last(); ok; ok = s.Prev() {
		if i < 0 || !sameCell(cells[i], s.Cell()) { // plain check per cell, require on failure
			require.GreaterOrEqual(t, i, 0, "more cells than added")
			require.Equal(t, norm(cells[i]), cellOf(s), "cell %d", i)
		}
		i--
	}
	require.NoError(t, s.Err())
	require.Equal(t, -1, i, "cells read backwards: %d of %d", len(cells)-1-i, len(cells))
	require.False(t, s.Prev(), "Prev before the first cell")
	require.Nil(t, s.Cell(), "Cell before the first cell")
	require.Equal(t, len(cells) > 0, s.Next(), "Next from before the first cell")
	if len(cells) > 0 {
		require.Equal(t, norm(cells[0]), cellOf(s), "Next from before the first cell")
	}
}

// checkSeekLT checks SeekLT(target) against a binary search of cells, and
// that Prev and Next continue from the right cells. The checks are plain
// comparisons; require runs (and says what differs) only on a failure:
// this runs for every seek target of every block.
func checkSeekLT(t *testing.T, s *blockenc.Seeker, cells []blockenc.Cell, target []byte) {
	want := sort.Search(len(cells), func(i int) bool { return bytes.Compare(cells[i].Key, target) >= 0 }) - 1
	ok := s.SeekLT(target)
	good := s.Err() == nil && ok == (want >= 0)
	switch {
	case !good:
	case !ok: // before the first cell: Next moves to it
		good = s.Next() == (len(cells) > 0) && (len(cells) == 0 || sameCell(cells[0], s.Cell()))
	case !sameCell(cells[want], s.Cell()):
		good = false
	case want > 0:
		good = s.Prev() && sameCell(cells[want-1], s.Cell()) && s.Next() && sameCell(cells[want], s.Cell())
	}
	if good {
		return
	}
	t.Helper()
	ok = s.SeekLT(target)
	require.NoError(t, s.Err(), "SeekLT(%q)", target)
	require.Equal(t, want >= 0, ok, "SeekLT(%q) found a cell", target)
	if !ok {
		require.Equal(t, len(cells) > 0, s.Next(), "Next after SeekLT(%q) found nothing", target)
		require.Equal(t, norm(cells[0]), cellOf(s), "Next after SeekLT(%q) found nothing", target)
	}
	require.Equal(t, norm(cells[want]), cellOf(s), "SeekLT(%q): cell %d", target, want)
	require.True(t, s.Prev(), "Prev after SeekLT(%q)", target)
	require.Equal(t, norm(cells[want-1]), cellOf(s), "Prev after SeekLT(%q)", target)
	require.True(t, s.Next(), "Next after Prev after SeekLT(%q)", target)
	require.Equal(t, norm(cells[want]), cellOf(s), "Next after Prev after SeekLT(%q)", target)
}

// checkMoves runs n random moves (First, Last, SeekGE, SeekLT, Next,
// Prev, in runs of each direction and switching at any point) against a
// model: a position in the sorted cells, -1 before the first cell and
// len(cells) after the last.
func checkMoves(t *testing.T, s *blockenc.Seeker, rng *rand.Rand, cells []blockenc.Cell, targets [][]byte, n int) {
	t.Helper()
	pos := -1 // s may be anywhere: First and Prev put it before the first cell
	if s.First() {
		require.False(t, s.Prev(), "Prev from the first cell")
	}
	var hist []string // the last moves, for the failure message
	for range n {
		var ok bool
		var what string
		switch r := rng.IntN(12); {
		case r == 0:
			what, ok = "First", s.First()
			pos = 0
		case r == 1:
			what, ok = "Last", s.Last()
			pos = len(cells) - 1
		case r == 2 && len(targets) > 0:
			tg := targets[rng.IntN(len(targets))]
			what, ok = "SeekGE("+hex.EncodeToString(tg)+")", s.SeekGE(tg)
			pos = sort.Search(len(cells), func(i int) bool { return bytes.Compare(cells[i].Key, tg) >= 0 })
		case r == 3 && len(targets) > 0:
			tg := targets[rng.IntN(len(targets))]
			what, ok = "SeekLT("+hex.EncodeToString(tg)+")", s.SeekLT(tg)
			pos = sort.Search(len(cells), func(i int) bool { return bytes.Compare(cells[i].Key, tg) >= 0 }) - 1
		case r < 8:
			what, ok = "Next", s.Next()
			pos = min(pos+1, len(cells))
		default:
			what, ok = "Prev", s.Prev()
			pos = max(pos-1, -1)
		}
		if len(cells) == 0 {
			pos = -1
		}
		if len(hist) == 8 {
			copy(hist, hist[1:])
			hist = hist[:7]
		}
		hist = append(hist, what)
		// Cheap checks first; require (and its message) only on failure.
		on := pos >= 0 && pos < len(cells)
		if s.Err() != nil || on != ok || (on && !sameCell(cells[pos], s.Cell())) || (!on && s.Cell() != nil) {
			require.NoError(t, s.Err(), "after %v", hist)
			require.Equal(t, on, ok, "after %v: found a cell (model: cell %d of %d)", hist, pos, len(cells))
			if on {
				require.Equal(t, norm(cells[pos]), cellOf(s), "after %v: cell %d", hist, pos)
			}
			require.Nil(t, s.Cell(), "after %v: off the cells", hist)
		}
	}
}

// sameCell reports whether c is want (a nil and an empty key or value are
// the same).
func sameCell(want blockenc.Cell, c *blockenc.Cell) bool {
	return c != nil && bytes.Equal(want.Key, c.Key) && bytes.Equal(want.Value, c.Value) && want.Seq == c.Seq && want.Kind == c.Kind
}

// seekTargets returns every key, a key just after each key, a proper prefix
// of each key, a key before the first and keys past the last.
func seekTargets(cells []blockenc.Cell) [][]byte {
	var ts [][]byte
	for _, c := range cells {
		ts = append(ts, c.Key, append(slices.Clip(c.Key), 0))
		if len(c.Key) > 0 {
			ts = append(ts, c.Key[:len(c.Key)/2])
			last := slices.Clone(c.Key)
			last[len(last)-1]++
			ts = append(ts, last)
		}
	}
	ts = append(ts, nil, []byte{}, bytes.Repeat([]byte{0xff}, 300))
	if len(cells) > 0 {
		ts = append(ts, append(slices.Clone(cells[len(cells)-1].Key), 0xff))
	}
	return ts
}

func allOptions() []blockenc.Options {
	var opts []blockenc.Options
	for _, e := range blockenc.Encodings() {
		opts = append(opts, blockenc.Options{Encoding: e})
	}
	// RowIndex restart edge cases: every cell a restart, and odd intervals.
	opts = append(opts,
		blockenc.Options{Encoding: blockenc.RowIndex, RestartInterval: 1},
		blockenc.Options{Encoding: blockenc.RowIndex, RestartInterval: 3},
		blockenc.Options{Encoding: blockenc.RowIndex, RestartInterval: 1000})
	return opts
}

func optName(o blockenc.Options) string {
	if o.Encoding == blockenc.RowIndex && o.RestartInterval != 0 {
		return fmt.Sprintf("encoding=%v/restart=%d", o.Encoding, o.RestartInterval)
	}
	return "encoding=" + o.Encoding.String()
}

// TestConformance runs round trip, seeks and reuse over every encoding.
func TestConformance(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	sets := map[string][]blockenc.Cell{
		"empty":  nil,
		"one":    {{Key: []byte("k"), Value: []byte("v"), Seq: 1, Kind: blockenc.KindPut}},
		"random": randomCells(rng, 600),
		"emptykey": {
			{Key: nil, Seq: 3, Kind: blockenc.KindDelete},
			{Key: nil, Value: []byte("x"), Seq: 2, Kind: blockenc.KindPut},
			{Key: []byte{0}, Seq: 0, Kind: blockenc.KindPut},
		},
	}
	for name, cells := range sets {
		for _, opts := range allOptions() {
			t.Run("cells="+name+"/"+optName(opts), func(t *testing.T) {
				block := encode(t, opts, cells)
				require.NoError(t, blockenc.Verify(block), "Verify")
				s, err := blockenc.NewSeeker(block)
				require.NoError(t, err)
				checkAll(t, s, cells)
				targets := seekTargets(cells)
				for _, tg := range targets { // in key order of cells: mostly ascending
					checkSeek(t, s, cells, tg)
				}
				rng.Shuffle(len(targets), func(i, j int) { targets[i], targets[j] = targets[j], targets[i] })
				for _, tg := range targets {
					checkSeek(t, s, cells, tg)
				}
				slices.SortFunc(targets, bytes.Compare)
				for _, tg := range targets { // strictly ascending: the forward fast paths
					checkSeek(t, s, cells, tg)
				}
				checkAll(t, s, cells) // First after seeks starts over
				checkAllReverse(t, s, cells)
				for _, tg := range targets {
					checkSeekLT(t, s, cells, tg)
				}
				rng.Shuffle(len(targets), func(i, j int) { targets[i], targets[j] = targets[j], targets[i] })
				for _, tg := range targets {
					checkSeekLT(t, s, cells, tg)
				}
				checkMoves(t, s, rng, cells, targets, 3000)
			})
		}
	}
}

// TestReuse: one Seeker through Init over every encoding; one Encoder
// through Reset gives identical bytes.
func TestReuse(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a, b := randomCells(rng, 200), randomCells(rng, 150)
	var s blockenc.Seeker
	for _, opts := range allOptions() {
		e := blockenc.NewEncoder(opts)
		var blocks [2][]byte
		for round := range 2 {
			for i, cells := range [][]blockenc.Cell{a, b} {
				e.Reset()
				for _, c := range cells {
					require.NoError(t, e.Add(c))
				}
				blk, err := e.Finish()
				require.NoError(t, err)
				if round == 1 {
					require.Equal(t, blocks[i], blk, "%s: re-encoding after Reset differs at offset %d", optName(opts), firstDiff(blk, blocks[i]))
				}
				blocks[i] = blk
				require.NoError(t, s.Init(blk))
				checkAll(t, &s, cells)
				checkSeek(t, &s, cells, cells[len(cells)/2].Key)
				require.NoError(t, s.Init(blk))
				checkAllReverse(t, &s, cells)
				checkSeekLT(t, &s, cells, cells[len(cells)/2].Key)
			}
		}
	}
	// Init over a bad block leaves a seeker that reports it, then recovers.
	require.ErrorIs(t, s.Init([]byte{1, 2, 3}), blockenc.ErrCorrupt, "Init on garbage")
	require.False(t, s.First(), "Init on garbage: First moved")
	require.Error(t, s.Err(), "Init on garbage: Err")
	require.NoError(t, s.Init(encode(t, blockenc.DefaultOptions(), a)), "Init after garbage")
	require.NoError(t, s.Err(), "Init after garbage: Err")
	checkAll(t, &s, a)
}

// TestFinishTwice: Finish leaves the encoder able to continue the block.
func TestFinishTwice(t *testing.T) {
	cells := randomCells(rand.New(rand.NewPCG(5, 6)), 50)
	for _, opts := range allOptions() {
		e := blockenc.NewEncoder(opts)
		for _, c := range cells[:20] {
			require.NoError(t, e.Add(c))
		}
		_, err := e.Finish()
		require.NoError(t, err)
		for _, c := range cells[20:] {
			require.NoError(t, e.Add(c))
		}
		blk, err := e.Finish()
		require.NoError(t, err)
		want := encode(t, opts, cells)
		require.Equal(t, want, blk, "%s: differs at offset %d", optName(opts), firstDiff(blk, want))
	}
}

// TestAddCopies: the caller may reuse a cell's slices after Add.
func TestAddCopies(t *testing.T) {
	for _, opts := range allOptions() {
		e := blockenc.NewEncoder(opts)
		key, val := []byte("key0"), []byte("val0")
		for i := range 5 {
			key[3], val[3] = byte('0'+i), byte('0'+i%2)
			require.NoError(t, e.Add(blockenc.Cell{Key: key, Value: val, Seq: 1, Kind: blockenc.KindPut}))
		}
		key[3], val[3] = 'x', 'x'
		blk, _ := e.Finish()
		s, err := blockenc.NewSeeker(blk)
		require.NoError(t, err)
		for i := 0; s.Next(); i++ {
			c := cellOf(s)
			require.Equal(t, "key"+string(rune('0'+i)), string(c.Key), "%s: cell %d key", optName(opts), i)
			require.Equal(t, "val"+string(rune('0'+i%2)), string(c.Value), "%s: cell %d value", optName(opts), i)
		}
	}
}

func TestAddErrors(t *testing.T) {
	put := func(k string, seq uint64) blockenc.Cell {
		return blockenc.Cell{Key: []byte(k), Seq: seq, Kind: blockenc.KindPut}
	}
	for _, opts := range allOptions() {
		e := blockenc.NewEncoder(opts)
		require.NoError(t, e.Add(put("b", 5)))
		size := e.Size()
		for _, tc := range []struct {
			c    blockenc.Cell
			want error
		}{
			{put("b", 5), blockenc.ErrOutOfOrder}, // same key and seq
			{put("b", 6), blockenc.ErrOutOfOrder}, // newer version after older
			{put("a", 9), blockenc.ErrOutOfOrder},
			{put("c", blockenc.MaxSeq+1), blockenc.ErrTooLarge},
			{blockenc.Cell{Key: make([]byte, blockenc.MaxKeyLen+1), Seq: 1}, blockenc.ErrTooLarge},
			{blockenc.Cell{Key: []byte("c"), Value: make([]byte, blockenc.MaxValueLen+1)}, blockenc.ErrTooLarge},
			{blockenc.Cell{Key: []byte("c"), Kind: 2}, blockenc.ErrInvalidKind},
		} {
			assert.ErrorIs(t, e.Add(tc.c), tc.want, "%s: Add(%+v)", optName(opts), tc.c)
		}
		assert.Equal(t, 1, e.Len(), "%s: failed Adds changed the block", optName(opts))
		assert.Equal(t, size, e.Size(), "%s: failed Adds changed the block", optName(opts))
		// The limits themselves are fine.
		assert.NoError(t, e.Add(blockenc.Cell{Key: bytes.Repeat([]byte("c"), blockenc.MaxKeyLen), Value: make([]byte, blockenc.MaxValueLen), Seq: blockenc.MaxSeq}), "%s: Add at the limits", optName(opts))
		blk, err := e.Finish()
		require.NoError(t, err)
		assert.NoError(t, blockenc.Verify(blk), "%s: block at the limits", optName(opts))
	}
	for _, opts := range []blockenc.Options{{Encoding: 6}, {Encoding: blockenc.RowIndex, RestartInterval: -1}, {RestartInterval: 1 << 17}} {
		e := blockenc.NewEncoder(opts)
		assert.ErrorIs(t, e.Add(put("a", 1)), blockenc.ErrInvalidOptions, "Add with %+v", opts)
		_, err := e.Finish()
		assert.ErrorIs(t, err, blockenc.ErrInvalidOptions, "Finish with %+v", opts)
	}
}

func TestEncodingNames(t *testing.T) {
	want := []string{"none", "prefix", "diff", "fastdiff", "rowindex", "columnar"}
	for i, e := range blockenc.Encodings() {
		assert.Equal(t, i, int(e), "encoding %d", i)
		assert.Equal(t, want[i], e.String(), "encoding %d", i)
		assert.True(t, e.IsValid(), "encoding %d", i)
	}
	e := blockenc.Encoding(6)
	assert.False(t, e.IsValid(), "Encoding(6)")
	assert.Equal(t, "Encoding(6)", e.String())
}

// TestZeroAllocs: SeekGE, SeekLT, Next, Prev, Last and Cell allocate
// nothing after Init.
func TestZeroAllocs(t *testing.T) {
	cells := randomCells(rand.New(rand.NewPCG(7, 8)), 300)
	targets := seekTargets(cells)
	for _, opts := range allOptions() {
		s, err := blockenc.NewSeeker(encode(t, opts, cells))
		require.NoError(t, err)
		var sink int
		i := 0
		allocs := testing.AllocsPerRun(200, func() {
			s.SeekGE(targets[i%len(targets)])
			i += 7
			for range 3 {
				s.Next()
				sink += len(cellOf(s).Key)
			}
		})
		assert.Zero(t, allocs, "%s: allocs per SeekGE+Next+Cell", optName(opts))
		allocs = testing.AllocsPerRun(20, func() {
			for ok := s.First(); ok; ok = s.Next() {
				sink += len(cellOf(s).Value)
			}
		})
		assert.Zero(t, allocs, "%s: allocs per full scan", optName(opts))
		allocs = testing.AllocsPerRun(200, func() {
			s.SeekLT(targets[i%len(targets)])
			i += 7
			for range 3 {
				s.Prev()
				sink += len(cellOf(s).Key)
			}
			s.Next()
		})
		assert.Zero(t, allocs, "%s: allocs per SeekLT+Prev+Next+Cell", optName(opts))
		allocs = testing.AllocsPerRun(20, func() {
			for ok := s.Last(); ok; ok = s.Prev() {
				sink += len(cellOf(s).Value)
			}
		})
		assert.Zero(t, allocs, "%s: allocs per full reverse scan", optName(opts))

		_ = sink
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
