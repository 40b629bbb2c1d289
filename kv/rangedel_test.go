package kv

import (
	"fmt"
	"slices"
	"testing"

	"github.com/kvenc/kvenc/kv/internal/badgereng"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func rd(start, end string, seq uint64) rangedel.Tombstone {
	return rangedel.Tombstone{Start: []byte(start), End: []byte(end), Seq: seq}
}

// fill puts key%04d for i in [0, n) at value v%04d.
func fill(t testing.TB, s *Store, n int, tag string) {
	t.Helper()
	b := s.NewBatch()
	for i := 0; i < n; i++ {
		b.Put([]byte(fmt.Sprintf("key%04d", i)), []byte(fmt.Sprintf("%s%04d", tag, i)))
	}
	require.NoError(t, s.Apply(b))
}

// keysOf scans it forward and returns its keys, after checking that a
// backward scan of it shows the same keys in reverse.
func keysOf(t testing.TB, it *Iterator) []string {
	t.Helper()
	var ks, back []string
	for ok := it.First(); ok; ok = it.Next() {
		ks = append(ks, string(it.Key()))
	}
	for ok := it.Last(); ok; ok = it.Prev() {
		back = append(back, string(it.Key()))
	}
	require.NoError(t, it.Close())
	slices.Reverse(back)
	require.Equal(t, ks, back, "backward scan")
	return ks
}

func keyRange(lo, hi int) []string {
	var ks []string
	for i := lo; i < hi; i++ {
		ks = append(ks, fmt.Sprintf("key%04d", i))
	}
	return ks
}

// A range delete hides the keys in its range from Get and iteration, in
// the memstore, after Flush, after reopen and after Compact, while a
// Snapshot taken before it still sees them.
func TestDeleteRange(t *testing.T) {
	dir := t.TempDir()
	s := mustOpen(t, testOptions(dir))
	fill(t, s, 100, "v")
	require.NoError(t, s.Flush())
	fill(t, s, 50, "w") // newer versions of key0000..key0049 in the memstore
	before := s.Snapshot()
	require.NoError(t, s.DeleteRange([]byte("key0020"), []byte("key0070")))
	require.NoError(t, s.Put([]byte("key0030"), []byte("new"))) // after the range delete
	require.NoError(t, s.DeleteRange([]byte("key0090"), []byte("key0090")))

	want := append(append(keyRange(0, 20), "key0030"), keyRange(70, 100)...)
	// get checks a Get through get (s.Get or a Snapshot's): want "" is
	// ErrNotFound.
	get := func(stage string, get func([]byte) ([]byte, error), key, want string) {
		t.Helper()
		v, err := get([]byte(key))
		if want == "" {
			assert.ErrorIs(t, err, ErrNotFound, "%s: %s", stage, key)
			return
		}
		require.NoError(t, err, "%s: %s", stage, key)
		assert.Equal(t, want, string(v), "%s: %s", stage, key)
	}
	check := func(stage string) {
		t.Helper()
		assert.Equal(t, want, keysOf(t, s.NewIterator(IterOptions{})), stage)
		assert.Equal(t, []string{"key0030"}, keysOf(t, s.NewIterator(IterOptions{LowerBound: []byte("key0020"), UpperBound: []byte("key0070")})), stage)
		for key, v := range map[string]string{"key0020": "", "key0069": "", "key0030": "new", "key0070": "v0070", "key0019": "w0019"} {
			get(stage, s.Get, key, v)
		}
		if before != nil {
			assert.Equal(t, keyRange(0, 100), keysOf(t, before.NewIterator(IterOptions{})), stage)
			get(stage, before.Get, "key0025", "w0025")
			get(stage, before.Get, "key0060", "v0060")
		}
	}
	check("memstore")
	assert.Equal(t, int64(1), s.Stats().RangeDels)
	require.NoError(t, s.Flush())
	check("flushed")
	require.NoError(t, s.Compact())
	check("compacted under a snapshot")
	require.NoError(t, before.Close())
	before = nil
	require.NoError(t, s.Close())
	s = mustOpen(t, testOptions(dir))
	check("reopened")
	require.NoError(t, s.Compact())
	check("compacted")
	require.NoError(t, s.Close())
	s = mustOpen(t, testOptions(dir))
	check("reopened after compaction")
	require.NoError(t, s.Close())
}

// A later operation in a batch wins over an earlier DeleteRange; an
// earlier one is deleted by it. Also across the WAL (reopen without flush).
func TestBatchDeleteRange(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(dir)
	s := mustOpen(t, o)
	fill(t, s, 10, "v")
	b := s.NewBatch()
	b.Put([]byte("key0002"), []byte("early"))
	b.Put([]byte("key0099"), []byte("outside"))
	b.DeleteRange([]byte("key0001"), []byte("key0008"))
	b.Put([]byte("key0005"), []byte("late"))
	b.DeleteRange([]byte("key0009"), []byte("key0001")) // empty
	require.Equal(t, 3, b.Len())
	require.NoError(t, s.Apply(b))
	want := [][2]string{{"key0000", "v0000"}, {"key0005", "late"}, {"key0008", "v0008"}, {"key0009", "v0009"}, {"key0099", "outside"}}
	got, err := scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	assert.Equal(t, want, got)
	require.NoError(t, badgerDB(s).Close()) // a crash: the WAL holds the batch
	s.eng = badgereng.Wrap(badgerDB(s))     // Close leaves the DB alone
	_ = s.Close()
	s = mustOpen(t, o)
	got, err = scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	assert.Equal(t, want, got, "after WAL replay")
	require.NoError(t, s.Compact())
	got, err = scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	assert.Equal(t, want, got, "after compaction")
	require.NoError(t, s.Close())
}

func TestDeleteRangeLimits(t *testing.T) {
	s := mustOpen(t, testOptions(""))
	big := make([]byte, MaxKeySize+1)
	require.ErrorIs(t, s.DeleteRange(nil, big), ErrTooLarge)
	require.ErrorIs(t, s.DeleteRange(big[:1], big), ErrTooLarge)
	require.NoError(t, s.DeleteRange([]byte("b"), []byte("a")), "an empty range deletes nothing")
	require.NoError(t, s.Put([]byte(""), []byte("empty key")))
	require.NoError(t, s.DeleteRange(nil, []byte{0}))
	_, err := s.Get(nil)
	require.ErrorIs(t, err, ErrNotFound)
	require.NoError(t, s.Close())
	require.ErrorIs(t, s.DeleteRange([]byte("a"), []byte("b")), ErrClosed)
}

// compactNewest merges the n newest segments of s (not the oldest: a
// partial compaction) and returns the Store's stats after.
func compactNewest(t *testing.T, s *Store, n int) Stats {
	t.Helper()
	s.mu.RLock()
	segs := append([]*segment.Segment(nil), s.segs...)
	s.mu.RUnlock()
	require.Greater(t, len(segs), n, "segments")
	s.compactMu.Lock()
	err := s.compactRun(segs[:n], false)
	s.compactMu.Unlock()
	require.NoError(t, err)
	return s.Stats()
}

// Compaction drops the cells a range tombstone deletes once no snapshot
// sees them, and the tombstone once nothing older lies beneath it: not in
// a compaction that leaves older segments out.
func TestDeleteRangeCompaction(t *testing.T) {
	o := testOptions(t.TempDir())
	o.CompactionTrigger = 0 // compactions only where the test says
	s := mustOpen(t, o)
	fill(t, s, 100, "v") // the oldest segment
	require.NoError(t, s.Flush())
	// Sorting before the first segment's keys: not an extension of it.
	require.NoError(t, s.Put([]byte("jother"), []byte("x")))
	require.NoError(t, s.Flush())
	snap := s.Snapshot()
	require.NoError(t, s.DeleteRange([]byte("key0010"), []byte("key0090")))
	require.NoError(t, s.Put([]byte("key0050"), []byte("back")))
	require.NoError(t, s.Flush())
	want := append(append(append([]string{"jother"}, keyRange(0, 10)...), "key0050"), keyRange(90, 100)...)

	// The two newest segments: the oldest lies outside, so the tombstone
	// stays although no cell of the input is beneath it.
	st := compactNewest(t, s, 2)
	assert.Equal(t, 2, st.Segments)
	assert.Equal(t, int64(1), st.RangeDels)
	assert.Equal(t, want, keysOf(t, s.NewIterator(IterOptions{})))

	// A full compaction under the snapshot keeps the cells it sees, and
	// the tombstone that hides them from the others.
	require.NoError(t, s.Compact())
	st = s.Stats()
	assert.Equal(t, int64(102), st.Cells)
	assert.Equal(t, int64(1), st.RangeDels)
	assert.Equal(t, want, keysOf(t, s.NewIterator(IterOptions{})))
	assert.Equal(t, append([]string{"jother"}, keyRange(0, 100)...), keysOf(t, snap.NewIterator(IterOptions{})))

	// Without the snapshot, the deleted cells and then the tombstone go.
	require.NoError(t, snap.Close())
	require.NoError(t, s.Compact())
	st = s.Stats()
	assert.Equal(t, int64(len(want)), st.Cells, "cells kept")
	assert.Equal(t, int64(0), st.RangeDels, "range tombstones kept")
	assert.Equal(t, want, keysOf(t, s.NewIterator(IterOptions{})))
	v, err := s.Get([]byte("key0050"))
	require.NoError(t, err)
	assert.Equal(t, "back", string(v))
	require.NoError(t, s.Close())
}

// Of overlapping tombstones, a full compaction keeps the fragments that
// still delete a cell a snapshot sees, joined where they abut.
func TestDeleteRangeCompactionFragments(t *testing.T) {
	o := testOptions(t.TempDir())
	o.CompactionTrigger = 0
	s := mustOpen(t, o)
	fill(t, s, 40, "v")
	require.NoError(t, s.DeleteRange([]byte("key0000"), []byte("key0010"))) // deletes what no one sees
	snap := s.Snapshot()
	require.NoError(t, s.DeleteRange([]byte("key0005"), []byte("key0030")))
	require.NoError(t, s.DeleteRange([]byte("key0020"), []byte("key0040")))
	require.NoError(t, s.Compact())
	assert.Equal(t, keyRange(10, 40), keysOf(t, snap.NewIterator(IterOptions{})))
	assert.Empty(t, keysOf(t, s.NewIterator(IterOptions{})))
	s.mu.RLock()
	require.Len(t, s.segs, 1)
	dels := s.segs[0].Meta.Dels
	s.mu.RUnlock()
	// key0010..key0039 are kept for the snapshot: the oldest tombstone
	// over each (the second over key0010..key0029, the third beyond) is
	// what the output needs, and the first deletes nothing kept.
	seq2, seq3 := dels[0].Seq, dels[1].Seq
	assert.Equal(t, []rangedel.Tombstone{rd("key0010", "key0030", seq2), rd("key0030", "key0040", seq3)}, dels)
	assert.Equal(t, seq2+1, seq3)
	require.NoError(t, snap.Close())
	require.NoError(t, s.Compact())
	st := s.Stats()
	assert.Equal(t, int64(0), st.Cells)
	assert.Equal(t, int64(0), st.RangeDels)
	require.NoError(t, s.Close())
}

// An Iterator seeks the sources that hold only older cells past a deleted
// range instead of stepping through its cells: a scan over a store whose
// middle is range-deleted visits few blocks, forward and backward.
func TestDeleteRangeSkips(t *testing.T) {
	o := testOptions(t.TempDir())
	o.CompactionTrigger = 0
	o.MemstoreSize = 4 << 20
	s := mustOpen(t, o)
	fill(t, s, 5000, "v")
	require.NoError(t, s.Compact())
	blocks := s.Stats().Blocks
	require.Greater(t, blocks, 50)
	require.NoError(t, s.DeleteRange([]byte("key0001"), []byte("key4999")))
	require.NoError(t, s.Put([]byte("key2500"), []byte("new")))
	visits := func() int64 { st := s.Stats(); return st.CacheHits + st.CacheMisses }
	for _, stage := range []string{"memstore", "flushed"} {
		v0 := visits()
		got, err := scan(s.NewIterator(IterOptions{}))
		require.NoError(t, err)
		assert.Equal(t, [][2]string{{"key0000", "v0000"}, {"key2500", "new"}, {"key4999", "v4999"}}, got, stage)
		assert.LessOrEqual(t, visits()-v0, int64(6), "%s: blocks visited of %d", stage, blocks)
		v0 = visits()
		got, err = scanBack(s.NewIterator(IterOptions{}))
		require.NoError(t, err)
		assert.Equal(t, [][2]string{{"key4999", "v4999"}, {"key2500", "new"}, {"key0000", "v0000"}}, got, stage)
		assert.LessOrEqual(t, visits()-v0, int64(6), "%s: blocks visited backward of %d", stage, blocks)
		require.NoError(t, s.Flush())
	}
	require.NoError(t, s.Close())
}

// One batch drops every other series of many: one write, one
// refragmenting of the memstore's tombstones.
func TestBatchManyDeleteRanges(t *testing.T) {
	o := testOptions(t.TempDir())
	o.MemstoreSize = 1 << 20
	s := mustOpen(t, o)
	b := s.NewBatch()
	for i := 0; i < 400; i++ {
		for j := 0; j < 3; j++ {
			b.Put([]byte(fmt.Sprintf("s%03d|%d", i, j)), []byte("v"))
		}
	}
	require.NoError(t, s.Apply(b))
	require.NoError(t, s.Flush())
	b.Reset()
	var want []string
	for i := 0; i < 400; i++ {
		if i%2 == 0 {
			b.DeleteRange([]byte(fmt.Sprintf("s%03d|", i)), []byte(fmt.Sprintf("s%03d}", i)))
			continue
		}
		for j := 0; j < 3; j++ {
			want = append(want, fmt.Sprintf("s%03d|%d", i, j))
		}
	}
	require.NoError(t, s.Apply(b))
	assert.Equal(t, int64(200), s.Stats().RangeDels)
	assert.Equal(t, want, keysOf(t, s.NewIterator(IterOptions{})))
	require.NoError(t, s.Compact())
	st := s.Stats()
	assert.Equal(t, int64(0), st.RangeDels)
	assert.Equal(t, int64(len(want)), st.Cells)
	assert.Equal(t, want, keysOf(t, s.NewIterator(IterOptions{})))
	require.NoError(t, s.Close())
}

// In an in-memory Badger a segment meta, which holds the segment's range
// tombstones, must stay below 1 MiB: a flush of more is ErrTooLarge, not
// Badger's panic, and the memstore keeps serving reads.
func TestDeleteRangeMetaLimit(t *testing.T) {
	o := testOptions("")
	o.MemstoreSize = 8 << 20
	s := mustOpen(t, o)
	require.NoError(t, s.Put([]byte("a"), []byte("v")))
	for i := 0; i < 40; i++ { // 40 tombstones of two 16 KiB keys: 1.3 MB
		start := make([]byte, MaxKeySize)
		start[0], start[1] = 'k', byte(i)
		end := slices.Clone(start)
		end[2] = 1
		require.NoError(t, s.DeleteRange(start, end))
	}
	require.ErrorIs(t, s.Flush(), ErrTooLarge)
	v, err := s.Get([]byte("a"))
	require.NoError(t, err)
	assert.Equal(t, "v", string(v))
	require.ErrorIs(t, s.Close(), ErrTooLarge)
}
