package kv

import (
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
)

// spaceCells writes n cells (16-byte keys, 8-byte values, in batches of
// 100) into s, flushes and compacts.
func spaceCells(t testing.TB, s *Store, n int) {
	t.Helper()
	b := s.NewBatch()
	val := make([]byte, 8)
	for i := 0; i < n; i++ {
		binary.BigEndian.PutUint64(val, uint64(i))
		b.Put([]byte(fmt.Sprintf("key-%012d", i)), val)
		if b.Len() == 100 || i == n-1 {
			require.NoError(t, s.Apply(b))
			b.Reset()
		}
	}
	require.NoError(t, s.Flush())
	require.NoError(t, s.Compact())
}

// spaceSize returns the bytes on disk after n cells written, flushed and
// compacted through Open, or through Wrap of a DB with Badger's default
// options (then Reclaim when reclaim is set); the DB then gets Badger's
// own compaction (Flatten) before it closes.
func spaceSize(t testing.TB, n int, wrap, reclaim bool) int64 {
	t.Helper()
	dir := t.TempDir()
	var s *Store
	var db *badger.DB
	if wrap {
		var err error
		db, err = badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
		require.NoError(t, err)
		o := DefaultOptions("")
		o.Prefix = []byte("cells/")
		s, err = Wrap(db, o)
		require.NoError(t, err)
	} else {
		s = mustOpen(t, DefaultOptions(dir))
	}
	spaceCells(t, s, n)
	if reclaim {
		require.NoError(t, s.Reclaim())
	}
	require.NoError(t, s.Close())
	if !wrap {
		var err error
		db, err = badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
		require.NoError(t, err)
	}
	require.NoError(t, db.Flatten(1))
	require.NoError(t, db.Close())
	return dirSize(t, dir)
}

// Deleted WAL records and blocks of a wrapped Store are reclaimed: after
// writes, flush, Compact, Reclaim and Badger's own compaction a wrapped DB
// takes at most 1.5x the bytes of Open's (whose Compact reclaims by
// itself). Without Reclaim Badger keeps them: a burst of writes leaves its
// WAL records and their deletions in one level 0 table that Badger's
// compaction (Flatten included) does not rewrite. KV_SPACE_CELLS sets the
// cell count (the package doc quotes 1,000,000) and measures Wrap without
// Reclaim too.
func TestWrapSpace(t *testing.T) {
	n := 30_000
	v, err := strconv.Atoi(os.Getenv("KV_SPACE_CELLS"))
	if err == nil {
		n = v
	}
	open := spaceSize(t, n, false, false)
	wrap := spaceSize(t, n, true, true)
	t.Logf("%d cells: Open %d bytes; Wrap with Reclaim %d bytes (%.2fx)", n, open, wrap, float64(wrap)/float64(open))
	if err == nil {
		kept := spaceSize(t, n, true, false)
		t.Logf("%d cells: Wrap without Reclaim %d bytes (%.2fx)", n, kept, float64(kept)/float64(open))
	}
	require.LessOrEqual(t, float64(wrap), 1.5*float64(open), "Open %d bytes, Wrap %d", open, wrap)
}
