package mvcc

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBeginCompleteOutOfOrder(t *testing.T) {
	tr := NewTracker(10)
	require.Equal(t, uint64(10), tr.ReadPoint())
	w11, w12, w13 := tr.Begin(), tr.Begin(), tr.Begin()
	require.Equal(t, [3]uint64{11, 12, 13}, [3]uint64{w11.Seq(), w12.Seq(), w13.Seq()})
	require.Equal(t, uint64(13), tr.WritePoint())

	tr.Complete(w12)
	require.Equal(t, uint64(10), tr.ReadPoint(), "11 is still open")
	tr.Complete(w11)
	require.Equal(t, uint64(12), tr.ReadPoint())
	tr.Complete(w13)
	require.Equal(t, uint64(13), tr.ReadPoint())

	// Completing again, nil, or an entry of another tracker changes nothing.
	tr.Complete(w12)
	tr.Complete(nil)
	tr.CompleteAndWait(nil)
	tr.Complete(NewTracker(100).Begin())
	w14 := tr.Begin()
	require.Equal(t, uint64(14), w14.Seq())
	tr.Complete(w13)
	require.Equal(t, uint64(13), tr.ReadPoint())
	tr.CompleteAndWait(w14)
	require.Equal(t, uint64(14), tr.ReadPoint())
}

// TestRingGrowth keeps more writes open than the ring's first size and
// completes them in a scrambled order.
func TestRingGrowth(t *testing.T) {
	tr := NewTracker(0)
	rng := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 20; round++ {
		base := tr.ReadPoint()
		ws := make([]*WriteEntry, 1+rng.IntN(200))
		for i := range ws {
			ws[i] = tr.Begin()
		}
		done := make([]bool, len(ws))
		for _, i := range rng.Perm(len(ws)) {
			tr.Complete(ws[i])
			done[i] = true
			want := base
			for j := range done {
				if !done[j] {
					break
				}
				want = ws[j].Seq()
			}
			require.Equal(t, want, tr.ReadPoint())
		}
	}
}

// TestReadPointNeverPassesOpenWrite runs writers that complete in random
// order while a checker verifies that every seq at or below the read point
// has been completed.
func TestReadPointNeverPassesOpenWrite(t *testing.T) {
	const writers, perWriter = 8, 2000
	tr := NewTracker(0)
	completed := make([]atomic.Bool, writers*perWriter+1)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	var checks atomic.Int64
	checkerOK := make(chan bool, 1) // whether the checker saw no read point pass an open write
	go func() {
		ok := true
		defer func() { checkerOK <- ok }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			rp := tr.ReadPoint()
			var open uint64 // the highest open write at or below rp, 0 for none
			for s := rp; s > 0 && s > rp-64; s-- {
				if !completed[s].Load() {
					open = s
					break
				}
			}
			if ok = assert.Zero(t, open, "read point %d passed an open write", rp); !ok {
				return
			}
			checks.Add(1)
		}
	}()
	for g := 0; g < writers; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(g), 7))
			for i := 0; i < perWriter; i++ {
				w := tr.Begin()
				if rng.IntN(8) == 0 {
					time.Sleep(time.Microsecond)
				}
				completed[w.Seq()].Store(true)
				if rng.IntN(2) == 0 {
					tr.CompleteAndWait(w)
					assert.GreaterOrEqual(t, tr.ReadPoint(), w.Seq(), "read point after CompleteAndWait(%d)", w.Seq())
				} else {
					tr.Complete(w)
				}
			}
		}(g)
	}
	wg.Wait()
	close(stop)
	require.True(t, <-checkerOK, "the checker found the read point past an open write")
	require.Equal(t, uint64(writers*perWriter), tr.ReadPoint())
	require.NotZero(t, checks.Load(), "the checker never ran")
}

func TestCompleteAndWaitBlocks(t *testing.T) {
	tr := NewTracker(0)
	w1, w2 := tr.Begin(), tr.Begin()
	returned := make(chan uint64)
	go func() {
		tr.CompleteAndWait(w2)
		returned <- tr.ReadPoint()
	}()
	select {
	case rp := <-returned:
		require.Failf(t, "CompleteAndWait(2) returned early", "read point %d before 1 completed", rp)
	case <-time.After(50 * time.Millisecond):
	}
	tr.Complete(w1)
	select {
	case rp := <-returned:
		require.Equal(t, uint64(2), rp)
	case <-time.After(10 * time.Second):
		require.Fail(t, "CompleteAndWait did not return after the earlier write completed")
	}
}
