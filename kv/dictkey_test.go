package kv

import (
	"bytes"
	"math/rand/v2"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// metaValue returns the bytes stored under segment id's meta key.
func metaValue(t *testing.T, db *badger.DB, s *Store, id uint64) []byte {
	t.Helper()
	var v []byte
	require.NoError(t, db.View(func(txn *badger.Txn) error {
		item, err := txn.Get(s.keys.Meta(id))
		if err != nil {
			return err
		}
		v, err = item.ValueCopy(nil)
		return err
	}))
	return v
}

// dictKeys returns the dictionary keys under segment id and their values.
func dictKeys(t *testing.T, db *badger.DB, s *Store, id uint64) map[string][]byte {
	t.Helper()
	return keysUnder(t, db, s.keys.DictSegment(id))
}

// keysUnder returns the keys that start with p and their values.
func keysUnder(t *testing.T, db *badger.DB, p []byte) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	require.NoError(t, db.View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: p})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			v, err := it.Item().ValueCopy(nil)
			if err != nil {
				return err
			}
			out[string(it.Item().KeyCopy(nil))] = v
		}
		return nil
	}))
	return out
}

// TestDictKeys: a load in key order makes one segment of one part whose
// dictionary is stored once, under the part's key, and not in the meta,
// which an extension writes again and which stays small; a store whose
// dictionary key is gone does not open (ErrCorrupt).
func TestDictKeys(t *testing.T) {
	d := lineitemRows(rand.New(rand.NewPCG(21, 22)), 20000)
	dir := t.TempDir()
	s := dictStore(t, dir, 0)
	putAll(t, s, d)
	require.Greater(t, s.Stats().Flushes, int64(2))
	segs := liveSegs(s)
	require.Len(t, segs, 1)
	g := segs[0]
	require.Len(t, g.Meta.Parts, 1)
	dict := g.Meta.Parts[0].Dict
	require.Greater(t, len(dict), 1<<10)
	db := badgerDB(s)
	meta := metaValue(t, db, s, g.Meta.ID)
	assert.Less(t, len(meta), 512, "the meta without its dictionary")
	m, err := segment.DecodeMeta(meta)
	require.NoError(t, err)
	assert.Equal(t, uint64(len(dict)), m.Parts[0].DictLen)
	keys := dictKeys(t, db, s, g.Meta.ID)
	require.Len(t, keys, 1)
	assert.True(t, bytes.Equal(dict, keys[string(s.keys.Dict(g.Meta.ID, 0))]), "the part's dictionary under its key")
	require.NoError(t, s.Close())

	s = dictStore(t, dir, 0)
	requireAll(t, s, d)
	require.NoError(t, badgerDB(s).Update(func(txn *badger.Txn) error { return txn.Delete(s.keys.Dict(g.Meta.ID, 0)) }))
	require.NoError(t, s.Close())
	o := DefaultOptions(dir)
	_, err = Open(o)
	requireCorrupt(t, err)
}

// TestMetaV4: a store whose metas hold their dictionaries inline (meta
// format version 4) reads as before; its compaction with a newer segment
// writes a version 5 meta whose parts' dictionaries have keys of their
// own, and the dictionary keys of the segments it replaced go with their
// blocks.
func TestMetaV4(t *testing.T) {
	d := lineitemRows(rand.New(rand.NewPCG(23, 24)), 20000)
	first := &dataset{keys: d.keys[:10000], vals: d.vals[:10000]}
	dir := t.TempDir()
	s := dictStore(t, dir, 0)
	putAll(t, s, first)
	g := liveSegs(s)[0]
	require.Greater(t, len(g.Meta.Parts[0].Dict), 0)
	db := badgerDB(s)
	require.NoError(t, db.Update(func(txn *badger.Txn) error {
		if err := txn.Delete(s.keys.Dict(g.Meta.ID, 0)); err != nil {
			return err
		}
		return txn.Set(s.keys.Meta(g.Meta.ID), g.Meta.AppendVersion(nil, 4))
	}))
	require.NoError(t, s.Close())

	s = dictStore(t, dir, 0)
	v4 := liveSegs(s)[0]
	assert.True(t, bytes.Equal(g.Meta.Parts[0].Dict, v4.Meta.Parts[0].Dict), "the version 4 meta's dictionary")
	requireAll(t, s, first)
	// The second half, over the first half's keys too (new versions of
	// every tenth), so that it is merged while the first is copied.
	second := &dataset{keys: d.keys, vals: append([][]byte(nil), d.vals...)}
	changed := &dataset{}
	for i := range d.keys {
		if i >= 10000 || i%10 == 0 {
			if i < 10000 {
				second.vals[i] = []byte("new value")
			}
			changed.keys = append(changed.keys, d.keys[i])
			changed.vals = append(changed.vals, second.vals[i])
		}
	}
	putAll(t, s, changed)
	require.NoError(t, s.Compact())
	out := liveSegs(s)
	require.Len(t, out, 1)
	db = badgerDB(s)
	m, err := segment.DecodeMeta(metaValue(t, db, s, out[0].Meta.ID))
	require.NoError(t, err)
	require.Equal(t, byte(segment.MetaVersion), metaValue(t, db, s, out[0].Meta.ID)[0])
	keys := dictKeys(t, db, s, out[0].Meta.ID)
	for i, pt := range m.Parts {
		if pt.DictLen > 0 {
			assert.True(t, bytes.Equal(out[0].Meta.Parts[i].Dict, keys[string(s.keys.Dict(out[0].Meta.ID, uint32(i)))]), "part %d", i)
		}
	}
	requireAll(t, s, second)
	require.NoError(t, s.Close())
	s = dictStore(t, dir, 0)
	defer s.Close()
	requireAll(t, s, second)
	n := 0
	require.NoError(t, badgerDB(s).View(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{Prefix: s.keys.Tag(layout.TagDict)})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			n++
		}
		return nil
	}))
	assert.Equal(t, len(keys), n, "dictionary keys left: the compaction output's")
}
