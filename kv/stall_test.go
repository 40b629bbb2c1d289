package kv

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWriteStallBound: while no flush can run (flushMu held), 16 writers
// fill memstores until maxFrozen frozen ones wait, and then stall: the
// Store never holds more than the active memstore and maxFrozen frozen
// ones, whatever the number of writers. Once flushes run again every
// write completes, the stalls are counted, and every acknowledged Put
// reads back.
func TestWriteStallBound(t *testing.T) {
	o := testOptions(t.TempDir())
	o.CompactionTrigger = -1
	s := mustOpen(t, o)
	defer s.Close()
	const writers, puts = 16, 200 // 16 x 200 x ~330 arena bytes: about 16 memstores
	key := func(w, i int) []byte { return fmt.Appendf(nil, "w%02d/%04d", w, i) }
	val := func(w, i int) []byte { return fmt.Appendf(make([]byte, 0, 300), "%0300d", w*puts+i) }

	s.flushMu.Lock()
	var wg sync.WaitGroup
	var done sync.WaitGroup
	done.Add(writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer done.Done()
			for i := range puts {
				if !assert.NoError(t, s.Put(key(w, i), val(w, i))) {
					return
				}
			}
		}()
	}
	require.Eventually(t, func() bool { return s.Stats().Memstores == 1+maxFrozen }, 10*time.Second, time.Millisecond,
		"writers fill memstores until maxFrozen frozen ones wait")
	assert.Never(t, func() bool { return s.Stats().Memstores > 1+maxFrozen }, 200*time.Millisecond, time.Millisecond,
		"writers stall rather than freeze another memstore")
	s.flushMu.Unlock()
	wg.Wait()
	require.False(t, t.Failed())

	st := s.Stats()
	assert.Positive(t, st.WriteStalls)
	assert.Positive(t, st.WriteStallTime)
	assert.LessOrEqual(t, st.Memstores, 1+maxFrozen)
	for w := range writers {
		for i := range puts {
			v, err := s.Get(key(w, i))
			require.NoError(t, err, "w%d put %d", w, i)
			require.Equal(t, val(w, i), v, "w%d put %d", w, i)
		}
	}
}
