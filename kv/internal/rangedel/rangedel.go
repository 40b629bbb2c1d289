// Package rangedel holds range tombstones: a DeleteRange(start, end) at seq
// deletes, for a reader at a read point at or above seq, every version
// below seq of every key in [start, end). A Set of tombstones is cut into
// fragments (spans covered by the same tombstones, as Pebble's keyspan
// fragmenter does), so that the tombstones over a key are found by one
// binary search and a scan through a fragment searches once (Check).
//
// Tombstones are kept in a segment's meta (package segment's format);
// this package holds no bytes on disk.
package rangedel

import (
	"bytes"
	"cmp"
	"slices"
	"sort"
)

// Tombstone is one range tombstone, written by DeleteRange: for a reader at
// a read point at or above seq, every version with a seq below seq of
// every key in [start, end) is deleted. Versions at seq itself (written
// later in the same batch) and above it are not.
type Tombstone struct {
	Start, End []byte
	Seq        uint64
}

// Fragment is a key span [start, end) and the seqs, descending, of every
// range tombstone that covers it whole. The fragments of a set of range
// tombstones do not overlap and are sorted by key: the key of a cell lies
// in at most one, found by binary search.
type Fragment struct {
	Start, End []byte
	Seqs       []uint64
}

// Set is an immutable set of range tombstones and their fragments.
// A nil *Set is the empty set.
type Set struct {
	Dels  []Tombstone
	Frags []Fragment
}

// New fragments dels (which it keeps); nil when dels is empty.
func New(dels []Tombstone) *Set {
	if len(dels) == 0 {
		return nil
	}
	return &Set{Dels: dels, Frags: fragmentDels(dels)}
}

// fragmentDels cuts dels at every start and end key into spans covered by
// the same tombstones (as Pebble's keyspan fragmenter does), dropping the
// spans no tombstone covers and merging adjacent spans with the same seqs.
func fragmentDels(dels []Tombstone) []Fragment {
	bounds := make([][]byte, 0, 2*len(dels))
	for _, d := range dels {
		bounds = append(bounds, d.Start, d.End)
	}
	slices.SortFunc(bounds, bytes.Compare)
	bounds = slices.CompactFunc(bounds, bytes.Equal)
	// Tombstones by start key: a sweep adds each at its start and drops it
	// past its end.
	byStart := slices.Clone(dels)
	slices.SortFunc(byStart, func(a, b Tombstone) int { return bytes.Compare(a.Start, b.Start) })
	var frags []Fragment
	var active []Tombstone
	next := 0
	for i := 0; i+1 < len(bounds); i++ {
		lo, hi := bounds[i], bounds[i+1]
		for next < len(byStart) && bytes.Compare(byStart[next].Start, lo) <= 0 {
			active = append(active, byStart[next])
			next++
		}
		active = slices.DeleteFunc(active, func(d Tombstone) bool { return bytes.Compare(d.End, lo) <= 0 })
		if len(active) == 0 {
			continue
		}
		seqs := make([]uint64, 0, len(active))
		for _, d := range active {
			seqs = append(seqs, d.Seq)
		}
		slices.Sort(seqs)
		slices.Reverse(seqs)
		seqs = slices.Compact(seqs)
		if n := len(frags); n > 0 && bytes.Equal(frags[n-1].End, lo) && slices.Equal(frags[n-1].Seqs, seqs) {
			frags[n-1].End = hi
			continue
		}
		frags = append(frags, Fragment{Start: lo, End: hi, Seqs: seqs})
	}
	return frags
}

// Find returns the index of the fragment holding key, or -1.
func (r *Set) Find(key []byte) int {
	if r == nil {
		return -1
	}
	i := sort.Search(len(r.Frags), func(i int) bool { return bytes.Compare(r.Frags[i].End, key) > 0 })
	if i < len(r.Frags) && bytes.Compare(r.Frags[i].Start, key) <= 0 {
		return i
	}
	return -1
}

// Cover returns the largest seq at or below rp of the tombstones covering
// key, 0 when none does: a version of key below it is deleted for a reader
// at rp.
func (r *Set) Cover(key []byte, rp uint64) uint64 {
	i := r.Find(key)
	if i < 0 {
		return 0
	}
	return coverOf(r.Frags[i].Seqs, rp)
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

// Len returns the number of tombstones.
func (r *Set) Len() int {
	if r == nil {
		return 0
	}
	return len(r.Dels)
}

// Union returns the set of the tombstones of every set in rs, nil when
// they hold none.
func Union(rs ...*Set) *Set {
	n, only := 0, (*Set)(nil)
	for _, r := range rs {
		if r.Len() > 0 {
			n++
			only = r
		}
	}
	if n <= 1 {
		return only
	}
	var dels []Tombstone
	for _, r := range rs {
		if r != nil {
			dels = append(dels, r.Dels...)
		}
	}
	return New(dels)
}

// Check is the one place that decides whether a range tombstone hides a
// cell from a reader at rp: Get and both directions of an Iterator ask it.
// It remembers the last Fragment it found, so a scan through a Fragment
// searches once.
type Check struct {
	r    *Set
	rp   uint64
	last int // index of the last Fragment found, or -1
}

func NewCheck(r *Set, rp uint64) Check {
	return Check{r: r, rp: rp, last: -1}
}

// None reports whether d checks against no tombstone at all (inlined: a
// scan without range tombstones pays one nil test per cell).
func (d *Check) None() bool { return d.r == nil }

// Hides reports whether a range tombstone visible at rp deletes the
// version seq of key.
//
// Not inlined, so that Iterator.live, which tests for no tombstones
// first, inlines into the scan loops.
//
//go:noinline
func (d *Check) Hides(key []byte, seq uint64) bool {
	_, _, ok := d.Deleter(key, seq)
	return ok
}

// Deleter returns the fragment holding key and the seq of the newest
// tombstone over it visible at rp, when that tombstone deletes the version
// seq of key (ok).
func (d *Check) Deleter(key []byte, seq uint64) (f *Fragment, cover uint64, ok bool) {
	if d.r == nil {
		return nil, 0, false
	}
	if d.last < 0 || bytes.Compare(key, d.r.Frags[d.last].Start) < 0 || bytes.Compare(key, d.r.Frags[d.last].End) >= 0 {
		i := d.r.Find(key)
		if i < 0 {
			return nil, 0, false
		}
		d.last = i
	}
	f = &d.r.Frags[d.last]
	cover = coverOf(f.Seqs, d.rp)
	return f, cover, seq < cover
}

// Sort orders tombstones by start key, then end key, then seq
// descending: the order in which segment metas store them.
func Sort(dels []Tombstone) {
	slices.SortFunc(dels, func(a, b Tombstone) int {
		if c := bytes.Compare(a.Start, b.Start); c != 0 {
			return c
		}
		if c := bytes.Compare(a.End, b.End); c != 0 {
			return c
		}
		return cmp.Compare(b.Seq, a.Seq)
	})
}

// Defragment turns kept (Fragment, seq) pairs back into tombstones: for
// each seq, a run of adjacent fragments that all keep it becomes one
// tombstone. keep reports whether Fragment i keeps seq.
func Defragment(frags []Fragment, keep func(i int, seq uint64) bool) []Tombstone {
	var out []Tombstone
	open := map[uint64]int{} // seq -> index in out of its latest tombstone
	for i, f := range frags {
		for _, seq := range f.Seqs {
			if !keep(i, seq) {
				continue
			}
			if j, ok := open[seq]; ok && bytes.Equal(out[j].End, f.Start) {
				out[j].End = f.End
				continue
			}
			open[seq] = len(out)
			out = append(out, Tombstone{Start: f.Start, End: f.End, Seq: seq})
		}
	}
	Sort(out)
	return out
}

// Bound is what a range tombstone counts against a memstore's
// size: its keys and the bookkeeping of its fragments.
func Bound(start, end []byte) int64 {
	return int64(2*(len(start)+len(end)) + 128)
}
