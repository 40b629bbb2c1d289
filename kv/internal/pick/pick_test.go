package pick

import (
	"testing"

	"github.com/kvenc/kvenc/kv/internal/rangedel"
	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/stretchr/testify/assert"
)

var settings = []byte{1, 5, 2}

// seg is a segment of id with mb MiB of blocks holding keys lo..hi, final
// (one version per key, no tombstone, blocks made with settings) or not.
func seg(id int, mb uint64, lo, hi string, final bool) *segment.Segment {
	m := segment.Meta{ID: uint64(id), Bytes: mb << 20, Cells: 10, Keys: 10, FirstKey: []byte(lo), LastKey: []byte(hi)}
	if final {
		m.Settings = settings
	}
	return segment.New(m)
}

func ids(segs []*segment.Segment) (out []uint64) {
	for _, g := range segs {
		out = append(out, g.Meta.ID)
	}
	return out
}

// TestTier: a run of segments whose compaction only copies (final,
// disjoint keys) takes a next segment at most its own size, any other run
// one at most twice its size.
func TestTier(t *testing.T) {
	// Newest first: a load in key order, the oldest segment a tier
	// already.
	load := []*segment.Segment{seg(4, 7, "m", "n", true), seg(3, 7, "k", "l", true), seg(2, 7, "i", "j", true), seg(1, 28, "a", "h", true)}
	assert.Equal(t, []uint64{4, 3, 2}, ids(Tier(load, settings)), "copies only")
	notFinal := []*segment.Segment{seg(4, 7, "m", "n", false), seg(3, 7, "k", "l", true), seg(2, 7, "i", "j", true), seg(1, 28, "a", "h", true)}
	assert.Equal(t, []uint64{4, 3, 2, 1}, ids(Tier(notFinal, settings)), "a segment a compaction rewrites")
	overlap := []*segment.Segment{seg(4, 7, "m", "n", true), seg(3, 7, "k", "l", true), seg(2, 7, "i", "j", true), seg(1, 28, "a", "j", true)}
	assert.Equal(t, []uint64{4, 3, 2, 1}, ids(Tier(overlap, settings)), "overlapping keys")
	assert.Nil(t, Tier([]*segment.Segment{seg(2, 1, "b", "c", true), seg(1, 7, "a", "a", true)}, settings), "no tier")
}

// TestTierMaxInputs: a tier holds at most MaxInputs segments.
func TestTierMaxInputs(t *testing.T) {
	var segs []*segment.Segment
	for i := 20; i > 0; i-- {
		segs = append(segs, seg(i, 1, "a", "z", false))
	}
	assert.Len(t, Tier(segs, settings), MaxInputs)
}

// TestSplit: an input is copied when it is final and no other input's
// keys or range tombstones reach into its keys; the copies come sorted by
// first key.
func TestSplit(t *testing.T) {
	del := seg(5, 1, "x", "x", false)
	del.Meta.Dels = []rangedel.Tombstone{{Start: []byte("s"), End: []byte("u"), Seq: 1}}
	del = segment.New(del.Meta)
	in := []*segment.Segment{
		seg(6, 1, "m", "n", true),  // copied
		del,                        // not final
		seg(4, 1, "t", "t", true),  // under 5's range tombstone
		seg(3, 1, "c", "d", true),  // copied
		seg(2, 1, "g", "h", false), // not final
		seg(1, 1, "h", "i", true),  // overlaps 2
	}
	copies, merged := Split(in, settings)
	assert.Equal(t, []uint64{3, 6}, ids(copies))
	assert.Equal(t, []uint64{5, 4, 2, 1}, ids(merged))
}
