package kv

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWALBufferedSync: with WALBuffered, Sync leaves every acknowledged
// write's record in the WAL file, and a Store closed cleanly reopens with
// every write, also those of many writers over several memstores.
func TestWALBufferedSync(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(dir)
	o.WALBuffered = true
	s := mustOpen(t, o)
	m := model{}
	putEach(t, s, m, 50, "key%04d", "value %d")
	require.NoError(t, s.Sync())
	assert.Equal(t, 50, countWALRecords(t, s))

	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 1000 {
				k, v := fmt.Sprintf("w%d/%04d", w, i), fmt.Sprintf("value %d %d", w, i)
				if !assert.NoError(t, s.Put([]byte(k), []byte(v))) {
					return
				}
				mu.Lock()
				m[k] = v
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	assert.Positive(t, s.Stats().Flushes, "the writes span memstores")
	require.NoError(t, s.Close())
	s = mustOpen(t, o)
	defer s.Close()
	requireModel(t, s, m)
}

// TestWALBufferedFails: a failed background WAL write fails the later
// writes with its error; reads go on, and Flush puts the writes
// acknowledged before it into a segment.
func TestWALBufferedFails(t *testing.T) {
	dir := t.TempDir()
	o := testOptions(dir)
	o.WALBuffered = true
	s := mustOpen(t, o)
	require.NoError(t, s.Put([]byte("a"), []byte("1"))) // creates the file
	require.NoError(t, s.Sync())
	boom := errors.New("boom")
	s.wal.SetWriteHook(func() error { return boom })
	require.NoError(t, s.Put([]byte("b"), []byte("2"))) // queued, lost
	require.ErrorIs(t, s.Sync(), boom)
	require.ErrorIs(t, s.Put([]byte("c"), []byte("3")), boom)
	v, err := s.Get([]byte("b"))
	require.NoError(t, err)
	assert.Equal(t, "2", string(v))
	require.NoError(t, s.Flush())
	require.NoError(t, s.Close())
	s = mustOpen(t, o)
	defer s.Close()
	requireModel(t, s, model{"a": "1", "b": "2"})
}

func TestWALBufferedOptions(t *testing.T) {
	o := testOptions(t.TempDir())
	o.WALBuffered, o.SyncWrites = true, true
	_, err := Open(o)
	require.ErrorIs(t, err, ErrInvalidOptions)
}
