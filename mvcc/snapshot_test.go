package mvcc

import (
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSnapshots(t *testing.T) {
	tr := NewTracker(5)
	require.Equal(t, uint64(5), tr.OldestSnapshot(), "no snapshot: the read point")
	s5 := tr.Snapshot()
	s5b := tr.Snapshot()
	require.Equal(t, uint64(5), s5.Seq())
	tr.Complete(tr.Begin())
	tr.Complete(tr.Begin())
	s7 := tr.Snapshot()
	require.Equal(t, uint64(7), s7.Seq())
	require.Equal(t, 3, tr.Snapshots())
	require.Equal(t, uint64(5), tr.OldestSnapshot())

	s5.Release()
	s5.Release() // idempotent: must not unpin s5b
	require.Equal(t, uint64(5), tr.OldestSnapshot())
	require.Equal(t, 2, tr.Snapshots())
	s5b.Release()
	require.Equal(t, uint64(7), tr.OldestSnapshot())
	tr.Complete(tr.Begin())
	require.Equal(t, uint64(7), tr.OldestSnapshot(), "s7 still pinned")
	s7.Release()
	require.Equal(t, uint64(8), tr.OldestSnapshot(), "nothing pinned: the read point")
	require.Equal(t, 0, tr.Snapshots())
	require.Equal(t, uint64(7), s7.Seq(), "Seq survives Release")
	var nilSnap *Snapshot
	nilSnap.Release()
}

// TestSnapshotsReleasedOutOfOrder releases many snapshots in random order and
// checks OldestSnapshot against a brute-force minimum after each step.
func TestSnapshotsReleasedOutOfOrder(t *testing.T) {
	tr := NewTracker(0)
	rng := rand.New(rand.NewPCG(3, 4))
	var live []*Snapshot
	for step := 0; step < 5000; step++ {
		switch r := rng.IntN(10); {
		case r < 3:
			tr.Complete(tr.Begin())
		case r < 6 || len(live) == 0:
			live = append(live, tr.Snapshot())
		default:
			i := rng.IntN(len(live))
			live[i].Release()
			live[i] = live[len(live)-1]
			live = live[:len(live)-1]
		}
		want := tr.ReadPoint()
		for _, s := range live {
			want = min(want, s.Seq())
		}
		require.Equal(t, want, tr.OldestSnapshot(), "step %d", step)
		require.Equal(t, len(live), tr.Snapshots())
	}
}

func TestConcurrentSnapshots(t *testing.T) {
	tr := NewTracker(0)
	var wg, writer sync.WaitGroup
	stop := make(chan struct{})
	writer.Add(1)
	go func() {
		defer writer.Done()
		for {
			select {
			case <-stop:
				return
			default:
				tr.Complete(tr.Begin())
			}
		}
	}()
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				s := tr.Snapshot()
				assert.LessOrEqual(t, tr.OldestSnapshot(), s.Seq(), "OldestSnapshot above a live snapshot")
				s.Release()
			}
		}()
	}
	wg.Wait()
	close(stop)
	writer.Wait()
	require.Equal(t, 0, tr.Snapshots())
	require.Equal(t, tr.ReadPoint(), tr.OldestSnapshot())
}
