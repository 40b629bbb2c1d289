package rowbench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/israce"
)

func check(t *testing.T, name string, cells []dataset.KV, fixed bool) Result {
	t.Helper()
	r, err := Measure(name, cells)
	require.NoError(t, err)
	require.Equal(t, name, r.Dataset, "%+v", r)
	require.Equal(t, len(cells), r.Cells, "%+v", r)
	require.Equal(t, len(Blocks(cells, BlockBytes)), r.Blocks, "%+v", r)
	require.Len(t, r.Bytes, len(Subjects), "%+v", r)
	for i, s := range Subjects {
		if s.FixedOnly && !fixed {
			assert.Equal(t, -1, r.Bytes[i], "%s %s: bytes on variable-width values", name, s.Name)
		} else {
			assert.GreaterOrEqual(t, r.Bytes[i], len(cells), "%s %s: bytes for %d cells", name, s.Name, len(cells))
		}
	}
	// Compression saves bytes on both data sets, for both peers.
	for _, pair := range [][2]string{
		{"pebble-rowblk+snappy", "pebble-rowblk"}, {"pebble-rowblk+zstd", "pebble-rowblk+snappy"},
		{"badger-table+snappy", "badger-table"}, {"badger-table+zstd", "badger-table"},
	} {
		assert.Less(t, r.Bytes[Index(pair[0])], r.Bytes[Index(pair[1])], "%s: %s bytes vs %s", name, pair[0], pair[1])
	}
	return r
}

func TestTimeSeries(t *testing.T) {
	cells := dataset.SeriesIDCells(20, 360)
	r := check(t, "timeseries", cells, true)
	assert.GreaterOrEqual(t, r.Blocks, 3, "blocks")
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
		if i < len(blks)-1 {
			assert.GreaterOrEqual(t, raw, BlockBytes, "block %d: raw bytes", i)
			assert.LessOrEqual(t, raw, BlockBytes+32, "block %d: raw bytes", i)
		}
		n += len(b)
	}
	assert.Equal(t, len(cells), n, "cells in blocks")
	assert.Len(t, blks, (len(cells)*32+BlockBytes-1)/BlockBytes, "blocks")
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
		assert.Equal(t, c.want, FixedWidth(c.cells), "%v", c.cells)
	}
}

// TestLineitem needs dbgen (slow under -race).
func TestLineitem(t *testing.T) {
	if israce.Enabled || testing.Short() {
		t.Skip("dbgen is slow under -race")
	}
	set, err := dataset.LineitemRows(1000)
	require.NoError(t, err)
	cells := dataset.LineitemRowCells(set, 3000)
	require.Len(t, cells, 3000)
	check(t, "lineitem", cells, false)
}
