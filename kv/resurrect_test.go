package kv

import (
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/stretchr/testify/require"
)

// TestCompactedMetaStaysGone replays, step by step on a Badger DB, how
// value-log GC gives a compacted-away segment meta its old value back
// (badgereng's TestValueLogGCResurrects shows it on a bare key): a segment
// with a key, a newer one deleting it, a compaction that drops both (its
// meta transaction replaces theirs), then GC of the value log file that
// holds their metas and blocks while the compaction's writes are in level
// 0, and a compaction of level 0 into the last level. The Store opened
// afterwards must not see the old segments (without the replaced-meta
// markers it fails, or sees the deleted key), and Reclaim removes the
// markers.
func TestCompactedMetaStaysGone(t *testing.T) {
	dir := t.TempDir()
	bopts := badger.DefaultOptions(dir).WithLogger(nil).WithValueThreshold(32).WithNumCompactors(0)
	openDB := func() *badger.DB {
		db, err := badger.Open(bopts)
		require.NoError(t, err)
		return db
	}
	opts := testOptions("")
	opts.CompactionTrigger = 0
	db := openDB()
	s, err := Wrap(db, opts)
	require.NoError(t, err)
	require.NoError(t, s.Put([]byte("gone"), []byte("deleted value")))
	require.NoError(t, s.Put([]byte("kept"), []byte("kept value")))
	require.NoError(t, s.Flush())
	require.NoError(t, s.Delete([]byte("gone")))
	require.NoError(t, s.Flush())
	big := make([]byte, 1000)
	require.NoError(t, db.Update(func(txn *badger.Txn) error {
		for i := range 100 {
			if err := txn.Set([]byte{'x', byte(i)}, big); err != nil {
				return err
			}
		}
		return txn.Set([]byte("zz"), nil)
	}))
	// Every table into the last level, then the x keys dropped: the value
	// log file holding the metas is then mostly garbage, which GC picks.
	require.NoError(t, db.DropPrefix([]byte("zz")))
	require.NoError(t, db.DropPrefix([]byte("x")))
	require.NoError(t, s.Compact())
	require.NoError(t, s.Close())
	require.NoError(t, db.Close())

	// The compaction's writes are in a level 0 table now, and Open
	// started a new value log file.
	db = openDB()
	defer db.Close()
	require.NoError(t, db.RunValueLogGC(0.5), "GC rewrote the file of the old metas")
	require.NoError(t, db.Flatten(1))

	s, err = Wrap(db, opts)
	require.NoError(t, err, "the old metas are back")
	_, err = s.Get([]byte("gone"))
	require.ErrorIs(t, err, ErrNotFound)
	v, err := s.Get([]byte("kept"))
	require.NoError(t, err)
	require.Equal(t, "kept value", string(v))
	require.Len(t, s.segs, 1, "segments compacted away are back")

	require.NoError(t, s.Reclaim())
	keys := layout.NewKeys(opts.Prefix)
	for id := uint64(1); id < s.segs[0].Meta.ID; id++ {
		err := db.View(func(txn *badger.Txn) error { _, err := txn.Get(keys.Meta(id)); return err })
		require.ErrorIs(t, err, badger.ErrKeyNotFound, "meta of segment %d after Reclaim", id)
	}
	require.NoError(t, s.Close())
}
