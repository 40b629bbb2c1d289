package kv

import (
	"bytes"
	"slices"
	"sort"

	"github.com/kvenc/kvenc/blockenc"
)

// gcPoints returns the read point and every pinned read point (snapshots
// and iterators), ascending with the read point last. Both are taken under
// snapMu, so a snapshot taken later pins a seq at or above the read point.
func (s *Store) gcPoints() (rp uint64, points []uint64) {
	s.snapMu.Lock()
	defer s.snapMu.Unlock()
	rp = s.tracker.ReadPoint()
	for p := range s.snaps {
		if p < rp {
			points = append(points, p)
		}
	}
	slices.Sort(points)
	return rp, append(points, rp)
}

// gcFilter decides, cell by cell in cell order, which versions flush and
// compaction keep: every version above the read point (writes in flight),
// and for each pinned read point (and the read point itself) the newest
// version at or below it. With dropTombstones (nothing older lies outside
// the cells filtered) it also drops a key's oldest kept versions while they
// are tombstones: they hide nothing. Equal key and seq twice keeps one.
type gcFilter struct {
	rp             uint64
	points         []uint64
	dropTombstones bool
	emit           func(blockenc.Cell) error

	key     []byte
	hasKey  bool
	prevSeq uint64   // seq of the previous version of key
	pend    []uint64 // seqs of kept tombstones not yet emitted
	dropped int64
}

func (f *gcFilter) add(c blockenc.Cell) error {
	if !f.hasKey || !bytes.Equal(c.Key, f.key) {
		f.endKey()
		f.key = append(f.key[:0], c.Key...)
		f.hasKey = true
		f.prevSeq = ^uint64(0)
	} else if c.Seq >= f.prevSeq {
		f.dropped++
		return nil // the same cell from a second source
	}
	keep := c.Seq > f.rp || f.seen(c.Seq, f.prevSeq)
	f.prevSeq = c.Seq
	if !keep {
		f.dropped++
		return nil
	}
	if f.dropTombstones {
		if c.Kind == blockenc.KindDelete {
			f.pend = append(f.pend, c.Seq)
			return nil
		}
		if err := f.flushPending(); err != nil {
			return err
		}
	}
	return f.emit(c)
}

// seen reports whether a reader at some point t with seq <= t < newer sees
// the version seq (newer is the next newer version's seq).
func (f *gcFilter) seen(seq, newer uint64) bool {
	i := sort.Search(len(f.points), func(i int) bool { return f.points[i] >= seq })
	return i < len(f.points) && f.points[i] < newer
}

func (f *gcFilter) flushPending() error {
	for _, seq := range f.pend {
		if err := f.emit(blockenc.Cell{Key: f.key, Seq: seq, Kind: blockenc.KindDelete}); err != nil {
			return err
		}
	}
	f.pend = f.pend[:0]
	return nil
}

// endKey drops the pending tombstones at the bottom of the key's versions.
func (f *gcFilter) endKey() {
	f.dropped += int64(len(f.pend))
	f.pend = f.pend[:0]
}

// finish ends the last key.
func (f *gcFilter) finish() { f.endKey() }
