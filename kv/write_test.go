package kv

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/badgereng"
	"github.com/kvenc/kvenc/memstore"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBatchReuse: a Batch reset and filled again, past the size of its
// copy buffer and with the caller's slices overwritten after each Put,
// writes what it was given each time; the ops applied before a Reset keep
// their values in the Store.
func TestBatchReuse(t *testing.T) {
	s := mustOpen(t, testOptions(""))
	defer func() { require.NoError(t, s.Close()) }()
	b := s.NewBatch()
	key, val := make([]byte, 8), make([]byte, 0, 3000)
	want := map[string]string{}
	for round := range 4 {
		for i := range 20 {
			key = fmt.Appendf(key[:0], "k%02d-%03d", round, i)
			val = append(val[:0], bytes.Repeat([]byte{byte('a' + round)}, 100*i+round)...)
			b.Put(key, val)
			want[string(key)] = string(val)
			clear(key)
			clear(val)
		}
		b.Delete(fmt.Appendf(nil, "k%02d-%03d", round, 0))
		delete(want, fmt.Sprintf("k%02d-%03d", round, 0))
		if round > 0 {
			b.DeleteRange(fmt.Appendf(nil, "k%02d-%03d", round-1, 10), fmt.Appendf(nil, "k%02d-%03d", round-1, 12))
			delete(want, fmt.Sprintf("k%02d-%03d", round-1, 10))
			delete(want, fmt.Sprintf("k%02d-%03d", round-1, 11))
		}
		require.Equal(t, 20+1+min(round, 1), b.Len())
		require.NoError(t, s.Apply(b))
		b.Reset()
		require.Zero(t, b.Len())
	}
	got, err := scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	have := map[string]string{}
	for _, kv := range got {
		have[kv[0]] = kv[1]
	}
	assert.Equal(t, want, have)
}

// TestBatchPutAllocs: a Batch filled and reset again does not allocate.
func TestBatchPutAllocs(t *testing.T) {
	s := mustOpen(t, testOptions(""))
	defer func() { require.NoError(t, s.Close()) }()
	b := s.NewBatch()
	key, val := []byte("key-0000"), bytes.Repeat([]byte("v"), 100)
	fill := func() {
		b.Reset()
		for range 100 {
			b.Put(key, val)
			b.Delete(key)
		}
	}
	fill()
	assert.Zero(t, testing.AllocsPerRun(10, fill))
}

// TestMemstoreFillsByUse: a memstore takes cells until what they use
// fills its arena, not until their bounds (a node of maximum height
// each) would: 700 cells whose bounds add up to about 1.5x the arena stay
// in the one memstore, unflushed.
func TestMemstoreFillsByUse(t *testing.T) {
	o := testOptions("")
	o.CompactionTrigger = -1
	s := mustOpen(t, o)
	defer func() { require.NoError(t, s.Close()) }()
	val := bytes.Repeat([]byte("v"), 16)
	b := s.NewBatch()
	for i := range 700 {
		b.Put(fmt.Appendf(nil, "key%05d", i), val)
		if b.Len() == 10 {
			require.NoError(t, s.Apply(b))
			b.Reset()
		}
	}
	bound := 700 * memstore.CellArenaBound(blockenc.Cell{Key: []byte("key00000"), Value: val})
	require.Greater(t, bound, o.MemstoreSize*7/5)
	st := s.Stats()
	assert.Equal(t, 1, st.Memstores)
	assert.Equal(t, int64(700), st.MemCells)
	assert.Zero(t, st.Flushes)
	assert.Less(t, st.MemBytes, o.MemstoreSize)
}

// TestWALCommitFails: when the commit of a WAL record fails after its ops
// went into the memstore (an in-memory Store overlaps the two), the write
// fails, and so does every later read, write and flush: no reader sees the
// ops and no segment holds them.
func TestWALCommitFails(t *testing.T) {
	o := testOptions("")
	s := mustOpen(t, o)
	m := model{}
	putEach(t, s, m, 300, "key%04d", "value %d")
	require.NoError(t, s.Flush())
	require.NoError(t, s.Put([]byte("key0001"), []byte("in the memstore")))
	m["key0001"] = "in the memstore"
	snap := s.Snapshot()
	defer snap.Close()

	injected := errors.New("injected commit failure")
	s.eng.(*badgereng.Owned).SetCommitWith(func(txn *badger.Txn, cb func(error)) {
		txn.Discard()
		cb(injected)
	})
	b := s.NewBatch()
	b.Put([]byte("key0002"), []byte("lost"))
	b.Put([]byte("new"), []byte("lost"))
	require.ErrorIs(t, s.Apply(b), injected)
	_, err := s.Get([]byte("key0002"))
	require.ErrorIs(t, err, injected)
	_, err = snap.Get([]byte("key0001"))
	require.ErrorIs(t, err, injected, "a read at an older read point too")
	it := s.NewIterator(IterOptions{})
	require.False(t, it.First())
	require.ErrorIs(t, it.Err(), injected)
	require.NoError(t, it.Close())
	require.ErrorIs(t, s.Put([]byte("later"), []byte("x")), injected)
	require.ErrorIs(t, s.Flush(), injected)
	require.ErrorIs(t, s.Close(), injected)
}
