package kv

import (
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/require"
)

// heapNow returns the live heap after a full collection.
func heapNow() int64 {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// memCell returns the i-th cell of the memory test: a 16-byte key and an
// 8-byte value.
func memCell(i int, key, val []byte) ([]byte, []byte) {
	key = fmt.Appendf(key[:0], "key-%012d", i)
	binary.BigEndian.PutUint64(val, uint64(i))
	return key, val
}

// rawBadgerHeap returns the steady heap of raw Badger (default options)
// holding n cells written in batches of 100, above the heap before it.
func rawBadgerHeap(t *testing.T, n int) int64 {
	base := heapNow()
	db, err := badger.Open(badger.DefaultOptions(t.TempDir()).WithLogger(nil))
	require.NoError(t, err)
	key, val := make([]byte, 0, 16), make([]byte, 8)
	wb := db.NewTransaction(true)
	for i := 0; i < n; i++ {
		key, val = memCell(i, key, val)
		require.NoError(t, wb.Set(append([]byte(nil), key...), append([]byte(nil), val...)))
		if i%100 == 99 || i == n-1 {
			require.NoError(t, wb.Commit())
			wb = db.NewTransaction(true)
		}
	}
	wb.Discard()
	heap := heapNow() - base
	runtime.KeepAlive(db)
	require.NoError(t, db.Close())
	return heap
}

// kvencHeap returns the steady heap of a Store with default options
// holding n cells written in batches of 100, flushed, compacted and
// scanned once, above the heap before it.
func kvencHeap(t *testing.T, n int) (ingest, steady int64) {
	base := heapNow()
	s := mustOpen(t, DefaultOptions(t.TempDir()))
	key, val := make([]byte, 0, 16), make([]byte, 8)
	b := s.NewBatch()
	for i := 0; i < n; i++ {
		key, val = memCell(i, key, val)
		b.Put(key, val)
		if b.Len() == 100 || i == n-1 {
			require.NoError(t, s.Apply(b))
			b.Reset()
		}
	}
	ingest = heapNow() - base
	require.NoError(t, s.Flush())
	require.NoError(t, s.Compact())
	got, err := scan(s.NewIterator(IterOptions{}))
	require.NoError(t, err)
	require.Len(t, got, n)
	got = nil
	steady = heapNow() - base
	runtime.KeepAlive(s)
	require.NoError(t, s.Close())
	return ingest, steady
}

// The memory model of the package doc: with default options a Store's
// steady heap is no more than raw Badger's on the same cells plus
// CacheSize. KV_MEM_CELLS sets the cell count (the package doc quotes
// 1,000,000).
func TestMemoryModel(t *testing.T) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("KV_MEM_CELLS")); err == nil {
		n = v
	}
	raw := rawBadgerHeap(t, n)
	ingest, steady := kvencHeap(t, n)
	const mib = 1 << 20
	t.Logf("%d cells: raw Badger %.1f MiB; kvenc %.1f MiB after ingest, %.1f MiB steady (limit raw + CacheSize = %.1f MiB)",
		n, float64(raw)/mib, float64(ingest)/mib, float64(steady)/mib, float64(raw+DefaultCacheSize)/mib)
	require.LessOrEqual(t, steady, raw+DefaultCacheSize)
}
