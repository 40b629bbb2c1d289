package mvcc

import (
	"sync"
	"sync/atomic"
)

// Tracker assigns sequence numbers and tracks the read point. The zero value
// is not usable: call NewTracker.
type Tracker struct {
	readPoint atomic.Uint64 // written under mu, read lock-free

	mu         sync.Mutex
	writePoint uint64 // last seq handed out by Begin
	// open holds one flag per seq in (readPoint, writePoint]: open.at(i) is
	// true once seq readPoint+1+i has completed.
	open    ring
	waiters int        // goroutines waiting in CompleteAndWait
	cond    *sync.Cond // signalled when the read point advances and waiters > 0

	snapMu sync.Mutex
	pins   pinQueue
}

// WriteEntry is one write (or one batch of writes) in flight. Get it from
// Begin and hand it back to Complete or CompleteAndWait exactly once.
type WriteEntry struct {
	seq  uint64
	done bool // guarded by Tracker.mu
}

// Seq returns the sequence number of the write. All cells of a batch carry it.
func (w *WriteEntry) Seq() uint64 { return w.seq }

// NewTracker returns a Tracker whose next write gets seq last+1 and whose
// read point is last: last is the highest seq recovered from disk (0 for an
// empty store).
func NewTracker(last uint64) *Tracker {
	t := &Tracker{writePoint: last}
	t.readPoint.Store(last)
	t.cond = sync.NewCond(&t.mu)
	return t
}

// Begin starts a write and returns its entry; its Seq is one above the last
// seq handed out. The read point cannot pass it until it is completed.
func (t *Tracker) Begin() *WriteEntry {
	t.mu.Lock()
	t.writePoint++
	w := &WriteEntry{seq: t.writePoint}
	t.open.push()
	t.mu.Unlock()
	return w
}

// Complete marks w finished and advances the read point over every completed
// write at its front. It does not wait: the read point may still be below
// w.Seq() when it returns. Completing an entry a second time, or a nil entry,
// does nothing.
func (t *Tracker) Complete(w *WriteEntry) {
	if w == nil {
		return
	}
	t.mu.Lock()
	t.completeLocked(w)
	t.mu.Unlock()
}

// CompleteAndWait completes w and returns once the read point has reached
// w.Seq(), that is once every earlier write has completed too. It blocks on a
// condition variable, not in a spin loop.
func (t *Tracker) CompleteAndWait(w *WriteEntry) {
	if w == nil {
		return
	}
	t.mu.Lock()
	t.completeLocked(w)
	if t.readPoint.Load() < w.seq {
		t.waiters++
		for t.readPoint.Load() < w.seq {
			t.cond.Wait()
		}
		t.waiters--
	}
	t.mu.Unlock()
}

func (t *Tracker) completeLocked(w *WriteEntry) {
	rp := t.readPoint.Load()
	if w.done || w.seq <= rp || w.seq > t.writePoint {
		// Done already, or not an entry of this tracker: nothing to do.
		return
	}
	w.done = true
	t.open.set(int(w.seq - rp - 1))
	n := t.open.popDone()
	if n == 0 {
		return
	}
	t.readPoint.Store(rp + uint64(n))
	if t.waiters > 0 {
		t.cond.Broadcast()
	}
}

// ReadPoint returns the highest seq such that every write with a seq at or
// below it has completed. Readers see cells with Seq <= ReadPoint().
func (t *Tracker) ReadPoint() uint64 { return t.readPoint.Load() }

// WritePoint returns the last seq handed out by Begin.
func (t *Tracker) WritePoint() uint64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.writePoint
}

// Advance moves the write and read points up to last when no write is in
// flight and they are below it, for a reader that follows the seqs of a
// writer elsewhere (a read-only Store). It reports whether it did.
func (t *Tracker) Advance(last uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.writePoint != t.readPoint.Load() || last <= t.writePoint {
		return false
	}
	t.writePoint = last
	t.readPoint.Store(last)
	return true
}
