// Package pick chooses the inputs of a Store's compactions: the size
// tier a background compaction merges (Tier), and which of a
// compaction's inputs it copies block by block as they are rather than
// merging them cell by cell (Split). Segments come newest first, as a
// Store keeps them; adjacent segments hold adjacent seq ranges, so a run
// of them merges into one segment whose seqs are a range too.
package pick

import (
	"bytes"
	"slices"

	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/kvenc/kvenc/kv/internal/segwrite"
)

// MaxInputs bounds how many segments one background compaction merges.
const MaxInputs = 10

// Tier chooses a size tier among segs (newest first): the first run of
// adjacent segments, walking towards older ones, in which each next
// segment is at most twice the size of the run so far, or at most its
// size when the next segment and the whole run are final (a compaction
// of them copies: see segwrite.Final) and hold disjoint key ranges, so
// that a load in key order copies each block fewer times. It returns nil
// when no run of two segments or more qualifies.
func Tier(segs []*segment.Segment, settings []byte) []*segment.Segment {
	for i := range segs {
		sum := segs[i].Meta.Bytes + 1
		copyRun := segwrite.Final(segs[i], settings)
		j := i + 1
		for j < len(segs) && j-i < MaxInputs {
			next := segs[j]
			copyRun = copyRun && segwrite.Final(next, settings) && !anyOverlaps(segs[i:j], next)
			limit := 2 * sum
			if copyRun {
				limit = sum
			}
			if next.Meta.Bytes+1 > limit {
				break
			}
			sum += next.Meta.Bytes + 1
			j++
		}
		if j-i >= 2 {
			return segs[i:j]
		}
	}
	return nil
}

// Split parts in, the inputs of a compaction whose output has settings,
// into those whose blocks it copies, sorted by first key, and those it
// merges. It copies g's blocks when the compaction would leave g's cells
// as they are: g is final (segwrite.Final: one version per key, no
// tombstone, blocks made with settings) and no other input's keys or
// range tombstones reach into g's keys.
func Split(in []*segment.Segment, settings []byte) (copies, merged []*segment.Segment) {
	for _, g := range in {
		if segwrite.Final(g, settings) && !anyOverlaps(in, g) {
			copies = append(copies, g)
		} else {
			merged = append(merged, g)
		}
	}
	slices.SortFunc(copies, func(a, b *segment.Segment) int { return bytes.Compare(a.Meta.FirstKey, b.Meta.FirstKey) })
	return copies, merged
}

// anyOverlaps reports whether a key of g may be in one of segs (g itself
// left out).
func anyOverlaps(segs []*segment.Segment, g *segment.Segment) bool {
	for _, h := range segs {
		if h != g && h.Overlaps(g.Meta.FirstKey, g.Meta.LastKey) {
			return true
		}
	}
	return false
}
