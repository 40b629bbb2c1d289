package kv

import (
	"bytes"
	"fmt"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/internal/badgereng"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dump returns every key/value of db.
func dump(t *testing.T, db *badger.DB) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.DefaultIteratorOptions)
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[string(it.Item().Key())] = string(v)
		}
		return nil
	})
	require.NoError(t, err)
	return out
}

// withoutStores returns the keys of m outside the namespaces and registry
// entries of stores with the given prefixes.
func withoutStores(m map[string]string, prefixes ...string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	for _, p := range prefixes {
		for k := range out {
			if bytes.HasPrefix([]byte(k), layout.NewKeys([]byte(p)).NS) || k == string(layout.RegistryKey([]byte(p))) {
				delete(out, k)
			}
		}
	}
	return out
}

// setKeys writes the key/values of m into db.
func setKeys(t *testing.T, db *badger.DB, m map[string]string) {
	t.Helper()
	require.NoError(t, db.Update(func(txn *badger.Txn) error {
		for k, v := range m {
			if err := txn.Set([]byte(k), []byte(v)); err != nil {
				return err
			}
		}
		return nil
	}))
}

func TestWrapLeavesOtherKeysAlone(t *testing.T) {
	db, err := badger.Open(smallBadger(badger.DefaultOptions(t.TempDir())).WithLogger(nil).WithValueThreshold(1 << 10))
	require.NoError(t, err)
	defer db.Close()
	prefix := []byte("kv/")
	// The caller's keys, many right next to the prefix, the namespace and
	// kv's tags.
	mine := map[string]string{
		"kv": "a", "kv.": "b", "kv0": "c", "ku\xff": "d", "kw": "e", "kv/": "k", "kv/s": "l", "kv/m00000000": "m",
		"kv\x00": "f", "s": "g", "m": "h", "w": "i", "kvs": "j", "big": string(make([]byte, 5000)),
		"kv/\x01": "n", "kv/w0000000000": "o", "\xffkvenc/store/": "p", "\xffkvenc/store/kv": "q",
	}
	setKeys(t, db, mine)

	o := testOptions("")
	o.Prefix = prefix
	m := model{}
	for round := 0; round < 3; round++ {
		s, err := Wrap(db, o)
		require.NoError(t, err)
		for i := 0; i < 3000; i++ {
			k := fmt.Sprintf("k%04d", (i*7919)%1200)
			if i%5 == 4 {
				require.NoError(t, s.Delete([]byte(k)))
				delete(m, k)
				continue
			}
			v := fmt.Sprintf("r%d-%d", round, i)
			require.NoError(t, s.Put([]byte(k), []byte(v)))
			m[k] = v
		}
		require.NoError(t, s.Flush())
		require.NoError(t, s.Compact())
		got, err := scan(s.NewIterator(IterOptions{}))
		require.NoError(t, err)
		require.Equal(t, m.rangeOf(nil, nil), got, "round %d", round)
		n, _ := s.ForeignKeys()
		require.Zero(t, n)
		require.NoError(t, s.Close())
		require.ErrorIs(t, s.Put([]byte("x"), nil), ErrClosed)
		// db is still open, and the caller's keys are exactly as they were.
		all := dump(t, db)
		require.Equal(t, mine, withoutStores(all, string(prefix)), "round %d", round)
		require.Equal(t, "\x02", all[string(layout.RegistryKey(prefix))])
		require.Greater(t, len(all), len(mine)+1, "round %d: no kv keys in the DB", round)
	}
	_, err = Wrap(db, Options{})
	require.ErrorIs(t, err, ErrInvalidOptions)
	require.False(t, badgereng.Managed(db), "a normal DB reported as managed")
	mdb, err := badger.OpenManaged(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	require.NoError(t, err)
	defer mdb.Close()
	_, err = Wrap(mdb, o)
	require.ErrorIs(t, err, ErrInvalidOptions)
}

// A segment whose meta was never written (a flush or compaction cut short)
// is invisible and removed at Open; WAL records at or below the flushed seq
// are removed too. Keys in the namespace that are not in the store's
// format are reported and left alone.
func TestOpenRemovesPartialSegments(t *testing.T) {
	db, err := badger.Open(badger.DefaultOptions("").WithInMemory(true).WithLogger(nil))
	require.NoError(t, err)
	defer db.Close()
	o := testOptions("")
	o.Prefix = []byte("p/")
	s, err := Wrap(db, o)
	require.NoError(t, err)
	for i := 0; i < 100; i++ {
		require.NoError(t, s.Put([]byte(fmt.Sprintf("k%03d", i)), []byte("v")))
	}
	require.NoError(t, s.Close())
	k := layout.NewKeys(o.Prefix)
	orphan := [][]byte{k.Block(999, []byte("k050")), k.Block(999, []byte("k099")), k.WAL(1, 0)}
	foreign := map[string]string{
		"p/\x00": "1", "p/\x00a": "2", "p/\x00s1234567": "3", "p/\x00m123456789": "4",
		"p/\x00w12345678": "5", "p/\x00z": "6", "p/\x00\xff": "7",
	}
	require.NoError(t, db.Update(func(txn *badger.Txn) error {
		for _, key := range orphan {
			if err := txn.Set(key, []byte("garbage")); err != nil {
				return err
			}
		}
		return nil
	}))
	setKeys(t, db, foreign)
	s, err = Wrap(db, o)
	require.NoError(t, err)
	defer s.Close()
	all := dump(t, db)
	for _, key := range orphan {
		assert.NotContains(t, all, string(key), "still there after Open")
	}
	for key, v := range foreign {
		assert.Equal(t, v, all[key], "foreign key %q", key)
	}
	n, first := s.ForeignKeys()
	assert.Equal(t, int64(len(foreign)), n)
	var got []string
	for _, k := range first {
		got = append(got, string(k))
	}
	assert.ElementsMatch(t, []string{"p/\x00", "p/\x00a", "p/\x00s1234567", "p/\x00m123456789", "p/\x00w12345678", "p/\x00z", "p/\x00\xff"}, got)
	pairs, err := scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	assert.Len(t, pairs, 100)
	assert.GreaterOrEqual(t, s.nextSegID.Load(), uint64(999), "next segment id reuses the orphan's id")
}
