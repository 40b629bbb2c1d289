package fuzz

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	gofuzz "github.com/google/gofuzz"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// blockOptions: every encoding, plus RowIndex with small restart intervals
// so short inputs still have several restarts.
var blockOptions = []blockenc.Options{
	{Encoding: blockenc.None},
	{Encoding: blockenc.Prefix},
	{Encoding: blockenc.Diff},
	{Encoding: blockenc.FastDiff},
	{Encoding: blockenc.RowIndex},
	{Encoding: blockenc.RowIndex, RestartInterval: 1},
	{Encoding: blockenc.RowIndex, RestartInterval: 3},
	{Encoding: blockenc.Columnar},
	{Encoding: blockenc.Columnar, RestartInterval: 3},
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// withFixedCRC returns a copy of b whose trailer is the right CRC32C, so
// the fuzzer reaches the structural checks behind the checksum.
func withFixedCRC(b []byte) []byte {
	b = bytes.Clone(b)
	if len(b) >= 4 {
		binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	}
	return b
}

func encodeCells(t *testing.T, opts blockenc.Options, cells []blockenc.Cell) []byte {
	t.Helper()
	e := blockenc.NewEncoder(opts)
	for i, c := range cells {
		require.NoError(t, e.Add(c), "%v: Add cell %d", opts, i)
	}
	b, err := e.Finish()
	require.NoError(t, err)
	return b
}

func cloneCell(c blockenc.Cell) blockenc.Cell {
	return blockenc.Cell{Key: bytes.Clone(c.Key), Value: bytes.Clone(c.Value), Seq: c.Seq, Kind: c.Kind}
}

// cellView is a cell in a form testify compares as bytes.Equal would: a nil
// and an empty key or value are the same.
type cellView struct {
	Key, Value string
	Seq        uint64
	Kind       blockenc.Kind
}

func viewCell(c blockenc.Cell) cellView {
	return cellView{Key: string(c.Key), Value: string(c.Value), Seq: c.Seq, Kind: c.Kind}
}

func viewCells(cs []blockenc.Cell) []cellView {
	out := make([]cellView, len(cs))
	for i, c := range cs {
		out[i] = viewCell(c)
	}
	return out
}

// fuzzDict and goldenRowDict are the Dicts of blockenc's golden
// columnar-dict.block and none-dict.block: the decoders read every block
// with the first, and with the second when the first is the wrong one
// (blocks without a Dict read the same with and without one).
var fuzzDict, goldenRowDict = mustDict("furiously quickly carefully blithely slyly"), mustDict("value-value-value user")

func mustDict(b string) *blockenc.Dict {
	d, err := blockenc.NewDict([]byte(b))
	if err != nil {
		panic(err)
	}
	return d
}

// dictFor returns the Dict of fuzzDict and goldenRowDict that block does
// not refuse as the wrong one (fuzzDict when it refuses both).
func dictFor(block []byte) *blockenc.Dict {
	var s blockenc.Seeker
	if err := s.InitDict(block, fuzzDict); errors.Is(err, blockenc.ErrWrongDict) && !errors.Is(s.InitDict(block, goldenRowDict), blockenc.ErrWrongDict) {
		return goldenRowDict
	}
	return fuzzDict
}

// readBlock reads every cell of block with First/Next. A non-nil error
// wraps ErrCorrupt (checked).
func readBlock(t *testing.T, block []byte) ([]blockenc.Cell, *blockenc.Seeker, error) {
	t.Helper()
	s, err := blockenc.NewSeekerDict(block, dictFor(block))
	if err != nil {
		require.ErrorIs(t, err, blockenc.ErrCorrupt, "NewSeeker")
		return nil, nil, err
	}
	var cells []blockenc.Cell
	for ok := s.First(); ok; ok = s.Next() {
		cells = append(cells, cloneCell(*s.Cell()))
	}
	if err := s.Err(); err != nil {
		require.ErrorIs(t, err, blockenc.ErrCorrupt, "iteration")
	}
	return cells, s, s.Err()
}

// checkSeeks: on ordered cells, SeekGE(k) for every key, a key just past
// it and a proper prefix of it lands on the first cell >= k.
func checkSeeks(t *testing.T, s *blockenc.Seeker, cells []blockenc.Cell) {
	t.Helper()
	var targets [][]byte
	for _, c := range cells {
		targets = append(targets, c.Key, append(slices.Clip(c.Key), 0), c.Key[:len(c.Key)/2])
	}
	targets = append(targets, nil, []byte{0xff, 0xff, 0xff})
	for _, k := range targets {
		want := sort.Search(len(cells), func(i int) bool { return bytes.Compare(cells[i].Key, k) >= 0 })
		ok := s.SeekGE(k)
		require.NoError(t, s.Err(), "SeekGE(%x)", k)
		require.Equal(t, want < len(cells), ok, "SeekGE(%x) found, want cell %d of %d", k, want, len(cells))
		if ok {
			require.Equal(t, viewCell(cells[want]), viewCell(*s.Cell()), "SeekGE(%x), want cell %d of %d", k, want, len(cells))
		}
		// SeekLT lands on the cell before, and Prev and Next move from it.
		ok = s.SeekLT(k)
		require.NoError(t, s.Err(), "SeekLT(%x)", k)
		require.Equal(t, want > 0, ok, "SeekLT(%x) found, want cell %d of %d", k, want-1, len(cells))
		if !ok {
			continue
		}
		require.Equal(t, viewCell(cells[want-1]), viewCell(*s.Cell()), "SeekLT(%x), want cell %d of %d", k, want-1, len(cells))
		require.Equal(t, want > 1, s.Prev(), "Prev after SeekLT(%x)", k)
		if want > 1 {
			require.Equal(t, viewCell(cells[want-2]), viewCell(*s.Cell()), "Prev after SeekLT(%x)", k)
			require.True(t, s.Next(), "Next after Prev after SeekLT(%x)", k)
		} else {
			require.True(t, s.Next(), "Next from before the first cell after SeekLT(%x)", k)
		}
		require.Equal(t, viewCell(cells[want-1]), viewCell(*s.Cell()), "Next after Prev after SeekLT(%x)", k)
	}
}

// readBackward reads every cell of a block s has read forward without an
// error with Last/Prev: the same cells in reverse, whatever their order.
func readBackward(t *testing.T, s *blockenc.Seeker, cells []blockenc.Cell) {
	t.Helper()
	var back []blockenc.Cell
	for ok := s.Last(); ok; ok = s.Prev() {
		back = append(back, cloneCell(*s.Cell()))
	}
	require.NoError(t, s.Err(), "Last/Prev after %d cells", len(back))
	slices.Reverse(back)
	require.Equal(t, viewCells(cells), viewCells(back), "cells read with Last/Prev")
}

// checkDecode: arbitrary bytes give an error wrapping ErrCorrupt or a
// consistent block, never a panic.
func checkDecode(t *testing.T, block []byte) {
	h, herr := blockenc.ReadHeader(block)
	if herr != nil {
		require.ErrorIs(t, herr, blockenc.ErrCorrupt, "ReadHeader")
	}
	cells, s, err := readBlock(t, block)
	if s == nil {
		return
	}
	if err == nil {
		require.NoError(t, herr, "ReadHeader of a block that reads")
		require.Equal(t, len(cells), h.Cells, "ReadHeader's cell count")
	}
	// Decompressed ahead, the block reads the same cells, to the same
	// error.
	ahead, aerr := blockenc.NewSeekerDict(block, dictFor(block))
	require.NoError(t, aerr, "NewSeekerDict again")
	ahead.Decompress()
	var got []blockenc.Cell
	for ok := ahead.First(); ok; ok = ahead.Next() {
		got = append(got, cloneCell(*ahead.Cell()))
	}
	require.Equal(t, viewCells(cells), viewCells(got), "cells read after Decompress")
	require.Equal(t, err, ahead.Err(), "error after Decompress")
	if err == nil {
		readBackward(t, s, cells)
	}
	for _, k := range [][]byte{nil, {0}, {0x61}, {0xff}} { // seeks on any block: no panic
		s.SeekGE(k)
		s.Next()
		s.SeekLT(k)
		s.Prev()
		s.Next()
	}
	s.Last()
	s.Prev()
	if err != nil {
		require.Error(t, s.Err(), "error is not sticky")
		require.False(t, s.First(), "error is not sticky")
		return
	}
	verr := blockenc.VerifyDict(block, dictFor(block))
	ordered := true
	for i := 1; i < len(cells); i++ {
		if blockenc.Compare(cells[i-1], cells[i]) >= 0 {
			ordered = false
		}
	}
	require.Equal(t, ordered, verr == nil, "Verify = %v, but cells ordered = %v", verr, ordered)
	if !ordered {
		return // seeks in an unordered block need not agree with a scan
	}
	checkSeeks(t, s, cells)
	// Whatever the block's encoding, its cells survive every encoding.
	for _, opts := range blockOptions {
		got, _, err := readBlock(t, encodeCells(t, opts, cells))
		require.NoError(t, err, "%v: re-encoded %d cells", opts, len(cells))
		require.Equal(t, viewCells(cells), viewCells(got), "%v: re-encoded cells differ", opts)
	}
}

// FuzzBlockDecode feeds arbitrary bytes to NewSeekerDict (with fuzzDict),
// a full iteration and seeks, as they are and with their CRC32C trailer
// fixed up, and to NewSeeker.
func FuzzBlockDecode(f *testing.F) {
	golden, _ := filepath.Glob("../blockenc/testdata/*.block")
	for _, p := range golden {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	cells := []blockenc.Cell{
		{Key: nil, Seq: 1, Kind: blockenc.KindDelete},
		{Key: []byte("a"), Value: []byte("x"), Seq: 1 << 40, Kind: blockenc.KindPut},
		{Key: []byte("a"), Value: []byte("x"), Seq: 3, Kind: blockenc.KindPut},
		{Key: []byte("abcdefghijklmnopqrstuvwxyz"), Seq: 2, Kind: blockenc.KindPut},
	}
	for _, opts := range blockOptions {
		e := blockenc.NewEncoder(opts)
		for _, c := range cells {
			_ = e.Add(c)
		}
		b, _ := e.Finish()
		f.Add(b)
	}
	f.Add([]byte{})
	f.Add([]byte{1, 4, 0, 0, 1, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, data)
		checkDecode(t, withFixedCRC(data))
		// Without the Dict: the same, or ErrWrongDict (ErrCorrupt).
		if _, err := blockenc.NewSeeker(withFixedCRC(data)); err != nil {
			require.ErrorIs(t, err, blockenc.ErrCorrupt, "NewSeeker without the Dict")
		}
	})
}

// fuzzCell is what gofuzz fills; it becomes a valid Cell.
type fuzzCell struct {
	Key, Value []byte
	Seq        uint64
	Delete     bool
	SameKey    bool // repeat the previous key: many versions
	SameValue  bool // repeat the previous value
}

// gofuzzCells builds up to maxCells sorted, distinct cells from data with
// gofuzz: repeated keys and values, deletes, and with fixedWidth every value
// 4 bytes wide (so integer value columns apply).
func gofuzzCells(data []byte, maxCells int, fixedWidth bool) []blockenc.Cell {
	var raw []fuzzCell
	gofuzz.NewFromGoFuzz(data).NilChance(0.1).NumElements(0, maxCells).Fuzz(&raw)
	cells := make([]blockenc.Cell, 0, len(raw))
	for i, r := range raw {
		c := blockenc.Cell{Key: r.Key, Value: r.Value, Seq: r.Seq >> 1, Kind: blockenc.KindPut}
		if r.Delete {
			c.Kind = blockenc.KindDelete
		}
		if i > 0 && r.SameKey {
			c.Key = raw[i-1].Key
		}
		if i > 0 && r.SameValue {
			c.Value = raw[i-1].Value
		}
		if fixedWidth {
			c.Value = binary.BigEndian.AppendUint64(nil, r.Seq%1000)[4:]
		}
		cells = append(cells, c)
	}
	slices.SortStableFunc(cells, blockenc.Compare)
	return slices.CompactFunc(cells, func(a, b blockenc.Cell) bool { return blockenc.Compare(a, b) == 0 })
}

// FuzzBlockRoundTrip builds sorted, distinct cells with gofuzz and checks
// that every encoding decodes to the same cells and seeks agree.
func FuzzBlockRoundTrip(f *testing.F) {
	f.Add([]byte("seed"))
	f.Add(bytes.Repeat([]byte{0x55, 0xaa, 0x01, 0xff, 0x00}, 60))
	f.Fuzz(func(t *testing.T, data []byte) {
		cells := gofuzzCells(data, 40, false)

		var first []byte
		for _, opts := range blockOptions {
			block := encodeCells(t, opts, cells)
			require.NoError(t, blockenc.Verify(block), "%v: Verify", opts)
			got, s, err := readBlock(t, block)
			require.NoError(t, err, "%v: read %d of %d cells", opts, len(got), len(cells))
			require.Equal(t, viewCells(cells), viewCells(got), "%v: cells read back", opts)
			checkSeeks(t, s, cells)
			if opts.Encoding == blockenc.FastDiff {
				first = block
			}
		}
		// Re-encoding after Reset gives identical bytes.
		e := blockenc.NewEncoder(blockenc.Options{Encoding: blockenc.FastDiff})
		_ = e.Add(blockenc.Cell{Key: []byte("junk"), Kind: blockenc.KindPut})
		e.Reset()
		for _, c := range cells {
			require.NoError(t, e.Add(c))
		}
		again, _ := e.Finish()
		require.Equal(t, string(first), string(again), "re-encoding after Reset differs")
	})

}
