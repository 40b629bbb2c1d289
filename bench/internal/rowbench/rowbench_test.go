package rowbench

import (
	"testing"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/israce"
)

func check(t *testing.T, name string, cells []dataset.KV, fixed bool) Result {
	t.Helper()
	r, err := Measure(name, cells)
	if err != nil {
		t.Fatal(err)
	}
	if r.Dataset != name || r.Cells != len(cells) || r.Blocks != len(Blocks(cells, BlockBytes)) || len(r.Bytes) != len(Subjects) {
		t.Fatalf("%+v", r)
	}
	for i, s := range Subjects {
		switch n := r.Bytes[i]; {
		case s.FixedOnly && !fixed:
			if n != -1 {
				t.Errorf("%s %s: %d bytes on variable-width values", name, s.Name, n)
			}
		case n < len(cells):
			t.Errorf("%s %s: %d bytes for %d cells", name, s.Name, n, len(cells))
		}
	}
	// Compression saves bytes on both data sets, for both peers.
	for _, pair := range [][2]string{
		{"pebble-rowblk+snappy", "pebble-rowblk"}, {"pebble-rowblk+zstd", "pebble-rowblk+snappy"},
		{"badger-table+snappy", "badger-table"}, {"badger-table+zstd", "badger-table"},
	} {
		if a, b := r.Bytes[Index(pair[0])], r.Bytes[Index(pair[1])]; a >= b {
			t.Errorf("%s: %s %d bytes, %s %d", name, pair[0], a, pair[1], b)
		}
	}
	return r
}

func TestTimeSeries(t *testing.T) {
	cells := dataset.SeriesIDCells(20, 360)
	r := check(t, "timeseries", cells, true)
	if r.Blocks < 3 {
		t.Errorf("%d blocks", r.Blocks)
	}
}

func TestBlocksCoverCells(t *testing.T) {
	cells := dataset.SeriesIDCells(10, 1000)
	n := 0
	blks := Blocks(cells, BlockBytes)
	for i, b := range blks {
		raw := 0
		for _, kv := range b {
			raw += len(kv.Key) + len(kv.Value) + 8
		}
		if i < len(blks)-1 && (raw < BlockBytes || raw > BlockBytes+32) {
			t.Errorf("block %d: %d raw bytes", i, raw)
		}
		n += len(b)
	}
	if n != len(cells) || len(blks) != (len(cells)*32+BlockBytes-1)/BlockBytes {
		t.Errorf("%d blocks hold %d of %d cells", len(blks), n, len(cells))
	}
}

func TestFixedWidth(t *testing.T) {
	kv := func(n int) dataset.KV { return dataset.KV{Key: []byte{1}, Value: make([]byte, n)} }
	for _, c := range []struct {
		cells []dataset.KV
		want  bool
	}{
		{[]dataset.KV{kv(8), kv(8)}, true},
		{[]dataset.KV{kv(4)}, true},
		{[]dataset.KV{kv(8), kv(4)}, false},
		{[]dataset.KV{kv(3), kv(3)}, false},
		{[]dataset.KV{kv(0)}, false},
	} {
		if got := FixedWidth(c.cells); got != c.want {
			t.Errorf("%v: %v", c.cells, got)
		}
	}
}

// TestLineitem needs dbgen (slow under -race).
func TestLineitem(t *testing.T) {
	if israce.Enabled || testing.Short() {
		t.Skip("dbgen is slow under -race")
	}
	set, err := dataset.LineitemRows(1000)
	if err != nil {
		t.Fatal(err)
	}
	cells := dataset.LineitemRowCells(set, 3000)
	if len(cells) != 3000 {
		t.Fatalf("%d cells", len(cells))
	}
	check(t, "lineitem", cells, false)
}
