package kv

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestConcurrent runs writers, readers, snapshot readers, flushes and
// compactions at once. Each writer owns a group of keys and writes them all
// in one batch with the same counter, so every reader must see a group
// whole (atomicity) and counters that never go back (monotonic reads).
func TestConcurrent(t *testing.T) {
	s := mustOpen(t, testOptions(t.TempDir()))
	const writers, groupKeys = 3, 8
	dur := 1500 * time.Millisecond
	if testing.Short() {
		dur = 300 * time.Millisecond
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	key := func(g, i int) []byte { return []byte(fmt.Sprintf("g%d/k%02d", g, i)) }
	var written [writers]atomic.Int64

	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := int64(1); ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				b := s.NewBatch()
				for i := 0; i < groupKeys; i++ {
					b.Put(key(g, i), []byte(strconv.FormatInt(n, 10)+"|"+string(make([]byte, 40))))
				}
				if !assert.NoError(t, s.Apply(b), "writer %d: Apply", g) {
					return
				}
				written[g].Store(n)
			}
		}()
	}
	// checkGroup reads one group through it and asserts it is whole and
	// not behind floor; it returns the group's counter and whether it passed.
	checkGroup := func(it *Iterator, g int, floor int64) (int64, bool) {
		defer it.Close()
		var vals []string
		for ok := it.First(); ok; ok = it.Next() {
			v, _, _ := bytesCut(it.Value(), '|')
			vals = append(vals, v)
		}
		if !assert.NoError(t, it.Err(), "group %d: iterate", g) {
			return 0, false
		}
		if len(vals) == 0 {
			return 0, true
		}
		if !assert.Len(t, vals, groupKeys, "group %d: keys", g) ||
			!assert.Equal(t, slices.Repeat(vals[:1], groupKeys), vals, "group %d torn", g) {
			return 0, false
		}
		n, _ := strconv.ParseInt(vals[0], 10, 64)
		return n, assert.GreaterOrEqual(t, n, floor, "group %d went back", g)
	}
	for r := 0; r < 2; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var seen [writers]int64
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				g := i % writers
				acked := written[g].Load()
				if r == 0 {
					sn := s.Snapshot()
					n, ok := checkGroup(sn.NewIterator(IterOptions{LowerBound: key(g, 0), UpperBound: key(g+1, 0)}), g, seen[g])
					if ok {
						k := key(g, i%groupKeys)
						v, err := sn.Get(k)
						if n != 0 || !errors.Is(err, ErrNotFound) { // not found: the group is not written yet
							got, _, _ := bytesCut(v, '|')
							ok = assert.NoError(t, err, "snapshot Get %q", k) &&
								assert.Equal(t, strconv.FormatInt(n, 10), got, "snapshot Get %q against the snapshot's iterator", k)
						}
					}
					sn.Close()
					if !ok {
						return
					}
					seen[g] = n
				} else {
					n, ok := checkGroup(s.NewIterator(IterOptions{LowerBound: key(g, 0), UpperBound: key(g+1, 0)}), g, seen[g])
					if !ok || !assert.GreaterOrEqual(t, n, acked, "group %d: read behind an acknowledged write", g) {
						return
					}
					seen[g] = n
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			case <-time.After(50 * time.Millisecond):
			}
			var err error
			if i%3 == 2 {
				err = s.Compact()
			} else {
				err = s.Flush()
			}
			if !assert.NoError(t, err, "flush or compact %d", i) {
				return
			}
			_ = s.Stats()
		}
	}()
	time.Sleep(dur)
	close(stop)
	wg.Wait()
	require.False(t, t.Failed(), "a writer, reader or flusher failed")
	require.NoError(t, s.Close())
	// After Close no background compaction holds pooled buffers.
	st := s.Stats()
	t.Logf("writes per group %d %d %d; %+v", written[0].Load(), written[1].Load(), written[2].Load(), st)
	assert.Zero(t, st.Snapshots, "leaked pinned read points")
	assert.Zero(t, st.BufsOut, "leaked pooled buffers")
}

func bytesCut(b []byte, sep byte) (string, string, bool) {
	for i, c := range b {
		if c == sep {
			return string(b[:i]), string(b[i+1:]), true
		}
	}
	return string(b), "", false
}
