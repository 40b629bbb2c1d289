package kv

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteYieldsBeyondProcs: a write that finds more writes in flight
// than the Store's processors gives its processor up once before it takes
// a seq (not with SyncWrites), and the writes all land; a write alone does
// not yield.
func TestWriteYieldsBeyondProcs(t *testing.T) {
	for _, syncWrites := range []bool{false, true} {
		t.Run(fmt.Sprintf("sync=%v", syncWrites), func(t *testing.T) {
			o := testOptions(t.TempDir())
			o.SyncWrites = syncWrites
			s := mustOpen(t, o)
			defer s.Close()
			s.procs = 1
			require.NoError(t, s.Put([]byte("alone"), []byte("v")))
			assert.Zero(t, s.Stats().Yields, "one write in flight")

			// The first write's WAL write waits until the second write is
			// in flight: that one finds two writes, more than one
			// processor.
			held, release := make(chan struct{}), make(chan struct{})
			var once, freed sync.Once
			free := func() { freed.Do(func() { close(release) }) }
			defer free() // before Close, should an assertion below fail
			s.wal.SetWriteHook(func() error {
				once.Do(func() {
					close(held)
					<-release
				})
				return nil
			})
			errs := make(chan error, 2)
			go func() { errs <- s.Put([]byte("first"), []byte("1")) }()
			<-held
			go func() { errs <- s.Put([]byte("second"), []byte("2")) }()
			require.Eventually(t, func() bool {
				return s.writers.Load() == 2 && (syncWrites || s.Stats().Yields > 0)
			}, 5*time.Second, 100*time.Microsecond)
			free()
			require.NoError(t, <-errs)
			require.NoError(t, <-errs)
			want := int64(1) // the second write yielded once
			if syncWrites {
				want = 0
			}
			assert.Equal(t, want, s.Stats().Yields)
			for k, v := range map[string]string{"alone": "v", "first": "1", "second": "2"} {
				got, err := s.Get([]byte(k))
				require.NoError(t, err, k)
				assert.Equal(t, v, string(got), k)
			}
		})
	}
}

// TestReadsYieldToYieldingWrites: while a write has given up its
// processor, Get, NewIterator and each step of an Iterator give theirs up
// once too, and read the same as without.
func TestReadsYieldToYieldingWrites(t *testing.T) {
	s := mustOpen(t, testOptions(t.TempDir()))
	defer s.Close()
	for i := range 3 {
		require.NoError(t, s.Put(fmt.Appendf(nil, "k%d", i), []byte("v")))
	}
	read := func() [][2]string {
		v, err := s.Get([]byte("k1"))
		require.NoError(t, err)
		require.Equal(t, "v", string(v))
		sn := s.Snapshot()
		defer sn.Close()
		_, err = sn.Get([]byte("k1"))
		require.NoError(t, err)
		fwd, err := scan(s.NewIterator(IterOptions{}))
		require.NoError(t, err)
		back, err := scanBack(sn.NewIterator(IterOptions{}))
		require.NoError(t, err)
		require.Len(t, back, len(fwd))
		return fwd
	}
	want := read()
	require.Len(t, want, 3)
	assert.Zero(t, s.Stats().Yields, "no write yields")

	s.yielding.Add(1) // a write waits for a processor
	assert.Equal(t, want, read())
	// Get and the snapshot's Get, two NewIterators, Next three times
	// and Prev three times (each step, the last one off the end too).
	assert.Equal(t, int64(2+2+3+3), s.Stats().Yields)
	s.yielding.Add(-1)
	read()
	assert.Equal(t, int64(10), s.Stats().Yields, "none once the write runs")
}
