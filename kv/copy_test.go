package kv

import (
	"fmt"
	"math/rand/v2"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/segwrite"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// segBlocks returns the bytes of every block of g, in order.
func segBlocks(t testing.TB, s *Store, g *segment.Segment) []string {
	t.Helper()
	var out []string
	for i := range g.BlockKeys {
		require.NoError(t, s.rd.ViewBlock(g, i, viewFn(func(v []byte) { out = append(out, string(v)) })))
	}
	return out
}

// liveSegs returns the Store's segments, newest first.
func liveSegs(s *Store) []*segment.Segment {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]*segment.Segment(nil), s.segs...)
}

// putDescending writes d in runs of n cells, the last run first, and
// flushes after each: every flush holds keys no segment holds
// (flushBlock's final), but none extends the one before (extendable).
func putDescending(t *testing.T, s *Store, d *dataset, n int) {
	t.Helper()
	for hi := len(d.keys); hi > 0; hi -= n {
		b := s.NewBatch()
		for i := max(0, hi-n); i < hi; i++ {
			b.Put(d.keys[i], d.vals[i])
		}
		require.NoError(t, s.Apply(b))
		require.NoError(t, s.Flush())
	}
}

// TestCompactCopiesBlocks: flushes of keys no segment holds are written at
// the compaction's settings, and Compact then copies those blocks into
// one segment, byte for byte, each run keeping its dictionary; it reads
// back whole, also after reopening. A flush whose dictionary has the full
// DictSize hands it to the next such flush: with a small DictSize every
// segment has the first one's, and the copy is one part.
func TestCompactCopiesBlocks(t *testing.T) {
	d := lineitemRows(rand.New(rand.NewPCG(9, 10)), 20000)
	for _, dictSize := range []int{0, 4 << 10} {
		t.Run(fmt.Sprintf("DictSize=%d", dictSize), func(t *testing.T) {
			dir := t.TempDir()
			s := dictStore(t, dir, dictSize)
			putDescending(t, s, d, 4000)
			segs := liveSegs(s)
			require.Len(t, segs, 5)
			want := s.opts.blockSettings(s.opts.compactionBlock())
			var blocks []string
			dicts := map[string]bool{}
			for _, g := range segs { // newest first: key order
				require.Equal(t, want, g.Meta.Settings, "segment %d settings", g.Meta.ID)
				require.Len(t, g.Meta.Parts, 1)
				dicts[string(g.Meta.Parts[0].Dict)] = true
				blocks = append(blocks, segBlocks(t, s, g)...)
			}
			parts := len(segs)
			if dictSize > 0 {
				parts = 1
			}
			require.Len(t, dicts, parts, "distinct dictionaries")

			require.NoError(t, s.Compact())
			out := liveSegs(s)
			require.Len(t, out, 1)
			g := out[0]
			assert.Len(t, g.Parts, parts, "parts: one per distinct dictionary copied in a row")
			requireDicts(t, g, true)
			assert.Equal(t, blocks, segBlocks(t, s, g), "blocks copied as they were")
			assert.Equal(t, uint64(len(d.keys)), g.Meta.Cells)
			assert.Equal(t, uint64(len(d.keys)), g.Meta.Keys)
			requireAll(t, s, d)
			require.NoError(t, s.Close())

			s = dictStore(t, dir, dictSize)
			defer s.Close()
			out = liveSegs(s)
			require.Len(t, out, 1)
			assert.Len(t, out[0].Parts, parts)
			requireAll(t, s, d)
		})
	}
}

// TestCompactCopiesAndMerges: Compact copies the segment that no other one
// reaches into and merges the ones that overlap or hold tombstones,
// dropping the versions and tombstones no reader needs; a segment flushed over keys another
// segment holds is written at Block's settings.
func TestCompactCopiesAndMerges(t *testing.T) {
	dir := t.TempDir()
	o := DefaultOptions(dir)
	o.CompactionTrigger = -1
	open := func() *Store { return mustOpen(t, o) }
	s := open()
	m := model{}
	put := func(lo, hi int, round int) {
		b := s.NewBatch()
		for i := lo; i < hi; i++ {
			k := fmt.Sprintf("key%06d", i)
			v := fmt.Sprintf("round %d value %d of the regular deposits %d", round, i, i%97)
			b.Put([]byte(k), []byte(v))
			m[k] = v
		}
		require.NoError(t, s.Apply(b))
		require.NoError(t, s.Flush())
	}
	put(10000, 20000, 1) // b: overlapped by c
	put(0, 10000, 1)     // a: copied (not an extension of b: its keys sort first)
	put(15000, 15500, 2) // c
	require.NoError(t, s.Delete([]byte("key019999")))
	delete(m, "key019999")
	require.NoError(t, s.Flush())
	// A tombstone over no Key: in a segment of its own, which no other
	// one reaches into, but not copied, as it can go.
	require.NoError(t, s.Delete([]byte("key900000")))
	require.NoError(t, s.Flush())
	segs := liveSegs(s)
	require.Len(t, segs, 5)
	b, a, c, del, lone := segs[4], segs[3], segs[2], segs[1], segs[0]
	require.Equal(t, s.opts.blockSettings(s.opts.compactionBlock()), lone.Meta.Settings)
	assert.Equal(t, uint64(1), lone.Meta.Tombstones)
	want := s.opts.blockSettings(s.opts.compactionBlock())
	require.Equal(t, want, a.Meta.Settings)
	require.Equal(t, want, b.Meta.Settings)
	require.NotEqual(t, want, c.Meta.Settings, "a flush over keys a segment holds")
	require.NotEqual(t, want, del.Meta.Settings)
	assert.Equal(t, uint64(0), c.Meta.Tombstones)
	assert.Equal(t, uint64(1), del.Meta.Tombstones)
	aBlocks := segBlocks(t, s, a)

	require.NoError(t, s.Compact())
	out := liveSegs(s)
	require.Len(t, out, 1)
	g := out[0]
	require.Len(t, g.Parts, 2, "a's part, then the merged one")
	assert.Equal(t, aBlocks, segBlocks(t, s, g)[:len(aBlocks)], "a's blocks copied as they were")
	assert.Equal(t, len(aBlocks), g.Parts[1].First)
	assert.Equal(t, uint64(len(m)), g.Meta.Cells, "older versions and the tombstone dropped")
	assert.Equal(t, uint64(0), g.Meta.Tombstones)
	check := func(s *Store) {
		got, err := scan(s.NewIterator(IterOptions{}))
		require.NoError(t, err)
		require.Equal(t, m.rangeOf(nil, nil), got)
		for _, k := range []string{"key000000", "key009999", "key010000", "key015000", "key015499", "key015500", "key019998", "key019999"} {
			v, err := s.Get([]byte(k))
			requireGet(t, v, err, m, k)
		}
	}
	check(s)
	require.NoError(t, s.Close())
	s = open()
	defer s.Close()
	check(s)
}

// TestFlushExtends: a load in key order makes one segment, each flush
// appending its blocks to the segment before (extendable), at the
// compaction's settings and with the dictionary of the first flush. A
// snapshot taken between two flushes reads what it saw, and so does an
// iterator opened then and read after the extension (the segments share
// their blocks' life) and Compact, which leaves the one segment as it is;
// everything reads back, also after reopening; blocks and a dictionary an
// extension wrote without its meta (a crash) are removed at Open.
func TestFlushExtends(t *testing.T) {
	d := lineitemRows(rand.New(rand.NewPCG(11, 12)), 20000)
	half := &dataset{keys: d.keys[:10000], vals: d.vals[:10000]}
	dir := t.TempDir()
	s := dictStore(t, dir, 4<<10)
	putAll(t, s, half)
	snap := s.Snapshot()
	// An iterator on the segment before its extension, not yet read
	// from: the extension and then Compact, which replaces it, must leave
	// its blocks until it closes.
	held := s.NewIterator(IterOptions{})
	putAll(t, s, &dataset{keys: d.keys[10000:], vals: d.vals[10000:]})
	st := s.Stats()
	require.Greater(t, st.Flushes, int64(2))
	require.Equal(t, 1, st.Segments)
	g := liveSegs(s)[0]
	assert.Equal(t, s.opts.blockSettings(s.opts.compactionBlock()), g.Meta.Settings)
	assert.Len(t, g.Parts, 1, "one dictionary")
	requireDicts(t, g, true)
	assert.Equal(t, uint64(len(d.keys)), g.Meta.Cells)
	assert.True(t, segwrite.Final(g, g.Meta.Settings))
	requireAll(t, s, d)
	got, err := scan(snap.NewIterator(IterOptions{}))
	require.NoError(t, err)
	assert.Len(t, got, len(half.keys), "the snapshot's cells")
	snap.Close()
	require.NoError(t, s.Compact())
	got, err = scan(held)
	require.NoError(t, err)
	assert.Len(t, got, len(half.keys), "the held iterator's cells")
	assert.Same(t, g, liveSegs(s)[0], "Compact left the one segment")
	assert.Zero(t, s.Stats().Compactions)

	// Blocks past the meta's last key, as an extension that crashed
	// before its meta leaves them.
	left := s.keys.Block(g.Meta.ID, []byte("zzz"))
	leftDict := s.keys.Dict(g.Meta.ID, uint32(len(g.Meta.Parts)))
	require.NoError(t, badgerDB(s).Update(func(txn *badger.Txn) error {
		if err := txn.Set(leftDict, []byte("a dictionary")); err != nil {
			return err
		}
		return txn.Set(left, []byte("a block"))
	}))
	require.NoError(t, s.Close())
	s = dictStore(t, dir, 4<<10)
	defer s.Close()
	require.Equal(t, 1, s.Stats().Segments)
	requireAll(t, s, d)
	for _, k := range [][]byte{left, leftDict} {
		err = badgerDB(s).View(func(txn *badger.Txn) error {
			_, err := txn.Get(k)
			return err
		})
		require.ErrorIs(t, err, badger.ErrKeyNotFound, "%q", k)
	}
}

// TestCompactCopiesBlockRuns: a compaction of a segment loaded in key
// order with a newer one that rewrites a few keys in one range, deletes
// others and range-deletes a third range copies the big segment's blocks
// outside those ranges as they are (runs of at least segwrite.MinCopyRun blocks)
// and merges the rest, compressed against the big segment's dictionary:
// one part. Everything reads back as the model says, also after
// reopening.
func TestCompactCopiesBlockRuns(t *testing.T) {
	d := lineitemRows(rand.New(rand.NewPCG(13, 14)), 20000)
	dir := t.TempDir()
	s := dictStore(t, dir, 0)
	putAll(t, s, d)
	big := liveSegs(s)
	require.Len(t, big, 1)
	old := segBlocks(t, s, big[0])
	require.Greater(t, len(old), 40)

	model := map[string]string{}
	for i := range d.keys {
		model[string(d.keys[i])] = string(d.vals[i])
	}
	b := s.NewBatch()
	for i := 5000; i < 5200; i++ { // new values in one range
		v := fmt.Sprintf("new value %d", i)
		b.Put(d.keys[i], []byte(v))
		model[string(d.keys[i])] = v
	}
	for i := 9000; i < 9050; i++ { // point deletes in another
		b.Delete(d.keys[i])
		delete(model, string(d.keys[i]))
	}
	b.DeleteRange(d.keys[15000], d.keys[15300]) // and a range delete
	for i := 15000; i < 15300; i++ {
		delete(model, string(d.keys[i]))
	}
	require.NoError(t, s.Apply(b))
	require.NoError(t, s.Flush())
	require.Len(t, liveSegs(s), 2)

	require.NoError(t, s.Compact())
	out := liveSegs(s)
	require.Len(t, out, 1)
	g := out[0]
	assert.Len(t, g.Parts, 1, "the merged blocks use the copied blocks' dictionary")
	assert.Same(t, big[0].Parts[0].Dict, g.Parts[0].Dict)
	assert.Equal(t, uint64(len(model)), g.Meta.Cells)
	assert.Equal(t, g.Meta.Cells, g.Meta.Keys)
	blocks := segBlocks(t, s, g)
	kept := map[string]bool{}
	for _, blk := range blocks {
		kept[blk] = true
	}
	copied := 0
	for _, blk := range old {
		if kept[blk] {
			copied++
		}
	}
	// Three ranges of a few blocks each are merged, and the first block
	// (a run starts after a block's last cell).
	assert.Greater(t, copied, len(old)-20, "blocks copied: %d of %d", copied, len(old))
	assert.Less(t, copied, len(old), "the blocks of the changed ranges are merged")

	check := func(s *Store) {
		t.Helper()
		got, err := scan(s.NewIterator(IterOptions{}))
		require.NoError(t, err)
		require.Len(t, got, len(model))
		for _, kv := range got {
			require.Equal(t, model[kv[0]], kv[1], "key %q", kv[0])
		}
		for i := 0; i < len(d.keys); i += 97 {
			v, err := s.Get(d.keys[i])
			if want, ok := model[string(d.keys[i])]; ok {
				require.NoError(t, err)
				require.Equal(t, want, string(v))
			} else {
				require.ErrorIs(t, err, ErrNotFound)
			}
		}
	}
	check(s)
	require.NoError(t, s.Close())
	s = dictStore(t, dir, 0)
	defer s.Close()
	check(s)
}
