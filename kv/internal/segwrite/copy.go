package segwrite

import (
	"bytes"
	"fmt"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/engine"
	"github.com/kvenc/kvenc/kv/internal/bloom"
	"github.com/kvenc/kvenc/kv/internal/cache"
	"github.com/kvenc/kvenc/kv/internal/merge"
	"github.com/kvenc/kvenc/kv/internal/segment"
)

// Block copies. A compaction copies the blocks of an input it would not
// change as they are, instead of decoding and compressing them again
// (Pebble and HBase copy untouched blocks too): the blocks of an input
// that is final (Final) and that no other input reaches into, whole
// (CopyBlocks), and inside a merge the runs of a final input's blocks
// that come out of it unchanged (CopyRuns). Whether another input holds
// a key of such a run is known exactly from the merge itself: every
// other input's next cell sorts after the run's last key. The copied
// blocks keep their dictionary, so the merged cells are compressed
// against it too (RunsDict): the output stays one part instead of
// switching dictionaries at each run.

// MinCopyRun is the fewest blocks a run copies: a run cuts the merged
// block before it short. A variable so that a benchmark can turn the
// copies off (a run longer than any segment).
var MinCopyRun = 4

// Final reports whether a compaction would copy the blocks of g when no
// other input reaches into its keys: g holds one version per key, no
// tombstone (point or range), and its blocks were made with settings
// (Store.Settings).
func Final(g *segment.Segment, settings []byte) bool {
	m := &g.Meta
	return m.Cells > 0 && m.Keys == m.Cells && m.Tombstones == 0 && len(m.Dels) == 0 && bytes.Equal(m.Settings, settings)
}

// CopyBlocks appends blocks lo..hi-1 of g to the segment as they are,
// with their dictionaries (blocks a compaction would not change), and
// their cells to the meta: g's counts when they are all of g's blocks;
// otherwise, g being Final, the cell counts of the blocks' headers within
// g's seqs. Every cell added before sorts before theirs, every one added
// after them after. Each block's head is checked (as a read does) before
// it is written.
func (w *Writer) CopyBlocks(g *segment.Segment, lo, hi int) error {
	if w.err != nil {
		return w.err
	}
	if w.enc.Len() > 0 {
		if err := w.cut(); err != nil {
			return err
		}
	}
	whole := lo == 0 && hi == len(g.BlockKeys)
	cur := w.st.c.Reader.NewCursor(g, false)
	defer cur.Close()
	var cells uint64
	var first []byte
	for i := lo; i < hi; i++ {
		if err := w.writeErr(); err != nil {
			w.err = err
			return err
		}
		var data []byte
		err := cur.View(i, engine.ViewFunc(func(v []byte) error {
			data = append(w.st.getBuf(), v...)
			return nil
		}))
		if err == nil {
			var sk *blockenc.Seeker
			if sk, err = cache.NewSeeker(data, g.DictFor(i)); err == nil {
				if !whole {
					cells, first, err = countBlock(data, sk, cells, first, i == lo)
				}
				if err == nil && !w.noFilter {
					w.hashes, err = hashKeys(sk, w.hashes)
				}
				cache.Recycle(sk)
			}
			if err != nil {
				err = g.BlockErr(i, err)
			}
		}
		if err != nil {
			w.err = fmt.Errorf("kv: segment %d: copy: %w", w.meta.ID, err)
			return w.err
		}
		p := &pendingBlock{dict: g.DictFor(i), key: w.st.c.Keys.Block(w.meta.ID, g.LastKeys[i]), blk: data, ready: closedChan}
		w.order <- p
	}
	if whole {
		first, cells = g.Meta.FirstKey, g.Meta.Cells
		w.meta.Tombstones += g.Meta.Tombstones
		w.meta.Keys += g.Meta.Keys
	} else {
		w.meta.Keys += cells // one version per key
	}
	if w.meta.Cells == 0 {
		w.meta.FirstKey = append([]byte(nil), first...)
	}
	w.lastKey = append(w.lastKey[:0], g.LastKeys[hi-1]...)
	w.meta.Cells += cells
	w.meta.MinSeq = min(w.meta.MinSeq, g.Meta.MinSeq)
	w.meta.MaxSeq = max(w.meta.MaxSeq, g.Meta.MaxSeq)
	return nil
}

// countBlock adds the cells of block data (whose Seeker is sk) to cells
// and, with isFirst, returns its first key as first.
func countBlock(data []byte, sk *blockenc.Seeker, cells uint64, first []byte, isFirst bool) (uint64, []byte, error) {
	h, err := blockenc.ReadHeader(data)
	if err != nil {
		return cells, first, err
	}
	if isFirst {
		if !sk.First() {
			if err := sk.Err(); err != nil {
				return cells, first, err
			}
			return cells, first, fmt.Errorf("%w: an empty block", blockenc.ErrCorrupt)
		}
		first = append([]byte(nil), sk.Key()...)
	}
	return cells + uint64(h.Cells), first, nil
}

// hashKeys appends the bloom.Hash of each distinct key of the block sk
// seeks in to hashes.
func hashKeys(sk *blockenc.Seeker, hashes []uint64) ([]uint64, error) {
	var prev []byte
	for ok := sk.First(); ok; ok = sk.Next() {
		if k := sk.Key(); prev == nil || !bytes.Equal(k, prev) {
			hashes = append(hashes, bloom.Hash(k))
			prev = append(prev[:0], k...)
		}
	}
	return hashes, sk.Err()
}

// sameDict reports whether a and b (either may be nil) are one dictionary.
func sameDict(a, b *blockenc.Dict) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a == b || a.ID() == b.ID() && bytes.Equal(a.Bytes(), b.Bytes())
}

// closedChan is a closed channel: a pendingBlock's ready when it needs no
// compression.
var closedChan = func() chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}()

// RunsDict returns the dictionary of the merged inputs' blocks that a
// compaction may copy (CopyRuns): that of the input holding at least half
// of their bytes when it is Final with settings and its blocks share one
// dictionary; else nil (none of their blocks are copied).
func RunsDict(merged []*segment.Segment, settings []byte) *blockenc.Dict {
	var total uint64
	for _, g := range merged {
		total += g.Meta.Bytes
	}
	for _, g := range merged {
		if 2*g.Meta.Bytes >= total && Final(g, settings) && len(g.Parts) == 1 {
			return g.Parts[0].Dict
		}
	}
	return nil
}

// CopyRuns returns the merge source src of g, a Final input of a
// compaction whose writer is w, in a wrapper that copies runs of g's
// blocks: as src is about to enter a block (after the last cell of the
// one before), w copies the run of blocks from there whose keys all sort
// before every other source's next cell, that use w's dictionary and
// that no other input's range tombstone reaches into, and src moves past
// them; runs shorter than MinCopyRun are merged. srcs are the merge's
// sources, the one returned among them, inputs the merged segments;
// copyBefore copies the whole segments of the compaction whose keys sort
// before key, so that they stay in order with the run.
func (w *Writer) CopyRuns(src merge.Source, g *segment.Segment, srcs []merge.Source, inputs []*segment.Segment, copyBefore func(key []byte) error) merge.Source {
	return &copyRuns{Source: src, g: g, srcs: srcs, inputs: inputs, w: w, copyBefore: copyBefore}
}

// copyRuns is the source CopyRuns returns.
type copyRuns struct {
	merge.Source
	g          *segment.Segment
	srcs       []merge.Source         // every source of the merge, g's included
	inputs     []*segment.Segment     // the merged inputs
	w          *Writer                // the compaction's writer
	copyBefore func(key []byte) error // copies the whole segments before key
	err        error
	next       int // the block after the current cell's (see Next)
}

func (c *copyRuns) Err() error {
	if c.err != nil {
		return c.err
	}
	return c.Source.Err()
}

func (c *copyRuns) Cur() *blockenc.Cell {
	if c.err != nil {
		return nil
	}
	return c.Source.Cur()
}

// Next moves to the next cell, copying the run of blocks that starts
// there when there is one.
func (c *copyRuns) Next() {
	cur := c.Source.Cur()
	if cur == nil || c.err != nil {
		c.Source.Next()
		return
	}
	// The current cell is the last of block i-1 when its key is that
	// block's last key (one version per key).
	i := c.blockAfter(cur.Key)
	if i < 0 {
		c.Source.Next()
		return
	}
	j := c.runEnd(i)
	if j-i < MinCopyRun {
		c.Source.Next()
		return
	}
	if err := c.copyBefore(c.g.LastKeys[i]); err != nil {
		c.err = err
		return
	}
	if err := c.w.CopyBlocks(c.g, i, j); err != nil {
		c.err = err
		return
	}
	c.Source.SeekGE(segment.Successor(c.g.LastKeys[j-1]))
}

// blockAfter returns i when key is the last key of g's block i-1 and a
// block i follows, else -1.
func (c *copyRuns) blockAfter(key []byte) int {
	lk := c.g.LastKeys
	for c.next < len(lk) && bytes.Compare(lk[c.next], key) < 0 {
		c.next++
	}
	if c.next+1 < len(lk) && bytes.Equal(lk[c.next], key) {
		return c.next + 1
	}
	return -1
}

// runEnd returns the end of the run of blocks from i that the merge can
// copy: blocks of the writer's dictionary, whose keys sort before every
// other source's next cell and meet no other input's range tombstone.
func (c *copyRuns) runEnd(i int) int {
	var bound []byte // the least next key of the other sources; nil: none
	for _, src := range c.srcs {
		if src == merge.Source(c) {
			continue
		}
		cell := src.Cur()
		if cell == nil {
			if src.Err() != nil {
				return i // leave the error to the merge
			}
			continue
		}
		if bound == nil || bytes.Compare(cell.Key, bound) < 0 {
			bound = cell.Key
		}
	}
	j := i
	for ; j < len(c.g.LastKeys); j++ {
		lo, hi := c.g.BlockRange(j)
		if bound != nil && bytes.Compare(hi, bound) >= 0 || !sameDict(c.g.DictFor(j), c.w.dict) || c.delsReach(lo, hi) {
			break
		}
	}
	return j
}

// delsReach reports whether a range tombstone of an input other than g
// reaches into [lo, hi].
func (c *copyRuns) delsReach(lo, hi []byte) bool {
	for _, h := range c.inputs {
		if h == c.g {
			continue
		}
		for _, d := range h.Meta.Dels {
			if bytes.Compare(lo, d.End) < 0 && bytes.Compare(d.Start, hi) <= 0 {
				return true
			}
		}
	}
	return false
}
