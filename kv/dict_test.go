package kv

import (
	"math/rand/v2"
	"slices"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/segwrite"
	"github.com/stretchr/testify/require"
)

// dictStore opens a Store in dir with small memstores, no background
// compaction and DictSize dictSize.
func dictStore(t testing.TB, dir string, dictSize int) *Store {
	t.Helper()
	o := DefaultOptions(dir)
	o.DictSize = dictSize
	o.MemstoreSize = 1 << 20
	o.CompactionTrigger = -1
	s, err := Open(o)
	require.NoError(t, err)
	return s
}

func putAll(t testing.TB, s *Store, d *dataset) {
	t.Helper()
	b := s.NewBatch()
	for i := range d.keys {
		b.Put(d.keys[i], d.vals[i])
		if b.Len() == 500 || i == len(d.keys)-1 {
			require.NoError(t, s.Apply(b))
			b = s.NewBatch()
		}
	}
	require.NoError(t, s.Flush())
}

// requireAll checks every cell of d by Get and by a full scan.
func requireAll(t *testing.T, s *Store, d *dataset) {
	t.Helper()
	for i := range d.keys {
		v, err := s.Get(d.keys[i])
		require.NoError(t, err)
		require.Equal(t, d.vals[i], v)
	}
	it := s.NewIterator(IterOptions{})
	n := 0
	for ok := it.First(); ok; ok = it.Next() {
		require.Equal(t, d.keys[n], it.Key())
		require.Equal(t, d.vals[n], it.Value())
		n++
	}
	require.NoError(t, it.Close())
	require.Equal(t, len(d.keys), n)
}

func segBytes(s *Store) (n uint64) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, g := range s.segs {
		n += g.Meta.Bytes
	}
	return n
}

// TestSegmentDict: flushes and compactions give their segments a
// dictionary that survives reopening, the blocks read back through it,
// and they are smaller than blocks that carry their own.
func TestSegmentDict(t *testing.T) {
	d := lineitemRows(rand.New(rand.NewPCG(3, 4)), 20000)
	sizes := map[int]uint64{}
	for _, dictSize := range []int{0, -1} {
		dir := t.TempDir()
		s := dictStore(t, dir, dictSize)
		putDescending(t, s, d, 4000)
		segs := liveSegs(s)
		require.Len(t, segs, 5)
		for _, g := range segs {
			require.Len(t, g.Parts, 1)
			if dictSize < 0 {
				require.Nil(t, g.DictFor(0))
				require.Empty(t, g.Meta.Parts[0].Dict)
				continue
			}
			require.NotNil(t, g.DictFor(0))
			require.GreaterOrEqual(t, len(g.Meta.Parts[0].Dict), segwrite.MinDict)
			require.LessOrEqual(t, len(g.Meta.Parts[0].Dict), DefaultDictSize)
		}
		requireAll(t, s, d)
		require.NoError(t, s.Compact())
		s.mu.RLock()
		require.Len(t, s.segs, 1)
		g := s.segs[0]
		s.mu.RUnlock()
		requireDicts(t, g, dictSize >= 0)
		sizes[dictSize] = segBytes(s)
		requireAll(t, s, d)
		require.NoError(t, s.Close())

		s = dictStore(t, dir, dictSize)
		s.mu.RLock()
		g = s.segs[0]
		s.mu.RUnlock()
		requireDicts(t, g, dictSize >= 0)
		requireAll(t, s, d)
		require.NoError(t, s.Close())
	}
	require.Less(t, sizes[0], sizes[-1], "segment bytes with a dictionary against without")
}

// requireDicts checks that every part of g has a dictionary (want) or
// none has.
func requireDicts(t *testing.T, g *segment.Segment, want bool) {
	t.Helper()
	require.NotEmpty(t, g.Parts)
	for i, p := range g.Parts {
		require.Equal(t, want, p.Dict != nil, "part %d", i)
		require.Equal(t, want, len(g.Meta.Parts[i].Dict) > 0, "part %d", i)
	}
}

// TestSegmentDictSmall: a segment too small for a dictionary has none.
func TestSegmentDictSmall(t *testing.T) {
	d := lineitemRows(rand.New(rand.NewPCG(5, 6)), 50)
	s := dictStore(t, t.TempDir(), 0)
	defer s.Close()
	putAll(t, s, d)
	s.mu.RLock()
	require.Len(t, s.segs, 1)
	requireDicts(t, s.segs[0], false)
	s.mu.RUnlock()
	requireAll(t, s, d)
}

// TestSegmentDictMismatch: a dictionary that is not the one its meta
// names (its bytes changed under its key) makes Open fail with
// ErrCorrupt; one that the meta names but the blocks were not compressed
// against (meta and dictionary both rewritten, their checksums right)
// makes reads of those blocks fail with ErrCorrupt, not return wrong
// values.
func TestSegmentDictMismatch(t *testing.T) {
	d := lineitemRows(rand.New(rand.NewPCG(7, 8)), 5000)
	dir := t.TempDir()
	s := dictStore(t, dir, 0)
	putAll(t, s, d)
	require.NoError(t, s.Compact())
	s.mu.RLock()
	m := s.segs[0].Meta
	s.mu.RUnlock()
	require.NotEmpty(t, m.Parts[0].Dict)
	m.Parts = slices.Clone(m.Parts)
	bad := slices.Clone(m.Parts[0].Dict)
	bad[len(bad)/2] ^= 1
	db := badgerDB(s)
	require.NoError(t, db.Update(func(txn *badger.Txn) error {
		return txn.Set(s.keys.Dict(m.ID, 0), bad)
	}))
	require.NoError(t, s.Close())
	o := DefaultOptions(dir)
	o.DictSize = 0
	_, err := Open(o)
	requireCorrupt(t, err)

	// The meta rewritten to name the changed dictionary.
	m.Parts[0] = segment.NewPart(m.Parts[0].Blocks, bad)
	bdb, err := badger.Open(badger.DefaultOptions(dir).WithLogger(nil))
	require.NoError(t, err)
	require.NoError(t, bdb.Update(func(txn *badger.Txn) error {
		return txn.Set(s.keys.Meta(m.ID), m.Append(nil))
	}))
	require.NoError(t, bdb.Close())
	s = dictStore(t, dir, 0)
	defer s.Close()
	_, err = s.Get(d.keys[0])
	requireCorrupt(t, err)
	it := s.NewIterator(IterOptions{})
	for ok := it.First(); ok; ok = it.Next() {
	}
	requireCorrupt(t, it.Close())
}
