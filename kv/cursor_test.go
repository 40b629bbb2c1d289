package kv

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/segread"
	"github.com/stretchr/testify/require"
)

// cursorStore is a Store with one segment of many blocks, and the bytes
// of every block as a point Get reads them.
func cursorStore(t *testing.T) (*Store, *segment.Segment, [][]byte) {
	t.Helper()
	s := mustOpen(t, testOptions(t.TempDir()))
	for i := range 3000 {
		require.NoError(t, s.Put(fmt.Appendf(nil, "key%06d", i), fmt.Appendf(nil, "value-%d", i)))
	}
	require.NoError(t, s.Compact())
	require.Len(t, s.segs, 1)
	g := s.segs[0]
	require.Greater(t, len(g.BlockKeys), 20, "blocks")
	want := make([][]byte, len(g.BlockKeys))
	for i := range want {
		require.NoError(t, s.rd.ViewBlock(g, i, viewFn(func(v []byte) { want[i] = slices.Clone(v) })))
	}
	return s, g, want
}

// TestCursor reads blocks through cursors in the orders scans and
// read-aheads use, and out of order, and checks each against the point
// Get's bytes.
func TestCursor(t *testing.T) {
	s, g, want := cursorStore(t)
	defer s.Close()
	n := len(want)
	rng := rand.New(rand.NewPCG(1, 2))
	orders := map[string][]int{"all": {}, "reader": {}, "scan": {}, "random": {}}
	for i := range n {
		orders["all"] = append(orders["all"], i)
		if i%(segread.ReaderRun+segread.ScanRun) < segread.ReaderRun {
			orders["reader"] = append(orders["reader"], i)
		} else {
			orders["scan"] = append(orders["scan"], i)
		}
		orders["random"] = append(orders["random"], rng.IntN(n))
	}
	// Jumps beyond segread.CursorSkip, and back.
	orders["jumps"] = []int{0, 1, segread.CursorSkip + 3, 2, n - 1, n / 2, n/2 + 1}
	for name, order := range orders {
		for _, reverse := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/reverse=%v", name, reverse), func(t *testing.T) {
				c := s.rd.NewCursor(g, reverse)
				require.NotNil(t, c)
				defer c.Close()
				for k, i := range order {
					if reverse {
						i = n - 1 - i
					}
					var got []byte
					require.NoError(t, c.View(i, viewFn(func(v []byte) { got = slices.Clone(v) })), "read %d: block %d", k, i)
					require.Equal(t, want[i], got, "read %d: block %d", k, i)
				}
				if name != "random" && name != "jumps" {
					require.Equal(t, 1, c.Seeks(), "seeks: the first read only")
				}
			})
		}
	}
}

// TestCursorMissingBlock: a block gone from Badger is ErrCorrupt, and the
// cursor goes on reading the blocks after it.
func TestCursorMissingBlock(t *testing.T) {
	s, g, want := cursorStore(t)
	defer s.Close()
	const gone = 5
	require.NoError(t, badgerDB(s).Update(func(txn *badger.Txn) error { return txn.Delete(g.BlockKeys[gone]) }))
	for _, reverse := range []bool{false, true} {
		c := s.rd.NewCursor(g, reverse)
		for k := range 2*gone + 1 {
			i := k
			if reverse {
				i = 2*gone - k
			}
			var got []byte
			err := c.View(i, viewFn(func(v []byte) { got = slices.Clone(v) }))
			if i == gone {
				require.ErrorIs(t, err, ErrCorrupt, "block %d, reverse %v", i, reverse)
				continue
			}
			require.NoError(t, err, "block %d, reverse %v", i, reverse)
			require.Equal(t, want[i], got, "block %d, reverse %v", i, reverse)
		}
		c.Close()
	}
}

// TestCursorStoreClosed: Close ends the cursors still open, whose reads
// then fail with ErrClosed, and refuses new ones.
func TestCursorStoreClosed(t *testing.T) {
	s, g, want := cursorStore(t)
	unused := s.rd.NewCursor(g, false) // never read: closed without an iterator
	c := s.rd.NewCursor(g, false)
	var got []byte
	require.NoError(t, c.View(0, viewFn(func(v []byte) { got = slices.Clone(v) })))
	require.Equal(t, want[0], got)
	require.NoError(t, s.Close())
	require.ErrorIs(t, c.View(1, viewFn(func([]byte) { t.Fatal("read after Close") })), ErrClosed)
	require.ErrorIs(t, unused.View(0, viewFn(func([]byte) { t.Fatal("read after Close") })), ErrClosed)
	require.Nil(t, s.rd.NewCursor(g, false), "a cursor after Close")
	c.Close() // already shut: a no-op
	unused.Close()
}
