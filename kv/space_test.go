package kv

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/wal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dirSize sums the sizes of the files under dir.
func dirSize(t testing.TB, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			n += fi.Size()
		}
		return err
	})
	require.NoError(t, err)
	return n
}

// Compact makes Badger give back the space of the WAL records and of the
// compacted-away segments: after Close the files hold little more than
// the live blocks, plus Badger's fixed 1 MiB DISCARD file and the newest
// value log file, which value-log GC never collects (1 MiB here).
func TestCompactReclaimsSpace(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(dir)
	o.BlockSize = 32 << 10
	o.MemstoreSize = 1 << 20
	o.Badger = func(bo badger.Options) badger.Options { return smallBadger(bo).WithValueLogFileSize(1 << 20) }
	s := mustOpen(t, o)
	val := make([]byte, 100)
	for round := 0; round < 3; round++ { // every key written three times
		for i := 0; i < 10000; i++ {
			val[0], val[1] = byte(i), byte(round)
			require.NoError(t, s.Put([]byte(fmt.Sprintf("key%06d", i)), val))
		}
	}
	require.NoError(t, s.Compact())
	st := s.Stats()
	require.NoError(t, s.Close())
	size := dirSize(t, dir)
	vlogs, err := filepath.Glob(filepath.Join(dir, "*.vlog"))
	require.NoError(t, err)
	require.NotEmpty(t, vlogs)
	newest, err := os.Stat(vlogs[len(vlogs)-1])
	require.NoError(t, err)
	t.Logf("live block bytes %d, files %d, newest value log %d", st.BytesStored, size, newest.Size())
	require.LessOrEqual(t, newest.Size(), int64(1<<20+32<<10), "newest value log file")
	require.LessOrEqual(t, size-newest.Size(), 2*st.BytesStored+1<<20+256<<10, "bytes on disk for %d live bytes: garbage not reclaimed", st.BytesStored)
	s = mustOpen(t, o)
	v, err := s.Get([]byte("key000042"))
	require.NoError(t, err)
	assert.Equal(t, []byte{42, 2}, v[:2], "after reopen")
	require.NoError(t, s.Close())
}

// countWALRecords counts the WAL records of s: in its WAL files and
// under the WAL tag in Badger.
func countWALRecords(t testing.TB, s *Store) int {
	t.Helper()
	n := countKeys(t, s, s.keys.Tag(layout.TagWAL))
	if s.wal == nil {
		return n
	}
	files, err := filepath.Glob(filepath.Join(s.wal.Path(), "*"+wal.Suffix))
	require.NoError(t, err)
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		recs, err := wal.DecodeFile(b)
		require.NoError(t, err)
		n += len(recs)
	}
	return n
}

// countKeys returns the number of Badger keys under prefix.
func countKeys(t testing.TB, s *Store, prefix []byte) int {
	t.Helper()
	n := 0
	require.NoError(t, badgerDB(s).View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: prefix})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	}))
	return n
}

// A DeleteRange over a whole series is one write (one WAL record, no
// cell), and Compact gives its space back: the files after Close shrink
// to what the live series takes. KV_DELRANGE_CELLS sets the number of
// cells deleted (the package doc quotes 1,000,000).
func TestDeleteRangeSpace(t *testing.T) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("KV_DELRANGE_CELLS")); err == nil {
		n = v
	}
	dir := t.TempDir()
	o := DefaultOptions(dir)
	o.Badger = smallBadger
	s := mustOpen(t, o)
	val := make([]byte, 64)
	rng := rand.New(rand.NewPCG(1, 2))
	b := s.NewBatch()
	put := func(key string) {
		for j := range val { // incompressible
			val[j] = byte(rng.Uint32())
		}
		b.Put([]byte(key), val)
		if b.Len() == 1000 {
			require.NoError(t, s.Apply(b))
			b.Reset()
		}
	}
	for i := 0; i < n; i++ {
		put(fmt.Sprintf("old|%09d", i))
	}
	for i := 0; i < 1000; i++ {
		put(fmt.Sprintf("kept|%06d", i))
	}
	require.NoError(t, s.Apply(b))
	require.NoError(t, s.Compact())
	require.NoError(t, s.Close())
	before := dirSize(t, dir)

	s = mustOpen(t, o)
	wal := countWALRecords(t, s)
	st0 := s.Stats()
	require.NoError(t, s.DeleteRange([]byte("old|"), []byte("old}")))
	st1 := s.Stats()
	assert.Equal(t, wal+1, countWALRecords(t, s), "WAL records written by one DeleteRange")
	assert.Equal(t, st0.MemCells, st1.MemCells, "cells written by one DeleteRange")
	assert.Equal(t, int64(1), st1.RangeDels)
	_, err := s.Get([]byte("old|000000042"))
	require.ErrorIs(t, err, ErrNotFound)
	it := s.NewIterator(IterOptions{})
	require.True(t, it.First())
	assert.Equal(t, "kept|000000", string(it.Key()))
	require.NoError(t, it.Close())

	require.NoError(t, s.Compact())
	st2 := s.Stats()
	assert.Equal(t, int64(1000), st2.Cells, "cells after Compact")
	assert.Equal(t, int64(0), st2.RangeDels, "range tombstones after Compact")
	require.NoError(t, s.Close())
	// The deleted blocks may lie in the value-log file Badger still
	// writes, which GC does not touch; Open starts a new one and
	// collects it.
	s = mustOpen(t, o)
	require.NoError(t, s.Close())
	after := dirSize(t, dir)
	t.Logf("%d cells deleted by one DeleteRange: segment bytes %d -> %d; files %d -> %d bytes after Compact, Close and an Open",
		n, st0.BytesStored, st2.BytesStored, before, after)
	// Badger keeps a 1 MiB DISCARD file whatever the data.
	require.Less(t, after-1<<20, (before-1<<20)/10, "files after the range delete and Compact")
	require.Less(t, st2.BytesStored, st0.BytesStored/50, "live segment bytes")

	s = mustOpen(t, o)
	got, err := scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	assert.Len(t, got, 1000, "after reopen")
	require.NoError(t, s.Close())
}
