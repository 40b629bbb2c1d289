package badgereng

import (
	"bytes"
	"fmt"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
)

// TestValueLogGCResurrects pins the Badger v4.9.6 behaviour that kv's
// segment metas defend against (a compacted-away meta is overwritten with
// an empty value, never deleted): value-log GC gives a deleted key its old
// value back. The rewrite (value.go, valueLog.rewrite) looks a value up at
// its own version (DB.get of key+ts finds the newest version at or below
// it, not the tombstone above it), finds it still in the LSM and writes it
// back at that version into the memtable, above the tombstone. A
// compaction then takes the tombstone and the old version into the last
// level and drops both (levels.go, subcompact: a deleted key with no
// overlap below), and the copy is all that is left.
func TestValueLogGCResurrects(t *testing.T) {
	dir := t.TempDir()
	open := func() *badger.DB {
		db, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil).
			WithValueThreshold(64).WithNumCompactors(0))
		require.NoError(t, err)
		return db
	}
	set := func(db *badger.DB, k, v []byte) {
		require.NoError(t, db.Update(func(txn *badger.Txn) error { return txn.Set(k, v) }))
	}
	get := func(db *badger.DB, k []byte) error {
		return db.View(func(txn *badger.Txn) error { _, err := txn.Get(k); return err })
	}
	db := open()
	big := bytes.Repeat([]byte("v"), 1000)
	key := []byte("key")
	set(db, key, big)
	for i := range 100 {
		set(db, fmt.Appendf(nil, "x%03d", i), big) // garbage to be, in the same value log file
	}
	// Every table into the last level (DropPrefix flushes the memtable
	// and compacts level 0), then the x keys dropped: their value log
	// bytes count as discarded, so GC picks the file.
	set(db, []byte("zz"), nil)
	require.NoError(t, db.DropPrefix([]byte("zz")))
	require.NoError(t, db.DropPrefix([]byte("x")))
	require.NoError(t, db.Update(func(txn *badger.Txn) error { return txn.Delete(key) }))
	require.ErrorIs(t, get(db, key), badger.ErrKeyNotFound)
	// The tombstone goes to a level 0 table (Close flushes the memtable);
	// Open starts a new value log file, so the old one can be rewritten.
	require.NoError(t, db.Close())
	db = open()
	defer db.Close()
	require.ErrorIs(t, get(db, key), badger.ErrKeyNotFound)
	require.NoError(t, db.RunValueLogGC(0.5))
	require.ErrorIs(t, get(db, key), badger.ErrKeyNotFound, "after GC")
	// Level 0 into the last level: the tombstone and the old version go.
	require.NoError(t, db.Flatten(1))
	require.NoError(t, get(db, key), "the deleted key is back")
}
