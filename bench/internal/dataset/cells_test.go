package dataset

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLineitemCells(t *testing.T) {
	set := &LineitemSet{text: []byte("NONE|AIR|quick fox")}
	set.Rows = []Lineitem{{OrderKey: 7, LineNumber: 3, PartKey: 11, SuppKey: 12, Quantity: 5, ExtendedPrice: 12345,
		Discount: 4, Tax: 2, ReturnFlag: 'N', LineStatus: 'O', ShipDate: 1, CommitDate: 2, ReceiptDate: 3,
		text: [2]uint32{0, 18}}}
	kvs := LineitemCells(set, 10)
	require.Len(t, kvs, 1)
	wantKey := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint64(nil, 7), 3)
	assert.Equal(t, wantKey, kvs[0].Key, "key")
	assert.Equal(t, "11|12|5|123.45|0.04|0.02|N|O|1|2|3|NONE|AIR|quick fox|", string(kvs[0].Value), "value")
}

func TestSeriesAndYCSBCellsDistinct(t *testing.T) {
	for name, kvs := range map[string][]KV{"series": SeriesCells(1000), "ycsb": YCSBCells(3000)} {
		seen := map[string]bool{}
		for _, kv := range kvs {
			require.False(t, seen[string(kv.Key)], "%s: duplicate key %q", name, kv.Key)
			seen[string(kv.Key)] = true
		}
		assert.Len(t, kvs, map[string]int{"series": 3000, "ycsb": 3000}[name], "%s: cells", name)
	}
	assert.Len(t, YCSBCells(1)[0].Value, 100, "ycsb value bytes")
}

func TestLineitemRowCells(t *testing.T) {
	set := &LineitemSet{text: []byte("NONE|AIR|quick fox")}
	set.Rows = []Lineitem{{OrderKey: 7, LineNumber: 3, PartKey: 11, SuppKey: 12, Quantity: 5, ExtendedPrice: 12345,
		Discount: 4, Tax: 2, ReturnFlag: 'N', LineStatus: 'O', ShipDate: 9204, CommitDate: 9205, ReceiptDate: 9206,
		text: [2]uint32{0, 18}}}
	kvs := LineitemRowCells(set, 0)
	require.Len(t, kvs, 1)
	require.Equal(t, uint64(1<<40), kvs[0].Seq, "%+v", kvs)
	want := []byte{0, 0, 0, 11, 0, 0, 0, 12, 5, 0, 0, 0, 0, 0, 0, 0x30, 0x39, 4, 2, 'N', 'O'}
	want = append(want, "1995-03-15"+"1995-03-16"+"1995-03-17"...)
	want = append(want, "\x04NONE\x03AIR\x09quick fox"...)
	assert.Equal(t, want, kvs[0].Value, "value")
	if k := kvs[0].Key; assert.Len(t, k, 12, "key %x", k) {
		assert.Equal(t, uint64(7), binary.BigEndian.Uint64(k), "key %x: order key", k)
		assert.Equal(t, uint32(3), binary.BigEndian.Uint32(k[8:]), "key %x: line number", k)
	}
}

func TestSeriesIDCells(t *testing.T) {
	kvs := SeriesIDCells(4, 50)
	require.Len(t, kvs, 200)
	seqs := map[uint64]bool{}
	for i, kv := range kvs {
		require.Len(t, kv.Key, 16, "cell %d: key", i)
		require.Len(t, kv.Value, 8, "cell %d: value", i)
		if i > 0 {
			require.Negative(t, bytes.Compare(kvs[i-1].Key, kv.Key), "keys %d and %d not ascending", i-1, i)
		}
		seqs[kv.Seq] = true
	}
	assert.Len(t, seqs, len(kvs), "distinct seqs")
	// Counters (even series) never fall.
	for i := 1; i < 50; i++ {
		require.GreaterOrEqual(t, binary.BigEndian.Uint64(kvs[i].Value), binary.BigEndian.Uint64(kvs[i-1].Value),
			"counter fell at tick %d", i)
	}
	assert.Equal(t, kvs[123].Value, SeriesIDCells(4, 50)[123].Value, "not deterministic")
}

// TestCutBlocks: runs cover every cell in order, every run but the last
// reaches the size and would not without its last cell.
func TestCutBlocks(t *testing.T) {
	var cells []KV
	for i := range 1000 {
		cells = append(cells, KV{Key: make([]byte, 8+i%7), Value: make([]byte, i%50)})
	}
	raw := func(kvs []KV) (n int) {
		for _, kv := range kvs {
			n += len(kv.Key) + len(kv.Value) + 8
		}
		return n
	}
	blocks := CutBlocks(cells, 4096)
	n := 0
	for i, b := range blocks {
		require.Same(t, &cells[n], &b[0], "block %d does not start at cell %d", i, n)
		n += len(b)
		if i < len(blocks)-1 {
			require.GreaterOrEqual(t, raw(b), 4096, "block %d: raw bytes", i)
			require.Less(t, raw(b[:len(b)-1]), 4096, "block %d: raw bytes without its last cell", i)
		}
	}
	require.Equal(t, len(cells), n, "cells in blocks")
	require.GreaterOrEqual(t, len(blocks), 2, "blocks")
}
