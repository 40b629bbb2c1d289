package blockenc

import (
	"bytes"
	"fmt"
	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"testing"
)

// dedupCells returns n cells with keys from first on; value i is one of
// distinct values (distinct 0: every value distinct), 10 bytes each.
func dedupCells(first, n, distinct int) []Cell {
	cells := make([]Cell, n)
	for i := range cells {
		v := first + i
		if distinct > 0 {
			v = (first + i) % distinct
		}
		cells[i] = Cell{Key: fmt.Appendf(nil, "key%08d", first+i), Value: fmt.Appendf(nil, "v%09d", v), Seq: 1, Kind: KindPut}
	}
	return cells
}

// backRefs counts the back-references of an uncompressed RowIndex block:
// the cells whose value length field (the third uvarint) is odd.
func backRefs(t *testing.T, block []byte) int {
	t.Helper()
	var s Seeker
	if err := s.Init(block); err != nil {
		t.Fatal(err)
	}
	refs := 0
	for off := s.Off; s.Next(); off = s.Off {
		_, _, vlen, p := frame.ReadLens3(s.Cells, off)
		if p < 0 {
			t.Fatalf("bad cell at %d", off)
		}
		refs += vlen & 1
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
	return refs
}

// TestDedupeCutOff checks the adaptive cut-off: mostly distinct values
// turn the table off after the warm-up and one window, and a later run
// of repeats turns it on again at the next probe; a block's bytes do not
// depend on the block the Encoder wrote before.
func TestDedupeCutOff(t *testing.T) {
	opts := Options{Encoding: RowIndex, DedupeValues: true}
	encode := func(e *Encoder, cells []Cell) []byte { return encodeWith(t, e, cells) }

	// Distinct values: off after warm-up and a window of misses.
	e := NewEncoder(opts)
	encode(e, dedupCells(0, dedupWarm+dedupWindow, 0))
	if e.dedup.skip != dedupSkip-1 { // the value that closed the window was the first skipped
		t.Fatalf("after %d distinct values: skip %d, want %d", dedupWarm+dedupWindow, e.dedup.skip, dedupSkip-1)
	}

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
	if refs, max := backRefs(t, b), (2000/period+1)*(dedupWarm+dedupWindow)/16+1; refs > max {
		t.Errorf("rare repeats: %d back-references, want at most %d (probes only)", refs, max)
	}

	// Distinct values, then 7 values repeating: the table comes back at the
	// next probe and then stays on.
	mixed := append(dedupCells(0, 200, 0), dedupCells(200, 3000, 7)...)
	b = encode(e, mixed)
	if refs, min := backRefs(t, b), 3000-period-7; refs < min {
		t.Errorf("repeats after distinct values: %d back-references, want at least %d", refs, min)
	}
	// The same block from a new Encoder: the cut-off starts over with every
	// block.
	if fresh := encode(NewEncoder(opts), mixed); !bytes.Equal(fresh, b) {
		t.Errorf("block after another block differs from the block of a new Encoder")
	}
	// And it decodes to its cells.
	s, err := NewSeeker(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; s.Next(); i++ {
		if c := s.Cell(); Compare(*c, mixed[i]) != 0 || !bytes.Equal(c.Value, mixed[i].Value) {
			t.Fatalf("cell %d: %+v, want %+v", i, c, mixed[i])
		}
	}
	if s.Err() != nil {
		t.Fatal(s.Err())
	}
}
