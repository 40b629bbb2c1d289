package gcfilter

import (
	"testing"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
	"github.com/stretchr/testify/require"
)

func put(k string, seq uint64) blockenc.Cell {
	return blockenc.Cell{Key: []byte(k), Seq: seq, Kind: blockenc.KindPut, Value: []byte("v")}
}

func del(k string, seq uint64) blockenc.Cell {
	return blockenc.Cell{Key: []byte(k), Seq: seq, Kind: blockenc.KindDelete}
}

// run filters cells through f and returns the (key, seq) it kept.
func run(t *testing.T, f *Filter, cells ...blockenc.Cell) [][2]any {
	t.Helper()
	var out [][2]any
	f.Emit = func(c blockenc.Cell) error {
		out = append(out, [2]any{string(c.Key), c.Seq})
		return nil
	}
	for _, c := range cells {
		require.NoError(t, f.Add(c))
	}
	f.Finish()
	return out
}

// A version is kept when it is above the read point or the newest at or
// below a pinned read point; tombstones at the bottom of a key go when
// nothing older lies outside the cells; a range tombstone counts as a
// newer version of the keys it covers.
func TestFilter(t *testing.T) {
	cells := []blockenc.Cell{put("a", 12), put("a", 9), put("a", 7), put("a", 3), put("a", 1), del("b", 4), put("b", 2)}
	got := run(t, &Filter{RP: 10, Points: []uint64{3, 10}}, cells...)
	require.Equal(t, [][2]any{{"a", uint64(12)}, {"a", uint64(9)}, {"a", uint64(3)}, {"b", uint64(4)}, {"b", uint64(2)}}, got)

	got = run(t, &Filter{RP: 10, Points: []uint64{10}, DropTombstones: true}, cells...)
	require.Equal(t, [][2]any{{"a", uint64(12)}, {"a", uint64(9)}}, got, "b's tombstone hides nothing kept")

	// A range tombstone at seq 8 over "a": the versions below it go once
	// no read point lies between them and it, and so does the tombstone.
	dels := rangedel.New([]rangedel.Tombstone{{Start: []byte("a"), End: []byte("b"), Seq: 8}})
	f := &Filter{RP: 10, Points: []uint64{10}, DropTombstones: true, Dels: dels}
	got = run(t, f, put("a", 9), put("a", 7), put("a", 3))
	require.Equal(t, [][2]any{{"a", uint64(9)}}, got)
	require.Empty(t, f.RangeDels(), "a tombstone that deletes nothing kept")

	// A reader at 5 still sees seq 3, which the tombstone deletes for the
	// readers at 8 and above: both stay.
	f = &Filter{RP: 10, Points: []uint64{5, 10}, DropTombstones: true, Dels: dels}
	got = run(t, f, put("a", 9), put("a", 7), put("a", 3))
	require.Equal(t, [][2]any{{"a", uint64(9)}, {"a", uint64(3)}}, got)
	require.Equal(t, dels.Dels, f.RangeDels())
}
