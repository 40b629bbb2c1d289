package segload

import (
	"slices"
	"testing"

	"github.com/kvenc/kvenc/kv/internal/segment"
	"github.com/stretchr/testify/assert"
)

func TestSuperseded(t *testing.T) {
	seg := func(id, lo, hi uint64) *segment.Segment {
		return segment.New(segment.Meta{ID: id, MinSeq: lo, MaxSeq: hi})
	}
	metas := map[uint64]*segment.Segment{
		1: seg(1, 1, 10),  // within 3's seqs: replaced by it
		2: seg(2, 11, 20), // within 3's seqs: replaced by it
		3: seg(3, 1, 20),  // the compaction's output
		4: seg(4, 21, 30), // newer, disjoint
		5: seg(5, 0, 0),   // empty, from a version that kept no seqs
		6: seg(6, 5, 6),   // a higher id than 3: not replaced by it
	}
	ids := superseded(metas)
	slices.Sort(ids)
	assert.Equal(t, []uint64{1, 2}, ids)
}
