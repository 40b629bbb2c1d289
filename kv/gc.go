package kv

import (
	"bytes"
	"slices"
	"sort"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
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
//
// The range tombstones of the cells filtered (dels) count as newer
// versions of every key they cover, so the versions they delete go once
// no read point lies between them and the tombstone. The filter notes, per
// fragment of dels, the tombstones that still delete a cell it emits:
// rangeDels returns the tombstones the output needs.
type gcFilter struct {
	rp             uint64
	points         []uint64
	dropTombstones bool
	emit           func(blockenc.Cell) error
	dels           *rangedel.Set

	key     []byte
	hasKey  bool
	prevSeq uint64   // seq of the previous version of key
	pend    []uint64 // seqs of kept tombstones not yet emitted
	dropped int64
	frag    int      // the fragment of dels holding key, or -1
	needed  [][]bool // per fragment of dels, per seq: deletes an emitted cell
}

func (f *gcFilter) add(c blockenc.Cell) error {
	if !f.hasKey || !bytes.Equal(c.Key, f.key) {
		f.endKey()
		f.key = append(f.key[:0], c.Key...)
		f.hasKey = true
		f.prevSeq = ^uint64(0)
		f.frag = f.dels.Find(c.Key)
	} else if c.Seq >= f.prevSeq {
		f.dropped++
		return nil // the same cell from a second source
	}
	newer := f.prevSeq
	if j := f.deleter(c.Seq); j >= 0 {
		newer = min(newer, f.dels.Frags[f.frag].Seqs[j])
	}
	keep := c.Seq > f.rp || f.seen(c.Seq, newer)
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
	return f.out(c)
}

// deleter returns the index in the current fragment's seqs (descending) of
// the oldest range tombstone newer than seq, or -1.
func (f *gcFilter) deleter(seq uint64) int {
	if f.frag < 0 {
		return -1
	}
	seqs := f.dels.Frags[f.frag].Seqs
	for j := len(seqs) - 1; j >= 0; j-- {
		if seqs[j] > seq {
			return j
		}
	}
	return -1
}

// out emits c and notes the range tombstone that deletes it for the
// readers at or above its seq (the oldest one newer than c).
func (f *gcFilter) out(c blockenc.Cell) error {
	if j := f.deleter(c.Seq); j >= 0 {
		if f.needed == nil {
			f.needed = make([][]bool, len(f.dels.Frags))
		}
		if f.needed[f.frag] == nil {
			f.needed[f.frag] = make([]bool, len(f.dels.Frags[f.frag].Seqs))
		}
		f.needed[f.frag][j] = true
	}
	return f.emit(c)
}

// rangeDels returns the range tombstones the output needs, sorted by
// rangedel.Sort. When older cells may lie outside the cells filtered
// (!dropTombstones), that is all of them. Otherwise it is the fragments of
// those that delete an emitted cell or are above the read point (their
// writes are in flight), joined where they abut.
func (f *gcFilter) rangeDels() []rangedel.Tombstone {
	if f.dels == nil {
		return nil
	}
	if !f.dropTombstones {
		dels := slices.Clone(f.dels.Dels)
		rangedel.Sort(dels)
		return dels
	}
	return rangedel.Defragment(f.dels.Frags, func(i int, seq uint64) bool {
		if seq > f.rp {
			return true
		}
		if f.needed == nil || f.needed[i] == nil {
			return false
		}
		return f.needed[i][slices.Index(f.dels.Frags[i].Seqs, seq)]
	})
}

// seen reports whether a reader at some point t with seq <= t < newer sees
// the version seq (newer is the next newer version's seq).
func (f *gcFilter) seen(seq, newer uint64) bool {
	i := sort.Search(len(f.points), func(i int) bool { return f.points[i] >= seq })
	return i < len(f.points) && f.points[i] < newer
}

func (f *gcFilter) flushPending() error {
	for _, seq := range f.pend {
		if err := f.out(blockenc.Cell{Key: f.key, Seq: seq, Kind: blockenc.KindDelete}); err != nil {
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
