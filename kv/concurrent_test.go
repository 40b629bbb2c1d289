package kv

import (
	"errors"
	"fmt"
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
	var failed atomic.Value
	fail := func(err error) { failed.CompareAndSwap(nil, err) }
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
				if err := s.Apply(b); err != nil {
					fail(err)
					return
				}
				written[g].Store(n)
			}
		}()
	}
	// checkGroup reads one group through it and checks it is whole.
	checkGroup := func(it *Iterator, g int, floor int64) (int64, error) {
		defer it.Close()
		var vals []string
		for ok := it.First(); ok; ok = it.Next() {
			v, _, _ := bytesCut(it.Value(), '|')
			vals = append(vals, v)
		}
		if err := it.Err(); err != nil {
			return 0, err
		}
		if len(vals) == 0 {
			return 0, nil
		}
		if len(vals) != groupKeys {
			return 0, fmt.Errorf("group %d: %d keys", g, len(vals))
		}
		for _, v := range vals {
			if v != vals[0] {
				return 0, fmt.Errorf("group %d torn: %q", g, vals)
			}
		}
		n, _ := strconv.ParseInt(vals[0], 10, 64)
		if n < floor {
			return 0, fmt.Errorf("group %d went back from %d to %d", g, floor, n)
		}
		return n, nil
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
					n, err := checkGroup(sn.NewIterator(IterOptions{LowerBound: key(g, 0), UpperBound: key(g+1, 0)}), g, seen[g])
					if err == nil {
						var v []byte
						v, err = sn.Get(key(g, i%groupKeys))
						if err == nil {
							if got, _, _ := bytesCut(v, '|'); got != strconv.FormatInt(n, 10) {
								err = fmt.Errorf("snapshot Get %q, iterator %d", got, n)
							}
						} else if errors.Is(err, ErrNotFound) && n == 0 {
							err = nil
						}
					}
					sn.Close()
					if err != nil {
						fail(err)
						return
					}
					seen[g] = n
				} else {
					n, err := checkGroup(s.NewIterator(IterOptions{LowerBound: key(g, 0), UpperBound: key(g+1, 0)}), g, seen[g])
					if err != nil {
						fail(err)
						return
					}
					if n < acked {
						fail(fmt.Errorf("group %d: read %d after %d was acknowledged", g, n, acked))
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
			if err != nil {
				fail(err)
				return
			}
			_ = s.Stats()
		}
	}()
	time.Sleep(dur)
	close(stop)
	wg.Wait()
	err, _ := failed.Load().(error)
	require.NoError(t, err)
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
