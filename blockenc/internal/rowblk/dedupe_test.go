package rowblk

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc/internal/cell"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
)

// dedupCells returns n cells with keys from first on; value i is one of
// distinct values (distinct 0: every value distinct), 10 bytes each.
func dedupCells(first, n, distinct int) []cell.Cell {
	cells := make([]cell.Cell, n)
	for i := range cells {
		v := first + i
		if distinct > 0 {
			v = (first + i) % distinct
		}
		cells[i] = cell.Cell{Key: fmt.Appendf(nil, "key%08d", first+i), Value: fmt.Appendf(nil, "v%09d", v), Seq: 1, Kind: cell.KindPut}
	}
	return cells
}

// backRefs counts the back-references of an uncompressed RowIndex block:
// the cells whose value length field (the third uvarint) is odd.
func backRefs(t *testing.T, block []byte) int {
	t.Helper()
	var s Reader
	require.NoError(t, s.Init(block, nil))
	refs := 0
	for off := s.Off; s.Next(); off = s.Off {
		_, _, vlen, p := frame.ReadLens3(s.Cells, off)
		require.GreaterOrEqual(t, p, 0, "bad cell at %d", off)

		refs += vlen & 1
	}
	require.NoError(t, s.Fail)
	return refs
}

// TestDedupeCutOff checks the adaptive cut-off: mostly distinct values
// turn the table off after the warm-up and one window, and a later run
// of repeats turns it on again at the next probe; a block's bytes do not
// depend on the block the Writer wrote before.
func TestDedupeCutOff(t *testing.T) {
	opts := Options{Layout: RowIndex, Interval: 16, Dedupe: true}
	encode := func(e *Writer, cells []cell.Cell) []byte {
		e.Reset()
		for _, c := range cells {
			e.Add(c)
		}
		return e.AppendFinish(nil)
	}

	// Distinct values: off after warm-up and a window of misses.
	e := NewWriter(opts)
	encode(e, dedupCells(0, dedupWarm+dedupWindow, 0))
	// The value that closed the window was the first skipped.
	require.Equal(t, dedupSkip-1, e.dedup.skip, "after %d distinct values", dedupWarm+dedupWindow)

	// A value repeating every 16 cells (6% hits) stays off; while off,
	// repeats are literals.
	e.Reset()
	rare := dedupCells(0, 2000, 0)
	for i := range rare {
		if i%16 == 0 {
			rare[i].Value = []byte("repeated!!")
		}
	}
	b := encode(e, rare)
	period := dedupWarm + dedupWindow + dedupSkip - 1
	// Hits happen only in the probes (the first probe's warm-up and window
	// and each later one): at most 2000/16 per probe window share.
	require.LessOrEqual(t, backRefs(t, b), (2000/period+1)*(dedupWarm+dedupWindow)/16+1, "rare repeats: back-references in the probes only")

	// Distinct values, then 7 values repeating: the table comes back at the
	// next probe and then stays on.
	mixed := append(dedupCells(0, 200, 0), dedupCells(200, 3000, 7)...)
	b = encode(e, mixed)
	require.GreaterOrEqual(t, backRefs(t, b), 3000-period-7, "repeats after distinct values: back-references")
	// The same block from a new Encoder: the cut-off starts over with every
	// block.
	require.Equal(t, b, encode(NewWriter(opts), mixed), "block after another block differs from the block of a new Writer")
	// And it decodes to its cells.
	var s Reader
	require.NoError(t, s.Init(b, nil))
	for i := 0; s.Next(); i++ {
		require.Equal(t, mixed[i], s.KV, "cell %d", i)
	}
	require.NoError(t, s.Fail)
}
