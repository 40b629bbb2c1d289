// Package colbench compares encoded sizes for issue 9: TPC-H lineitem
// columns in the column layout (key: column name + 8-byte big-endian
// orderkey + 4-byte big-endian linenumber; value: the column's text), cut
// into blocks of ~32 KiB raw cells, one block run per column. kvenc's
// blockenc Columnar (+LZ4), FastDiff and FastDiff+LZ4Dict are set against
// Pebble v2's rowblk (restart interval 16), raw and with its finished block
// compressed by Snappy and by zstd (default level). Every kvenc block is
// decoded back to its cells before its size is counted.
package colbench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"sort"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/sstable/rowblk"
	"github.com/golang/snappy"
	"github.com/klauspost/compress/zstd"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/blockenc"
)

// BlockBytes is the raw size (keys + values + 8 bytes per seq) of the
// cells of one block.
const BlockBytes = 32 << 10

// ColumnNames are the lineitem columns compared, in report order.
var ColumnNames = []string{"l_shipmode", "l_returnflag", "l_shipinstruct", "l_shipdate", "l_comment"}

// Subjects names the encodings in the order of Result.Bytes.
var Subjects = []string{
	"Columnar+LZ4", "FastDiff", "FastDiff+LZ4Dict",
	"pebble-rowblk", "pebble-rowblk+snappy", "pebble-rowblk+zstd",
}

// Subject indexes into Result.Bytes.
const (
	ColumnarLZ4 = iota
	FastDiff
	FastDiffLZ4Dict
	Pebble
	PebbleSnappy
	PebbleZstd
)

// Column is one column's cells, sorted by key.
type Column struct {
	Name  string
	Cells []dataset.KV
}

// Result is one column's encoded sizes, summed over its blocks.
type Result struct {
	Column        string
	Cells, Blocks int
	Bytes         []int // by Subjects
}

// PerCell returns subject s's bytes per cell.
func (r Result) PerCell(s int) float64 { return float64(r.Bytes[s]) / float64(r.Cells) }

// Key is the column-layout key of a cell.
func Key(column string, orderKey, lineNumber int64) []byte {
	k := make([]byte, 0, len(column)+12)
	k = append(k, column...)
	k = binary.BigEndian.AppendUint64(k, uint64(orderKey))
	return binary.BigEndian.AppendUint32(k, uint32(lineNumber))
}

// LineitemColumns builds the compared columns from the first rows rows of
// set (all of them if rows <= 0 or beyond the set).
func LineitemColumns(set *dataset.LineitemSet, rows int) []Column {
	if rows <= 0 || rows > len(set.Rows) {
		rows = len(set.Rows)
	}
	cols := make([]Column, len(ColumnNames))
	for c, name := range ColumnNames {
		cols[c] = Column{Name: name, Cells: make([]dataset.KV, 0, rows)}
	}
	for i := 0; i < rows; i++ {
		r := &set.Rows[i]
		f := bytes.SplitN(set.Text(i), []byte{'|'}, 3) // shipinstruct|shipmode|comment
		date := []byte(time.Unix(r.ShipDate*86400, 0).UTC().Format(time.DateOnly))
		for c, v := range [][]byte{f[1], {r.ReturnFlag}, f[0], date, f[2]} {
			cols[c].Cells = append(cols[c].Cells, dataset.KV{Key: Key(ColumnNames[c], r.OrderKey, r.LineNumber), Value: v, Seq: 1})
		}
	}
	for c := range cols {
		cells := cols[c].Cells
		sort.SliceStable(cells, func(i, j int) bool { return bytes.Compare(cells[i].Key, cells[j].Key) < 0 })
	}
	return cols
}

// Blocks cuts cells into runs of about BlockBytes raw bytes.
func Blocks(cells []dataset.KV) [][]dataset.KV {
	var out [][]dataset.KV
	start, raw := 0, 0
	for i, kv := range cells {
		raw += len(kv.Key) + len(kv.Value) + 8
		if raw >= BlockBytes {
			out = append(out, cells[start:i+1])
			start, raw = i+1, 0
		}
	}
	if start < len(cells) {
		out = append(out, cells[start:])
	}
	return out
}

// Measure encodes every column's blocks with every subject. It returns an
// error if a kvenc block does not decode back to its cells.
func Measure(cols []Column) ([]Result, error) {
	zw, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		return nil, err
	}
	defer zw.Close()
	kvencOpts := []blockenc.Options{
		ColumnarLZ4:     {Encoding: blockenc.Columnar, Compression: blockenc.LZ4},
		FastDiff:        {Encoding: blockenc.FastDiff},
		FastDiffLZ4Dict: {Encoding: blockenc.FastDiff, Compression: blockenc.LZ4Dict},
	}
	var out []Result
	for _, col := range cols {
		res := Result{Column: col.Name, Cells: len(col.Cells), Bytes: make([]int, len(Subjects))}
		for _, blk := range Blocks(col.Cells) {
			res.Blocks++
			for s, o := range kvencOpts {
				o.RestartInterval = 16
				b, err := encodeKvenc(o, blk)
				if err != nil {
					return nil, fmt.Errorf("colbench: %s %s: %w", col.Name, Subjects[s], err)
				}
				res.Bytes[s] += len(b)
			}
			w := &rowblk.Writer{RestartInterval: 16}
			for _, kv := range blk {
				if err := w.Add(pebble.MakeInternalKey(kv.Key, pebble.SeqNum(kv.Seq), pebble.InternalKeyKindSet), kv.Value); err != nil {
					return nil, err
				}
			}
			pb := w.Finish()
			res.Bytes[Pebble] += len(pb)
			res.Bytes[PebbleSnappy] += len(snappy.Encode(nil, pb))
			res.Bytes[PebbleZstd] += len(zw.EncodeAll(pb, nil))
		}
		out = append(out, res)
	}
	return out, nil
}

// encodeKvenc encodes cells with o and checks that the block decodes back
// to them.
func encodeKvenc(o blockenc.Options, cells []dataset.KV) ([]byte, error) {
	e := blockenc.NewEncoder(o)
	for _, kv := range cells {
		if err := e.Add(blockenc.Cell{Key: kv.Key, Value: kv.Value, Seq: kv.Seq, Kind: blockenc.KindPut}); err != nil {
			return nil, err
		}
	}
	b, err := e.Finish()
	if err != nil {
		return nil, err
	}
	s, err := blockenc.NewSeeker(b)
	if err != nil {
		return nil, err
	}
	n := 0
	for ok := s.First(); ok; ok = s.Next() {
		c := s.Cell()
		if n >= len(cells) || !bytes.Equal(c.Key, cells[n].Key) || !bytes.Equal(c.Value, cells[n].Value) || c.Seq != cells[n].Seq {
			return nil, fmt.Errorf("cell %d does not decode back", n)
		}
		n++
	}
	if err := s.Err(); err != nil {
		return nil, err
	}
	if n != len(cells) {
		return nil, fmt.Errorf("decoded %d of %d cells", n, len(cells))
	}
	return b, nil
}
