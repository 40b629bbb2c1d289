package kv

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/kvenc/kvenc/kv/internal/segread"
	"github.com/stretchr/testify/require"
)

// setReadAhead turns Iterators' read-ahead on or off and returns a
// function that restores the setting.
func setReadAhead(on bool) (restore func()) {
	old := segread.ReadAhead
	segread.ReadAhead = on
	return func() { segread.ReadAhead = old }
}

// readers returns the done channels of the read-ahead goroutines of it's
// segment sources.
func readers(it *Iterator) []<-chan struct{} {
	var out []<-chan struct{}
	for _, src := range it.m.Sources() {
		if g, ok := src.(*segread.Source); ok && g.Ahead() != nil {
			out = append(out, g.Ahead())
		}
	}
	return out
}

// waitStopped waits for every reader to return (the scan does not wait
// for its reader when it stops it: a reader that never returned would
// hang here until the test binary's timeout).
func waitStopped(rs []<-chan struct{}) {
	for _, done := range rs {
		<-done
	}
}

// TestReadAhead: with and without read-ahead, scans in both directions,
// bounded scans, turns, seeks in the middle of a scan and an Iterator
// closed in the middle of one show the model's pairs, and a reader
// goroutine stops when its Iterator turns, seeks or closes.
func TestReadAhead(t *testing.T) {
	o := testOptions(t.TempDir())
	o.CacheSize = 4 << 10
	s := mustOpen(t, o)
	defer s.Close()
	m := model{}
	rng := rand.New(rand.NewPCG(7, 8))
	for i := range 4000 {
		k := fmt.Sprintf("key%06d", i*3)
		v := fmt.Sprintf("value-%d-%x", i, rng.Uint64())
		require.NoError(t, s.Put([]byte(k), []byte(v)))
		m[k] = v
	}
	require.NoError(t, s.Compact())
	for i := range 50 { // some in the memstore, over the segment's keys
		k := fmt.Sprintf("key%06d", i*200+1)
		require.NoError(t, s.Put([]byte(k), []byte("new")))
		m[k] = "new"
	}
	all := m.rangeOf(nil, nil)
	for _, on := range []bool{false, true} {
		t.Run(fmt.Sprintf("ahead=%v", on), func(t *testing.T) {
			defer setReadAhead(on)()
			got, err := scan(s.NewIterator(IterOptions{}))
			require.NoError(t, err)
			require.Equal(t, all, got, "forward scan")
			got, err = scanBack(s.NewIterator(IterOptions{}))
			require.NoError(t, err)
			require.Equal(t, reversed(all), got, "backward scan")
			for range 20 {
				a, b := rng.IntN(len(all)), rng.IntN(len(all))
				lo, hi := []byte(all[min(a, b)][0]), []byte(all[max(a, b)][0])
				want := m.rangeOf(lo, hi)
				got, err := scan(s.NewIterator(IterOptions{LowerBound: lo, UpperBound: hi}))
				require.NoError(t, err)
				require.Equal(t, want, got, "scan [%s, %s)", lo, hi)
				got, err = scanBack(s.NewIterator(IterOptions{LowerBound: lo, UpperBound: hi}))
				require.NoError(t, err)
				require.Equal(t, reversed(want), got, "backward scan [%s, %s)", lo, hi)
			}

			// Turns and seeks in the middle of a scan.
			it := s.NewIterator(IterOptions{})
			i := 0
			require.True(t, it.First())
			started := false
			for step := range 60 {
				n := 1 + rng.IntN(300)
				switch step % 4 {
				case 0, 1: // forward
					for ; n > 0 && i+1 < len(all); n-- {
						require.True(t, it.Next(), "step %d: Next from %d", step, i)
						i++
					}
				case 2: // backward
					for ; n > 0 && i > 0; n-- {
						require.True(t, it.Prev(), "step %d: Prev from %d", step, i)
						i--
					}
				case 3: // a seek
					rs := readers(it)
					i = rng.IntN(len(all))
					require.True(t, it.SeekGE([]byte(all[i][0])), "step %d: SeekGE", step)
					waitStopped(rs) // after SeekGE
				}
				require.Equal(t, all[i], [2]string{string(it.Key()), string(it.Value())}, "step %d at %d", step, i)
				started = started || len(readers(it)) > 0
			}
			require.Equal(t, on, started, "a reader started")
			rs := readers(it)
			require.NoError(t, it.Close())
			waitStopped(rs) // after Close

			// An Iterator left and closed in the middle of a scan.
			it = s.NewIterator(IterOptions{})
			require.True(t, it.First())
			for range len(all) / 2 {
				require.True(t, it.Next())
			}
			rs = readers(it)
			require.Equal(t, on, len(rs) > 0, "a reader is running")
			require.NoError(t, it.Close())
			waitStopped(rs) // after Close in the middle
		})
	}
}

// TestReadAheadStoreClosed: a Store closed under an Iterator whose reader
// goroutine is running ends the scan with ErrClosed (after correct pairs
// only), and closing the Iterator stops the reader.
func TestReadAheadStoreClosed(t *testing.T) {
	defer setReadAhead(true)()
	o := testOptions(t.TempDir())
	o.CacheSize = 4 << 10
	s := mustOpen(t, o)
	m := model{}
	putEach(t, s, m, 3000, "key%06d", "value-%d")
	require.NoError(t, s.Compact())
	all := m.rangeOf(nil, nil)
	it := s.NewIterator(IterOptions{})
	n := 0
	for ok := it.First(); ok && n < len(all)/3; ok = it.Next() {
		n++
	}
	rs := readers(it)
	require.NotEmpty(t, rs, "a reader is running")
	require.NoError(t, s.Close())
	// The loop's last Next moved it onto pair n.
	for it.Valid() {
		require.Equal(t, all[n], [2]string{string(it.Key()), string(it.Value())}, "pair %d after Close", n)
		n++
		it.Next()
	}
	require.ErrorIs(t, it.Err(), ErrClosed, "the scan after %d of %d pairs", n, len(all))
	it.Close()
	waitStopped(rs) // after the Iterator's Close
}
