package mvcc

// Snapshot pins a read point: while it is held, OldestSnapshot stays at or
// below Seq, so no version a reader at Seq can see is dropped.
type Snapshot struct {
	t   *Tracker
	pin *pin // nil once released; guarded by t.snapMu
	seq uint64
}

// pin counts the live snapshots taken at one read point.
type pin struct {
	seq uint64
	n   int
}

// pinQueue holds pins in ascending seq order. Snapshots are taken at the read
// point, which never goes down, so a new pin always belongs at the back;
// released pins are dropped once they reach the front. Taking, releasing and
// finding the oldest are O(1) amortized.
type pinQueue struct {
	q    []*pin
	head int
}

// Snapshot pins the current read point and returns it. Release it when done.
func (t *Tracker) Snapshot() *Snapshot {
	t.snapMu.Lock()
	seq := t.readPoint.Load() // read under snapMu: pins are appended in order
	p := t.pins.back()
	if p == nil || p.seq != seq {
		p = &pin{seq: seq}
		t.pins.push(p)
	}
	p.n++
	t.snapMu.Unlock()
	return &Snapshot{t: t, pin: p, seq: seq}
}

// Seq returns the pinned read point: read cells with Seq <= s.Seq().
func (s *Snapshot) Seq() uint64 { return s.seq }

// Release unpins the snapshot. Releasing it again, or releasing nil, does
// nothing. Seq stays valid after Release.
func (s *Snapshot) Release() {
	if s == nil || s.t == nil {
		return
	}
	t := s.t
	t.snapMu.Lock()
	if s.pin != nil {
		s.pin.n--
		s.pin = nil
		t.pins.dropReleased()
	}
	t.snapMu.Unlock()
}

// OldestSnapshot returns the smallest read point pinned by a live Snapshot,
// or the current read point when none is pinned. No reader, now or later,
// reads below it: flush and compaction may forget versions that are hidden
// by a newer version at or below it.
func (t *Tracker) OldestSnapshot() uint64 {
	t.snapMu.Lock()
	defer t.snapMu.Unlock()
	if p := t.pins.front(); p != nil {
		return p.seq
	}
	return t.readPoint.Load()
}

// Snapshots returns the number of live snapshots.
func (t *Tracker) Snapshots() int {
	t.snapMu.Lock()
	defer t.snapMu.Unlock()
	n := 0
	for _, p := range t.pins.q[t.pins.head:] {
		n += p.n
	}
	return n
}

func (pq *pinQueue) front() *pin {
	if pq.head == len(pq.q) {
		return nil
	}
	return pq.q[pq.head]
}

func (pq *pinQueue) back() *pin {
	if pq.head == len(pq.q) {
		return nil
	}
	return pq.q[len(pq.q)-1]
}

func (pq *pinQueue) push(p *pin) {
	if pq.head > 0 && pq.head == len(pq.q) {
		pq.q, pq.head = pq.q[:0], 0 // empty: reuse the array from the start
	}
	pq.q = append(pq.q, p)
}

// dropReleased removes released pins from the front and compacts the slice
// when more than half of it is dead.
func (pq *pinQueue) dropReleased() {
	for pq.head < len(pq.q) && pq.q[pq.head].n == 0 {
		pq.q[pq.head] = nil
		pq.head++
	}
	if pq.head > 32 && pq.head*2 > len(pq.q) {
		n := copy(pq.q, pq.q[pq.head:])
		clear(pq.q[n:])
		pq.q, pq.head = pq.q[:n], 0
	}
}
