package kv

import (
	"bytes"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv/internal/merge"
	"github.com/kvenc/kvenc/kv/internal/segment"
)

// Block copies inside a merge. An input of a compaction that overlaps
// others is merged cell by cell, but where it holds one version per key,
// no tombstone and blocks of the compaction's settings (final), a run of
// its blocks whose keys no other input holds comes out of the merge
// unchanged: the compaction copies those blocks as they are (Pebble and
// HBase copy untouched blocks too) instead of decoding and compressing
// them again. Whether another input holds such a key is known exactly
// from the merge itself: every other input's next cell sorts after the
// run's last key. The copied blocks keep their dictionary, so the merged
// cells are compressed against it too (runsDict): the output stays one
// part instead of switching dictionaries at each run.

// minCopyRun is the fewest blocks a run copies: a run cuts the merged
// block before it short. A variable so that a benchmark can turn the
// copies off (a run longer than any segment).
var minCopyRun = 4

// runsDict returns the dictionary of the merged inputs' blocks that a
// compaction may copy (copyRuns): that of the input holding at least half
// of their bytes when it is final with settings and its blocks share one
// dictionary; else nil (none of their blocks are copied).
func runsDict(merged []*segment.Segment, settings []byte) *blockenc.Dict {
	var total uint64
	for _, g := range merged {
		total += g.Meta.Bytes
	}
	for _, g := range merged {
		if 2*g.Meta.Bytes >= total && final(g, settings) && len(g.Parts) == 1 {
			return g.Parts[0].Dict
		}
	}
	return nil
}

// copyRuns is the merge source of a final input g: as it is about to
// enter a block (after the last cell of the one before), it has the
// segment writer copy the run of blocks from there whose keys all sort
// before every other source's next cell, that use the writer's
// dictionary and that no other input's range tombstone reaches into, and
// moves past them; runs shorter than minCopyRun are merged.
type copyRuns struct {
	merge.Source
	g          *segment.Segment
	srcs       []merge.Source         // every source of the merge, g's included
	inputs     []*segment.Segment     // the merged inputs
	w          *segWriter             // the compaction's writer
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
	if j-i < minCopyRun {
		c.Source.Next()
		return
	}
	if err := c.copyBefore(c.g.LastKeys[i]); err != nil {
		c.err = err
		return
	}
	if err := c.w.copyBlocks(c.g, i, j); err != nil {
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
