package kv

import (
	"bytes"
	"cmp"
	"slices"
	"sort"
)

// rangeDel is one range tombstone, written by DeleteRange: for a reader at
// a read point at or above seq, every version with a seq below seq of
// every key in [start, end) is deleted. Versions at seq itself (written
// later in the same batch) and above it are not.
type rangeDel struct {
	start, end []byte
	seq        uint64
}

// fragment is a key span [start, end) and the seqs, descending, of every
// range tombstone that covers it whole. The fragments of a set of range
// tombstones do not overlap and are sorted by key: the key of a cell lies
// in at most one, found by binary search.
type fragment struct {
	start, end []byte
	seqs       []uint64
}

// rangeDels is an immutable set of range tombstones and their fragments.
// A nil *rangeDels is the empty set.
type rangeDels struct {
	dels  []rangeDel
	frags []fragment
}

// newRangeDels fragments dels (which it keeps); nil when dels is empty.
func newRangeDels(dels []rangeDel) *rangeDels {
	if len(dels) == 0 {
		return nil
	}
	return &rangeDels{dels: dels, frags: fragmentDels(dels)}
}

// fragmentDels cuts dels at every start and end key into spans covered by
// the same tombstones (as Pebble's keyspan fragmenter does), dropping the
// spans no tombstone covers and merging adjacent spans with the same seqs.
func fragmentDels(dels []rangeDel) []fragment {
	bounds := make([][]byte, 0, 2*len(dels))
	for _, d := range dels {
		bounds = append(bounds, d.start, d.end)
	}
	slices.SortFunc(bounds, bytes.Compare)
	bounds = slices.CompactFunc(bounds, bytes.Equal)
	// Tombstones by start key: a sweep adds each at its start and drops it
	// past its end.
	byStart := slices.Clone(dels)
	slices.SortFunc(byStart, func(a, b rangeDel) int { return bytes.Compare(a.start, b.start) })
	var frags []fragment
	var active []rangeDel
	next := 0
	for i := 0; i+1 < len(bounds); i++ {
		lo, hi := bounds[i], bounds[i+1]
		for next < len(byStart) && bytes.Compare(byStart[next].start, lo) <= 0 {
			active = append(active, byStart[next])
			next++
		}
		active = slices.DeleteFunc(active, func(d rangeDel) bool { return bytes.Compare(d.end, lo) <= 0 })
		if len(active) == 0 {
			continue
		}
		seqs := make([]uint64, 0, len(active))
		for _, d := range active {
			seqs = append(seqs, d.seq)
		}
		slices.Sort(seqs)
		slices.Reverse(seqs)
		seqs = slices.Compact(seqs)
		if n := len(frags); n > 0 && bytes.Equal(frags[n-1].end, lo) && slices.Equal(frags[n-1].seqs, seqs) {
			frags[n-1].end = hi
			continue
		}
		frags = append(frags, fragment{start: lo, end: hi, seqs: seqs})
	}
	return frags
}

// find returns the index of the fragment holding key, or -1.
func (r *rangeDels) find(key []byte) int {
	if r == nil {
		return -1
	}
	i := sort.Search(len(r.frags), func(i int) bool { return bytes.Compare(r.frags[i].end, key) > 0 })
	if i < len(r.frags) && bytes.Compare(r.frags[i].start, key) <= 0 {
		return i
	}
	return -1
}

// cover returns the largest seq at or below rp of the tombstones covering
// key, 0 when none does: a version of key below it is deleted for a reader
// at rp.
func (r *rangeDels) cover(key []byte, rp uint64) uint64 {
	i := r.find(key)
	if i < 0 {
		return 0
	}
	return coverOf(r.frags[i].seqs, rp)
}

// coverOf returns the first (largest) of seqs, descending, at or below rp.
func coverOf(seqs []uint64, rp uint64) uint64 {
	for _, s := range seqs {
		if s <= rp {
			return s
		}
	}
	return 0
}

// len returns the number of tombstones.
func (r *rangeDels) len() int {
	if r == nil {
		return 0
	}
	return len(r.dels)
}

// union returns the set of the tombstones of every set in rs, nil when
// they hold none.
func unionRangeDels(rs ...*rangeDels) *rangeDels {
	n, only := 0, (*rangeDels)(nil)
	for _, r := range rs {
		if r.len() > 0 {
			n++
			only = r
		}
	}
	if n <= 1 {
		return only
	}
	var dels []rangeDel
	for _, r := range rs {
		if r != nil {
			dels = append(dels, r.dels...)
		}
	}
	return newRangeDels(dels)
}

// delCheck is the one place that decides whether a range tombstone hides a
// cell from a reader at rp: Get and both directions of an Iterator ask it.
// It remembers the last fragment it found, so a scan through a fragment
// searches once.
type delCheck struct {
	r    *rangeDels
	rp   uint64
	last int // index of the last fragment found, or -1
}

func newDelCheck(r *rangeDels, rp uint64) delCheck {
	return delCheck{r: r, rp: rp, last: -1}
}

// hides reports whether a range tombstone visible at rp deletes the
// version seq of key.
//
// Not inlined, so that Iterator.live, which tests for no tombstones
// first, inlines into the scan loops.
//
//go:noinline
func (d *delCheck) hides(key []byte, seq uint64) bool {
	_, _, ok := d.deleter(key, seq)
	return ok
}

// deleter returns the fragment holding key and the seq of the newest
// tombstone over it visible at rp, when that tombstone deletes the version
// seq of key (ok).
func (d *delCheck) deleter(key []byte, seq uint64) (f *fragment, cover uint64, ok bool) {
	if d.r == nil {
		return nil, 0, false
	}
	if d.last < 0 || bytes.Compare(key, d.r.frags[d.last].start) < 0 || bytes.Compare(key, d.r.frags[d.last].end) >= 0 {
		i := d.r.find(key)
		if i < 0 {
			return nil, 0, false
		}
		d.last = i
	}
	f = &d.r.frags[d.last]
	cover = coverOf(f.seqs, d.rp)
	return f, cover, seq < cover
}

// sortRangeDels orders tombstones by start key, then end key, then seq
// descending: the order in which segment metas store them.
func sortRangeDels(dels []rangeDel) {
	slices.SortFunc(dels, func(a, b rangeDel) int {
		if c := bytes.Compare(a.start, b.start); c != 0 {
			return c
		}
		if c := bytes.Compare(a.end, b.end); c != 0 {
			return c
		}
		return cmp.Compare(b.seq, a.seq)
	})
}

// defragment turns kept (fragment, seq) pairs back into tombstones: for
// each seq, a run of adjacent fragments that all keep it becomes one
// tombstone. keep reports whether fragment i keeps seq.
func defragment(frags []fragment, keep func(i int, seq uint64) bool) []rangeDel {
	var out []rangeDel
	open := map[uint64]int{} // seq -> index in out of its latest tombstone
	for i, f := range frags {
		for _, seq := range f.seqs {
			if !keep(i, seq) {
				continue
			}
			if j, ok := open[seq]; ok && bytes.Equal(out[j].end, f.start) {
				out[j].end = f.end
				continue
			}
			open[seq] = len(out)
			out = append(out, rangeDel{start: f.start, end: f.end, seq: seq})
		}
	}
	sortRangeDels(out)
	return out
}

// rangeDelBound is what a range tombstone counts against a memstore's
// size: its keys and the bookkeeping of its fragments.
func rangeDelBound(start, end []byte) int64 {
	return int64(2*(len(start)+len(end)) + 128)
}

// addRangeDels adds the tombstones of one write to the memtable's (a new
// set: readers holding the old one keep it).
func (m *memtable) addRangeDels(add []rangeDel) {
	m.delMu.Lock()
	defer m.delMu.Unlock()
	old := m.dels.Load()
	dels := make([]rangeDel, 0, old.len()+len(add))
	if old != nil {
		dels = append(dels, old.dels...)
	}
	m.dels.Store(newRangeDels(append(dels, add...)))
}

// segsChanged refragments the union of the segments' range tombstones
// after s.segs changed (a flush or compaction installed a segment): once
// per change, not per read. The caller holds s.mu for writing.
func (s *Store) segsChanged() {
	dels := make([]*rangeDels, 0, len(s.segs))
	for _, g := range s.segs {
		dels = append(dels, g.dels)
	}
	s.segDels = unionRangeDels(dels...)
}

// coverLocked returns the largest seq at or below rp of the range
// tombstones over key in every memstore and segment (0 when none): the
// versions of key below it are deleted for a reader at rp. The caller
// holds s.mu.
func (s *Store) coverLocked(key []byte, rp uint64) uint64 {
	c := s.active.dels.Load().cover(key, rp)
	for _, mt := range s.frozen {
		c = max(c, mt.dels.Load().cover(key, rp))
	}
	return max(c, s.segDels.cover(key, rp))
}
