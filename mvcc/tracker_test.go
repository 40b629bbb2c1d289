package mvcc

import (
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestBeginCompleteOutOfOrder(t *testing.T) {
	tr := NewTracker(10)
	equal(t, uint64(10), tr.ReadPoint())
	w11, w12, w13 := tr.Begin(), tr.Begin(), tr.Begin()
	equal(t, [3]uint64{11, 12, 13}, [3]uint64{w11.Seq(), w12.Seq(), w13.Seq()})
	equal(t, uint64(13), tr.WritePoint())

	tr.Complete(w12)
	equal(t, uint64(10), tr.ReadPoint(), "11 is still open")
	tr.Complete(w11)
	equal(t, uint64(12), tr.ReadPoint())
	tr.Complete(w13)
	equal(t, uint64(13), tr.ReadPoint())

	// Completing again, nil, or an entry of another tracker changes nothing.
	tr.Complete(w12)
	tr.Complete(nil)
	tr.CompleteAndWait(nil)
	tr.Complete(NewTracker(100).Begin())
	w14 := tr.Begin()
	equal(t, uint64(14), w14.Seq())
	tr.Complete(w13)
	equal(t, uint64(13), tr.ReadPoint())
	tr.CompleteAndWait(w14)
	equal(t, uint64(14), tr.ReadPoint())
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
			equal(t, want, tr.ReadPoint())
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
	checkerDone := make(chan error, 1)
	go func() {
		defer close(checkerDone)
		for {
			select {
			case <-stop:
				return
			default:
			}
			rp := tr.ReadPoint()
			for s := rp; s > 0 && s > rp-64; s-- {
				if !completed[s].Load() {
					checkerDone <- fmt.Errorf("read point %d passed open write %d", rp, s)
					return
				}
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
					if rp := tr.ReadPoint(); rp < w.Seq() {
						t.Errorf("CompleteAndWait(%d) returned at read point %d", w.Seq(), rp)
					}
				} else {
					tr.Complete(w)
				}
			}
		}(g)
	}
	wg.Wait()
	close(stop)
	if err := <-checkerDone; err != nil {
		t.Fatal(err)
	}
	equal(t, uint64(writers*perWriter), tr.ReadPoint())
	if checks.Load() == 0 {
		t.Fatal("the checker never ran")
	}
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
		t.Fatalf("CompleteAndWait(2) returned at read point %d before 1 completed", rp)
	case <-time.After(50 * time.Millisecond):
	}
	tr.Complete(w1)
	select {
	case rp := <-returned:
		equal(t, uint64(2), rp)
	case <-time.After(10 * time.Second):
		t.Fatal("CompleteAndWait did not return after the earlier write completed")
	}
}

func TestSnapshots(t *testing.T) {
	tr := NewTracker(5)
	equal(t, uint64(5), tr.OldestSnapshot(), "no snapshot: the read point")
	s5 := tr.Snapshot()
	s5b := tr.Snapshot()
	equal(t, uint64(5), s5.Seq())
	tr.Complete(tr.Begin())
	tr.Complete(tr.Begin())
	s7 := tr.Snapshot()
	equal(t, uint64(7), s7.Seq())
	equal(t, 3, tr.Snapshots())
	equal(t, uint64(5), tr.OldestSnapshot())

	s5.Release()
	s5.Release() // idempotent: must not unpin s5b
	equal(t, uint64(5), tr.OldestSnapshot())
	equal(t, 2, tr.Snapshots())
	s5b.Release()
	equal(t, uint64(7), tr.OldestSnapshot())
	tr.Complete(tr.Begin())
	equal(t, uint64(7), tr.OldestSnapshot(), "s7 still pinned")
	s7.Release()
	equal(t, uint64(8), tr.OldestSnapshot(), "nothing pinned: the read point")
	equal(t, 0, tr.Snapshots())
	equal(t, uint64(7), s7.Seq(), "Seq survives Release")
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
		equal(t, want, tr.OldestSnapshot(), "step %d", step)
		equal(t, len(live), tr.Snapshots())
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
				if old := tr.OldestSnapshot(); old > s.Seq() {
					t.Errorf("OldestSnapshot %d above a live snapshot %d", old, s.Seq())
				}
				s.Release()
			}
		}()
	}
	wg.Wait()
	close(stop)
	writer.Wait()
	equal(t, 0, tr.Snapshots())
	equal(t, tr.ReadPoint(), tr.OldestSnapshot())
}

// equal fails the test when got != want. (testify cannot be used: go.sum
// lacks the lines for its dependencies.)
func equal[T comparable](t *testing.T, want, got T, msgAndArgs ...any) {
	t.Helper()
	if got != want {
		msg := ""
		if len(msgAndArgs) > 0 {
			msg = fmt.Sprintf(msgAndArgs[0].(string), msgAndArgs[1:]...) + ": "
		}
		t.Fatalf("%sgot %v, want %v", msg, got, want)
	}
}
