package kv

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mountTmpfs mounts a tmpfs of size MiB on a new directory and returns
// it, skipping the test when this process may not mount (not root, no
// CAP_SYS_ADMIN, no tmpfs).
func mountTmpfs(t *testing.T, size int) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "vol")
	require.NoError(t, os.Mkdir(dir, 0o755))
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, fmt.Sprintf("size=%dm", size)); err != nil {
		t.Skipf("cannot mount a tmpfs on %s (needs root or CAP_SYS_ADMIN): %v", dir, err)
	}
	t.Cleanup(func() { _ = syscall.Unmount(dir, syscall.MNT_DETACH) })
	return dir
}

// remountTmpfs grows (or shrinks) the tmpfs mounted on dir to size MiB.
func remountTmpfs(t *testing.T, dir string, size int) {
	t.Helper()
	require.NoError(t, syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_REMOUNT, fmt.Sprintf("size=%dm", size)))
}

// fullDiskValue is the 200-byte value written under key: derived from the
// key, so that a reader checks it without keeping it.
func fullDiskValue(key []byte) []byte {
	r := rand.New(rand.NewPCG(binary.BigEndian.Uint64(key), 7))
	v := make([]byte, 200)
	for i := 0; i < len(v); i += 8 {
		binary.LittleEndian.PutUint64(v[i:], r.Uint64())
	}
	return v
}

// fillResult is what fillUntilNoSpace wrote.
type fillResult struct {
	acked [][]byte // keys of the acknowledged batches
	err   error    // the first error of a write
}

// fillUntilNoSpace writes batches of 100 cells with random 8-byte keys and
// 200-byte random values from goroutines writers until every writer got
// an error, and returns the acknowledged keys and the first error.
func fillUntilNoSpace(s *Store, writers int, seed uint64) fillResult {
	var mu sync.Mutex
	var res fillResult
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(seed, uint64(w)))
			var mine [][]byte
			for {
				b := s.NewBatch()
				keys := make([][]byte, 100)
				for j := range keys {
					keys[j] = binary.BigEndian.AppendUint64(nil, r.Uint64())
					b.Put(keys[j], fullDiskValue(keys[j]))
				}
				if err := s.Apply(b); err != nil {
					mu.Lock()
					if res.err == nil || !errors.Is(err, ErrNoSpace) {
						res.err = err
					}
					res.acked = append(res.acked, mine...)
					mu.Unlock()
					return
				}
				mine = append(mine, keys...)
			}
		}(w)
	}
	wg.Wait()
	return res
}

// writeBatches writes batches batches of 100 cells from each of writers
// goroutines, every one of which must succeed, and returns their keys.
func writeBatches(t *testing.T, s *Store, writers, batches int) [][]byte {
	var mu sync.Mutex
	var all [][]byte
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(99, uint64(w)))
			for i := 0; i < batches; i++ {
				b := s.NewBatch()
				keys := make([][]byte, 100)
				for j := range keys {
					keys[j] = binary.BigEndian.AppendUint64(nil, r.Uint64())
					b.Put(keys[j], fullDiskValue(keys[j]))
				}
				if !assert.NoError(t, s.Apply(b)) {
					return
				}
				mu.Lock()
				all = append(all, keys...)
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	return all
}

// requireAllRead checks that the Store holds exactly keys, each with its
// value (an Iterator over all, and a Get of every 16th).
func requireAllRead(t *testing.T, s *Store, keys [][]byte) {
	t.Helper()
	keys = slices.Clone(keys)
	slices.SortFunc(keys, bytes.Compare)
	keys = slices.CompactFunc(keys, bytes.Equal)
	it := s.NewIterator(IterOptions{})
	i := 0
	for ok := it.First(); ok; ok = it.Next() {
		require.Less(t, i, len(keys), "key %x was never written", it.Key())
		require.Equal(t, keys[i], it.Key(), "acknowledged key %x", keys[i])
		require.Equal(t, fullDiskValue(keys[i]), it.Value(), "acknowledged key %x", keys[i])
		i++
	}
	require.NoError(t, it.Err())
	require.NoError(t, it.Close())
	require.Equal(t, len(keys), i, "acknowledged keys found")
	for i := 0; i < len(keys); i += 16 {
		v, err := s.Get(keys[i])
		require.NoError(t, err, "acknowledged key %x", keys[i])
		require.Equal(t, fullDiskValue(keys[i]), v, "acknowledged key %x", keys[i])
	}
}

// fullDiskOptions make a Store that flushes and compacts many times on a
// small volume. Its one value-log file never rotates: Badger v4.9.6
// truncates the file it rotates away from while its readers (a
// compaction, a Get) may read it, a data race that -race reports.
func fullDiskOptions(dir string) Options {
	o := DefaultOptions(dir)
	o.MemstoreSize = 512 << 10
	o.ValueLogFileSize = 256 << 20 // sparse: a 16 MiB tmpfs holds it
	o.CompactionTrigger = 3
	o.Badger = func(bo badger.Options) badger.Options { return bo.WithMemTableSize(2 << 20).WithNumCompactors(2) }
	return o
}

// A Store on a full volume fails writes with ErrNoSpace and nothing
// else: the process lives (Badger would die of SIGBUS writing its
// memory-mapped files), every acknowledged write reads back, reads,
// iterators and snapshots go on, Close returns, and once the volume grows
// writes resume without a reopen.
func TestFullDisk(t *testing.T) {
	for _, writers := range []int{1, 16} {
		t.Run(fmt.Sprintf("writers=%d", writers), func(t *testing.T) {
			vol := mountTmpfs(t, 16)
			dir := filepath.Join(vol, "db")
			s := mustOpen(t, fullDiskOptions(dir))
			res := fillUntilNoSpace(s, writers, uint64(writers))
			require.ErrorIs(t, res.err, ErrNoSpace)
			require.NotEmpty(t, res.acked)
			st := s.Stats()
			t.Logf("16 MiB: %d cells acknowledged, %d bytes stored, %d flushes, %d compactions, %d free, %d reserved: %v",
				len(res.acked), st.BytesStored, st.Flushes, st.Compactions, st.FreeBytes, st.ReservedBytes, res.err)
			assert.Positive(t, st.Flushes)
			assert.Positive(t, st.ReservedBytes)
			assert.Less(t, st.FreeBytes, int64(16<<20))

			// Full: reads, snapshots and iterators go on.
			requireAllRead(t, s, res.acked)
			snap := s.Snapshot()
			_, err := snap.Get(res.acked[0])
			require.NoError(t, err)
			snap.Close()

			// Grown: writes resume without a reopen, and Close flushes them.
			remountTmpfs(t, vol, 32)
			more := writeBatches(t, s, writers, 160/writers)
			require.NoError(t, s.Close())
			acked := append(res.acked, more...)
			s = mustOpen(t, fullDiskOptions(dir))
			requireAllRead(t, s, acked)
			require.NoError(t, s.Close())
		})
	}
}
