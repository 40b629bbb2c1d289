package kv

import (
	"bytes"
	"fmt"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/internal/badgereng"
	"github.com/kvenc/kvenc/kv/internal/layout"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// overlapStore writes n keys "key%06d" into s in four
// rounds (key i in round i%4), a flush after each, no compaction: four
// segments or more whose key ranges all overlap. It returns the keys by round.
func overlapStore(t *testing.T, s *Store, n int) [4][][]byte {
	t.Helper()
	var rounds [4][][]byte
	for r := range rounds {
		for i := r; i < n; i += 4 {
			k := fmt.Appendf(nil, "key%06d", i)
			require.NoError(t, s.Put(k, fmt.Appendf(nil, "value-%d", i)))
			rounds[r] = append(rounds[r], k)
		}
		require.NoError(t, s.Flush())
	}
	require.GreaterOrEqual(t, len(liveSegs(s)), 4)
	return rounds
}

// TestGetSkipsSegmentsByFilter: a Get of a key held by the oldest of four
// overlapping segments reads a block of a newer one only when that
// segment's key filter lets the key through by chance (about 1% of
// keys), and a Get of a key no segment holds reads about as few beside
// the oldest segment's block (the oldest segment has no filter).
func TestGetSkipsSegmentsByFilter(t *testing.T) {
	db, err := badger.Open(smallBadger(badger.DefaultOptions("").WithInMemory(true)).WithLogger(nil))
	require.NoError(t, err)
	defer db.Close()
	eng := &fetchCounter{Engine: badgereng.Wrap(db), fetches: map[string]int{}}
	o := testOptions("")
	o.Prefix = []byte("filter")
	o.CacheSize = -1 // every Get that looks in a block reads it
	o.CompactionTrigger = -1
	s, err := OpenEngine(eng, o)
	require.NoError(t, err)
	defer s.Close()
	rounds := overlapStore(t, s, 8000)
	segs := liveSegs(s)
	for _, g := range segs[:len(segs)-1] {
		require.NotEmpty(t, g.Filters, "segment %d", g.Meta.ID)
	}
	require.Empty(t, segs[len(segs)-1].Filters, "the oldest segment has no filter")
	eng.take()
	for _, k := range rounds[0] {
		v, err := s.Get(k)
		require.NoError(t, err)
		require.True(t, bytes.HasPrefix(v, []byte("value-")))
	}
	fetched := 0
	for _, n := range eng.take() {
		fetched += n
	}
	// One block each from the segment that holds the key, and from each
	// other about 1% of the Gets.
	gets, others := len(rounds[0]), len(liveSegs(s))-1
	assert.GreaterOrEqual(t, fetched, gets)
	assert.Less(t, fetched, gets+gets*others*3/100, "blocks fetched for %d Gets", gets)
	for i := range gets {
		_, err := s.Get(fmt.Appendf(nil, "key%06dx", i))
		require.ErrorIs(t, err, ErrNotFound)
	}
	fetched = 0
	for _, n := range eng.take() {
		fetched += n
	}
	assert.Less(t, fetched, gets+gets*others*3/100, "blocks fetched for %d Gets of absent keys: one of the oldest segment each", gets)
}

// TestMetaV5: a store whose metas have no key filters (meta format
// version 5) reads as before, every block searched; a flush that extends
// such a segment gives the old blocks a run without a filter, and a
// compaction writes a version 6 meta with a filter for its output, while
// the filter keys of the segments it replaced go with their blocks.
func TestMetaV5(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(dir)
	o.CompactionTrigger = -1
	s, err := Open(o)
	require.NoError(t, err)
	m := model{}
	// The oldest segment (no filter), not final (a tombstone), so that
	// the next flush makes a segment of its own.
	putEach(t, s, m, 1000, "a%06d", "value-%d")
	require.NoError(t, s.Delete([]byte("a000007")))
	delete(m, "a000007")
	require.NoError(t, s.Flush())
	putEach(t, s, m, 2000, "b%06d", "value-%d")
	require.NoError(t, s.Flush())
	segs := liveSegs(s)
	require.Len(t, segs, 2)
	require.Empty(t, segs[1].Meta.Filters, "the oldest segment")
	g := segs[0]
	require.NotEmpty(t, g.Meta.Filters)
	db := badgerDB(s)
	require.NoError(t, db.Update(func(txn *badger.Txn) error {
		for k := range keysUnder(t, db, s.keys.FilterSegment(g.Meta.ID)) {
			if err := txn.Delete([]byte(k)); err != nil {
				return err
			}
		}
		return txn.Set(s.keys.Meta(g.Meta.ID), g.Meta.AppendVersion(nil, 5))
	}))
	require.NoError(t, s.Close())

	s, err = Open(o)
	require.NoError(t, err)
	segs = liveSegs(s)
	for _, g := range segs {
		require.Empty(t, g.Filters, "segment %d: a version 5 meta or the oldest", g.Meta.ID)
	}
	requireModel(t, s, m)
	// Keys after every other: the flush extends the newest segment.
	newest := segs[0]
	putEach(t, s, m, 100, "c%06d", "tail-%d")
	require.NoError(t, s.Flush())
	ext := liveSegs(s)[0]
	require.Equal(t, newest.Meta.ID, ext.Meta.ID, "an extension")
	require.Len(t, ext.Meta.Filters, 2)
	assert.Equal(t, segment.FilterRun{Blocks: newest.Meta.Blocks}, ext.Meta.Filters[0], "the version 5 blocks: no filter")
	assert.Greater(t, ext.Meta.Filters[1].Len, uint64(0))
	requireModel(t, s, m)
	// New versions over the first keys: a segment of its own.
	putEach(t, s, m, 500, "b%06d", "new-%d")
	require.NoError(t, s.Flush())
	requireModel(t, s, m)
	require.NoError(t, s.Close())
	s, err = Open(o)
	require.NoError(t, err)
	requireModel(t, s, m)
	require.Equal(t, 2, len(keysUnder(t, badgerDB(s), s.keys.Tag(layout.TagFilter))), "the extension's and the newest segment's filters")

	// A compaction of the newer segments writes a version 6 meta with a
	// filter; one of every segment writes the oldest, without.
	segs = liveSegs(s)
	require.NoError(t, s.compactRun(segs[:2], false))
	out := liveSegs(s)
	require.Len(t, out, 2)
	require.Equal(t, byte(segment.MetaVersion), metaValue(t, badgerDB(s), s, out[0].Meta.ID)[0])
	require.Len(t, out[0].Meta.Filters, 1)
	requireModel(t, s, m)
	require.NoError(t, s.Compact())
	require.Len(t, liveSegs(s), 1)
	require.Empty(t, liveSegs(s)[0].Meta.Filters, "the oldest segment")
	require.NoError(t, s.Close())

	s, err = Open(o)
	require.NoError(t, err)
	defer s.Close()
	requireModel(t, s, m)
	assert.Equal(t, 0, len(keysUnder(t, badgerDB(s), s.keys.Tag(layout.TagFilter))), "filter keys left (the oldest segment has none)")
}

// TestFilterMissing: a store whose key filter key is gone does not open
// (ErrCorrupt); one whose filter bytes differ from the meta's neither.
func TestFilterMissing(t *testing.T) {
	for _, name := range []string{"missing", "changed"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			s, err := Open(testOptions(dir))
			require.NoError(t, err)
			putEach(t, s, model{}, 500, "key%06d", "value-%d")
			require.NoError(t, s.Flush())
			putEach(t, s, model{}, 500, "key%06d", "new-%d")
			require.NoError(t, s.Flush())
			g := liveSegs(s)[0] // the newer, with a filter
			require.Len(t, g.Meta.Filters, 1)
			key := s.keys.Filter(g.Meta.ID, 0)
			require.NoError(t, badgerDB(s).Update(func(txn *badger.Txn) error {
				if name == "missing" {
					return txn.Delete(key)
				}
				v := bytes.Clone(g.Meta.Filters[0].Filter)
				v[len(v)-1] ^= 1
				return txn.Set(key, v)
			}))
			require.NoError(t, s.Close())
			_, err = Open(testOptions(dir))
			requireCorrupt(t, err)
		})
	}
}
