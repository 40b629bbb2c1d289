// Package gcfilter decides which versions of kv's cells a flush or a
// compaction keeps (Filter): every version above the read point, for
// each pinned read point the newest version at or below it, and, where
// nothing older lies beneath, no tombstone at the bottom of a key; range
// tombstones (package rangedel) count as newer versions of the keys they
// cover.
package gcfilter

import (
	"bytes"
	"slices"
	"sort"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
)

// Filter decides, cell by cell in cell order, which versions flush and
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
type Filter struct {
	// RP is the read point: versions above it are kept.
	RP uint64
	// Points are the pinned read points and RP, ascending.
	Points []uint64
	// DropTombstones: nothing older lies outside the cells filtered.
	DropTombstones bool
	// Emit receives the cells kept, in order.
	Emit func(blockenc.Cell) error
	// Dels are the range tombstones of the cells filtered.
	Dels *rangedel.Set

	key     []byte
	hasKey  bool
	prevSeq uint64   // seq of the previous version of key
	pend    []uint64 // seqs of kept tombstones not yet emitted
	dropped int64
	frag    int      // the fragment of dels holding key, or -1
	needed  [][]bool // per fragment of dels, per seq: deletes an emitted cell
}

func (f *Filter) Add(c blockenc.Cell) error {
	if !f.hasKey || !bytes.Equal(c.Key, f.key) {
		f.endKey()
		f.key = append(f.key[:0], c.Key...)
		f.hasKey = true
		f.prevSeq = ^uint64(0)
		f.frag = f.Dels.Find(c.Key)
	} else if c.Seq >= f.prevSeq {
		f.dropped++
		return nil // the same cell from a second source
	}
	newer := f.prevSeq
	if j := f.deleter(c.Seq); j >= 0 {
		newer = min(newer, f.Dels.Frags[f.frag].Seqs[j])
	}
	keep := c.Seq > f.RP || f.seen(c.Seq, newer)
	f.prevSeq = c.Seq
	if !keep {
		f.dropped++
		return nil
	}
	if f.DropTombstones {
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
func (f *Filter) deleter(seq uint64) int {
	if f.frag < 0 {
		return -1
	}
	seqs := f.Dels.Frags[f.frag].Seqs
	for j := len(seqs) - 1; j >= 0; j-- {
		if seqs[j] > seq {
			return j
		}
	}
	return -1
}

// out emits c and notes the range tombstone that deletes it for the
// readers at or above its seq (the oldest one newer than c).
func (f *Filter) out(c blockenc.Cell) error {
	if j := f.deleter(c.Seq); j >= 0 {
		if f.needed == nil {
			f.needed = make([][]bool, len(f.Dels.Frags))
		}
		if f.needed[f.frag] == nil {
			f.needed[f.frag] = make([]bool, len(f.Dels.Frags[f.frag].Seqs))
		}
		f.needed[f.frag][j] = true
	}
	return f.Emit(c)
}

// RangeDels returns the range tombstones the output needs, sorted by
// rangedel.Sort. When older cells may lie outside the cells filtered
// (!dropTombstones), that is all of them. Otherwise it is the fragments of
// those that delete an emitted cell or are above the read point (their
// writes are in flight), joined where they abut.
func (f *Filter) RangeDels() []rangedel.Tombstone {
	if f.Dels == nil {
		return nil
	}
	if !f.DropTombstones {
		dels := slices.Clone(f.Dels.Dels)
		rangedel.Sort(dels)
		return dels
	}
	return rangedel.Defragment(f.Dels.Frags, func(i int, seq uint64) bool {
		if seq > f.RP {
			return true
		}
		if f.needed == nil || f.needed[i] == nil {
			return false
		}
		return f.needed[i][slices.Index(f.Dels.Frags[i].Seqs, seq)]
	})
}

// seen reports whether a reader at some point t with seq <= t < newer sees
// the version seq (newer is the next newer version's seq).
func (f *Filter) seen(seq, newer uint64) bool {
	i := sort.Search(len(f.Points), func(i int) bool { return f.Points[i] >= seq })
	return i < len(f.Points) && f.Points[i] < newer
}

func (f *Filter) flushPending() error {
	for _, seq := range f.pend {
		if err := f.out(blockenc.Cell{Key: f.key, Seq: seq, Kind: blockenc.KindDelete}); err != nil {
			return err
		}
	}
	f.pend = f.pend[:0]
	return nil
}

// endKey drops the pending tombstones at the bottom of the key's versions.
func (f *Filter) endKey() {
	f.dropped += int64(len(f.pend))
	f.pend = f.pend[:0]
}

// Finish ends the last key.
func (f *Filter) Finish() { f.endKey() }
