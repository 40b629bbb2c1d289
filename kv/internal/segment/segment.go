package segment

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"slices"
	"sort"
	"sync/atomic"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/bloom"
	"github.com/kvenc/kvenc/kv/internal/rangedel"
)

// segment is one immutable sorted run of cells: blocks under
// N+'s'+id+lastKey and a meta under N+'m'+id (N: the namespace). Its block index (the last key
// of every block) is kept in memory, rebuilt at Open from the block keys.
type Segment struct {
	Meta      Meta
	BlockKeys [][]byte      // the engine key of block i
	LastKeys  [][]byte      // the last key of block i (aliases BlockKeys[i])
	Dels      *rangedel.Set // the range tombstones of Meta.Dels, fragmented
	// Parts: the first block of each of Meta.Parts and its Dict (nil:
	// the blocks carry their own), in block order.
	Parts []DictPart
	// Filters: the first block of each of Meta.Filters and its key
	// filter (the zero bloom.Filter: none), in block order; empty when
	// the meta has none (every block is searched).
	Filters []FilterPart
	*Life
}

// FilterPart is the in-memory form of a FilterRun.
type FilterPart struct {
	First  int
	Filter bloom.Filter
}

// MayHold reports whether block i of g may hold a cell of the key whose
// hash is h (bloom.Hash): false when the key filter of the block's run
// says it does not.
func (g *Segment) MayHold(i int, h uint64) bool {
	f := g.Filters
	j := runOf(len(f), func(j int) int { return f[j].First }, i)
	return j < 0 || f[j].Filter.MayContain(h)
}

// runOf returns the run of n (whose first blocks first gives, ascending
// from 0) that holds block i, or -1 when there are none.
func runOf(n int, first func(j int) int, i int) int {
	if n <= 1 {
		return n - 1
	}
	return sort.Search(n, func(j int) bool { return first(j) > i }) - 1
}

// SetFilters makes g.Filters from g.Meta.Filters, whose filters must be
// set (FilterRun.SetFilter).
func (g *Segment) SetFilters() error {
	g.Filters = g.Filters[:0]
	first := 0
	for k, r := range g.Meta.Filters {
		fp := FilterPart{First: first}
		if r.NeedsFilter() {
			return fmt.Errorf("%w: segment %d key filter %d of %d bytes missing", blockenc.ErrCorrupt, g.Meta.ID, k, r.Len)
		}
		if len(r.Filter) > 0 {
			f, err := bloom.Decode(r.Filter)
			if err != nil {
				return fmt.Errorf("segment %d key filter %d: %w", g.Meta.ID, k, err)
			}
			fp.Filter = f
		}
		g.Filters = append(g.Filters, fp)
		first += int(r.Blocks)
	}
	return nil
}

// Life is what a segment shares with the segments that extend it
// (extendSegWriter), which hold its blocks too: the iterators holding any
// of them, and whether the latest was compacted away. Its blocks are
// deleted once it is obsolete and no iterator holds any of them.
type Life struct {
	Refs     atomic.Int32
	Obsolete atomic.Bool
}

// New returns a segment with meta m and a life of its own.
func New(m Meta) *Segment {
	return &Segment{Meta: m, Dels: rangedel.New(m.Dels), Life: new(Life)}
}

// Overlaps reports whether any key in [lo, hi] may be in g: between its
// first and last key, or under one of its range tombstones.
func (g *Segment) Overlaps(lo, hi []byte) bool {
	m := &g.Meta
	if m.Cells > 0 && bytes.Compare(lo, m.LastKey) <= 0 && bytes.Compare(m.FirstKey, hi) <= 0 {
		return true
	}
	for _, d := range m.Dels {
		if bytes.Compare(lo, d.End) < 0 && bytes.Compare(d.Start, hi) <= 0 {
			return true
		}
	}
	return false
}

// BlockRange returns the keys block i of g may hold: from the key after
// the previous block's last key (g's first key for block 0) to its own
// last key, both inclusive.
func (g *Segment) BlockRange(i int) (lo, hi []byte) {
	if i == 0 {
		return g.Meta.FirstKey, g.LastKeys[0]
	}
	return Successor(g.LastKeys[i-1]), g.LastKeys[i]
}

// Successor returns the smallest key after k (k with a 00 byte appended),
// a new slice.
func Successor(k []byte) []byte {
	return append(append(make([]byte, 0, len(k)+1), k...), 0)
}

// BlockErr wraps err, from the bytes of block i of g.
func (g *Segment) BlockErr(i int, err error) error {
	return fmt.Errorf("segment %d block %d (key %q): %w", g.Meta.ID, i, g.BlockKeys[i], err)
}

// Missing is the error for block i of g not found in Badger.
func (g *Segment) Missing(i int) error {
	return fmt.Errorf("%w: segment %d block %d (key %q) missing", blockenc.ErrCorrupt, g.Meta.ID, i, g.BlockKeys[i])
}

// ReadErr wraps err, from Badger reading block i of g.
func (g *Segment) ReadErr(i int, err error) error {
	return fmt.Errorf("kv: segment %d block %d: %w", g.Meta.ID, i, err)
}

// DictPart is the in-memory form of a Part.
type DictPart struct {
	First int
	Dict  *blockenc.Dict
}

// DictFor returns the Dict block i is compressed against, or nil.
func (g *Segment) DictFor(i int) *blockenc.Dict {
	p := g.Parts
	if j := runOf(len(p), func(j int) int { return p[j].First }, i); j >= 0 {
		return p[j].Dict
	}
	return nil
}

// SetParts makes g.Parts from g.Meta.Parts, whose dictionaries must be
// set (Part.SetDict).
func (g *Segment) SetParts() error {
	g.Parts = g.Parts[:0]
	first := 0
	for k, pt := range g.Meta.Parts {
		dp := DictPart{First: first}
		if pt.NeedsDict() {
			return fmt.Errorf("%w: segment %d part %d: dictionary of %d bytes missing", blockenc.ErrCorrupt, g.Meta.ID, k, pt.DictLen)
		}
		if len(pt.Dict) > 0 {
			d, err := blockenc.NewDict(pt.Dict)
			if err != nil {
				return fmt.Errorf("%w: segment %d part %d dictionary: %v", blockenc.ErrCorrupt, g.Meta.ID, k, err)
			}
			dp.Dict = d
		}
		g.Parts = append(g.Parts, dp)
		first += int(pt.Blocks)
	}
	return nil
}

// FindBlock returns the first block whose last key is >= key, or -1.
func (g *Segment) FindBlock(key []byte) int {
	if len(g.LastKeys) == 0 || bytes.Compare(key, g.Meta.LastKey) > 0 {
		return -1
	}
	return sort.Search(len(g.LastKeys), func(i int) bool { return bytes.Compare(g.LastKeys[i], key) >= 0 })
}

// InBounds reports whether block i may hold keys in [lower, upper) (nil:
// unbounded).
func (g *Segment) InBounds(i int, lower, upper []byte) bool {
	// Block i holds the keys above block i-1's last key, up to its own.
	if upper != nil && i > 0 && bytes.Compare(g.LastKeys[i-1], upper) >= 0 {
		return false
	}
	return lower == nil || bytes.Compare(g.LastKeys[i], lower) >= 0
}

// Sort orders segments newest first.
func Sort(segs []*Segment) {
	slices.SortFunc(segs, func(a, b *Segment) int {
		if a.Meta.MaxSeq != b.Meta.MaxSeq {
			if a.Meta.MaxSeq > b.Meta.MaxSeq {
				return -1
			}
			return 1
		}
		if a.Meta.ID > b.Meta.ID {
			return -1
		}
		return 1
	})
}

// Settings returns how blocks encoded with b, cut at blockSize, with
// segment dictionaries of dictSize (<= 0: none) are made, as a segment meta records it: a compaction copies the
// blocks of a segment only when they were made as it would make them.
//
//	settings := version u8 (=1) | encoding u8 | compression u8 | level u8
//	            | flags u8 | restartInterval uv | blockSize uv | dictSize uv
//
// flags: 1 DedupeValues, 2 IntValues; dictSize: DictSize + 1 (0: no
// segment dictionaries).
func Settings(b blockenc.Options, blockSize, dictSize int) []byte {
	var flags byte
	if b.DedupeValues {
		flags |= 1
	}
	if b.IntValues {
		flags |= 2
	}
	dst := []byte{1, byte(b.Encoding), byte(b.Compression), byte(b.CompressionLevel), flags}
	dst = binary.AppendUvarint(dst, uint64(max(b.RestartInterval, 0)))
	dst = binary.AppendUvarint(dst, uint64(max(blockSize, 0)))
	return binary.AppendUvarint(dst, uint64(max(dictSize+1, 0)))
}
