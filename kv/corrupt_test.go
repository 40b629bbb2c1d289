package kv

import (
	"fmt"
	"math/rand/v2"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/stretchr/testify/require"
)

// keysWith returns the keys of db that start with p, in order.
func keysWith(t *testing.T, db *badger.DB, p []byte) [][]byte {
	t.Helper()
	var out [][]byte
	err := db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: p})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			out = append(out, it.Item().KeyCopy(nil))
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// flip xors one byte of key's value (at off modulo its length) with x and
// returns the value's length.
func flip(t *testing.T, db *badger.DB, key []byte, off int, x byte) int {
	t.Helper()
	n := 0
	err := db.Update(func(txn *badger.Txn) error {
		item, err := txn.Get(key)
		if err != nil {
			return err
		}
		v, err := item.ValueCopy(nil)
		if err != nil {
			return err
		}
		n = len(v)
		v[off%len(v)] ^= x
		return txn.Set(key, v)
	})
	require.NoError(t, err)
	return n
}

// requireCorrupt: err wraps both kv's and blockenc's ErrCorrupt.
func requireCorrupt(t *testing.T, err error, msgAndArgs ...any) {
	t.Helper()
	require.ErrorIs(t, err, ErrCorrupt, msgAndArgs...)
	require.ErrorIs(t, err, blockenc.ErrCorrupt, msgAndArgs...)
}

func TestCorruptBlocks(t *testing.T) {
	db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	require.NoError(t, err)
	defer db.Close()
	o := testOptions("")
	o.Prefix = []byte("c/")
	s, err := Wrap(db, o)
	require.NoError(t, err)
	m := model{}
	for i := 0; i < 2000; i++ {
		k, v := fmt.Sprintf("key%05d", i), fmt.Sprintf("value-%d", i*i)
		require.NoError(t, s.Put([]byte(k), []byte(v)))
		m[k] = v
	}
	require.NoError(t, s.Compact())
	require.NoError(t, s.Close())

	blocks := keysWith(t, db, layout.NewKeys(o.Prefix).Tag(layout.TagSegment))
	require.GreaterOrEqual(t, len(blocks), 10, "blocks; want many")
	segHdr := len(layout.NewKeys(o.Prefix).Tag(layout.TagSegment)) + 8
	all := m.rangeOf(nil, nil)
	rng := rand.New(rand.NewPCG(5, 5))
	for trial := 0; trial < 12; trial++ {
		restore := setReadAhead(trial%2 == 1) // scans with and without a reader goroutine
		bi := rng.IntN(len(blocks))
		off, x := rng.IntN(1<<20), byte(1+rng.IntN(255))
		flip(t, db, blocks[bi], off, x)

		s, err := Wrap(db, o) // a cold cache
		require.NoError(t, err)
		lo := ""
		if bi > 0 {
			lo = string(blocks[bi-1][segHdr:])
		}
		hi := string(blocks[bi][segHdr:])
		for _, p := range all {
			v, err := s.Get([]byte(p[0]))
			inBad := p[0] > lo && p[0] <= hi || bi == 0 && p[0] <= hi
			if inBad {
				requireCorrupt(t, err, "trial %d: Get(%q) in the corrupt block = %q", trial, p[0], v)
			} else {
				require.NoError(t, err, "trial %d: Get(%q)", trial, p[0])
				require.Equal(t, p[1], string(v), "trial %d: Get(%q)", trial, p[0])
			}
		}
		it := s.NewIterator(IterOptions{})
		n := 0
		for ok := it.First(); ok; ok = it.Next() {
			require.Equal(t, all[n], [2]string{string(it.Key()), string(it.Value())}, "trial %d: scan pair %d", trial, n)
			n++
		}
		requireCorrupt(t, it.Err(), "trial %d: scan ended after %d pairs", trial, n)
		requireCorrupt(t, it.Close(), "trial %d: Close did not report the error", trial)
		// Backward the same: the pairs after the bad block, then the error.
		back := reversed(all)
		it = s.NewIterator(IterOptions{})
		n = 0
		for ok := it.Last(); ok; ok = it.Prev() {
			require.Equal(t, back[n], [2]string{string(it.Key()), string(it.Value())}, "trial %d: backward scan pair %d", trial, n)
			n++
		}
		requireCorrupt(t, it.Err(), "trial %d: backward scan ended after %d pairs", trial, n)
		requireCorrupt(t, it.Close(), "trial %d: Close did not report the backward error", trial)
		// A seek past the bad block still works, either way.
		if bi+1 < len(blocks) {
			it := s.NewIterator(IterOptions{LowerBound: []byte(hi + "\x00")})
			require.True(t, it.First(), "trial %d: seek past the corrupt block: %v", trial, it.Err())
			require.NoError(t, it.Err(), "trial %d: seek past the corrupt block", trial)
			it.Close()
		}
		if bi > 0 {
			it := s.NewIterator(IterOptions{})
			require.True(t, it.SeekLT([]byte(lo)), "trial %d: SeekLT before the corrupt block: %v", trial, it.Err())
			require.NoError(t, it.Err(), "trial %d: SeekLT before the corrupt block", trial)
			it.Close()
		}
		require.NoError(t, s.Close())
		flip(t, db, blocks[bi], off, x) // repair
		restore()
	}

	// A flipped meta, a flipped WAL record and a missing block make Wrap
	// fail with ErrCorrupt.
	var metas [][]byte // of live segments: a compacted-away one is segment.Replaced
	for _, k := range keysWith(t, db, layout.NewKeys(o.Prefix).Tag(layout.TagMeta)) {
		require.NoError(t, db.View(func(txn *badger.Txn) error {
			item, err := txn.Get(k)
			if err == nil && item.ValueSize() > int64(len(segment.Replaced)) {
				metas = append(metas, k)
			}
			return err
		}))
	}
	require.NotEmpty(t, metas)
	flip(t, db, metas[0], 9, 0x40)
	_, err = Wrap(db, o)
	requireCorrupt(t, err, "Wrap with a corrupt meta")
	flip(t, db, metas[0], 9, 0x40)

	s, err = Wrap(db, o)
	require.NoError(t, err)
	require.NoError(t, s.Put([]byte("wal"), []byte("record")))
	// Leave the record in the WAL: drop the store without Close.
	wal := keysWith(t, db, layout.NewKeys(o.Prefix).Tag(layout.TagWAL))
	require.Len(t, wal, 1, "WAL keys")
	s.closed.Store(true)
	close(s.quit)
	<-s.bgDone
	s.release()
	flip(t, db, wal[0], 12, 0x01)
	_, err = Wrap(db, o)
	requireCorrupt(t, err, "Wrap with a corrupt WAL record")
	flip(t, db, wal[0], 12, 0x01)
	s, err = Wrap(db, o)
	require.NoError(t, err)
	v, err := s.Get([]byte("wal"))
	require.NoError(t, err, "replayed Get")
	require.Equal(t, "record", string(v), "replayed Get")
	require.NoError(t, s.Close())

	blocks = keysWith(t, db, layout.NewKeys(o.Prefix).Tag(layout.TagSegment))
	require.NoError(t, db.Update(func(txn *badger.Txn) error { return txn.Delete(blocks[3]) }))
	_, err = Wrap(db, o)
	requireCorrupt(t, err, "Wrap with a missing block")

}
