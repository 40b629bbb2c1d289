// Package colbench measures TPC-H lineitem columns in the column
// layout (key: column name + 8-byte big-endian orderkey + 4-byte big-endian
// linenumber; value: the column's text), cut into blocks of ~32 KiB raw
// cells, one block run per column. kvenc's blockenc Columnar (+LZ4),
// FastDiff and FastDiff+LZ4Dict are set against Pebble v2's rowblk
// (restart interval 16), raw and compressed whole by Pebble's own Snappy
// and zstd (level 3) block compressors (package pebbleblk).
//
// Every subject answers on the same cells: bytes per cell, SeekGE to
// random existing keys with the block already read (warm) and including
// reading it (cold: kvenc's Seeker.Init, which decompresses; Pebble's
// decompression and rowblk iterator Init), and a scan of every block
// touching key and value, warm and cold (Timers). Every block is read
// back and compared with its cells, and every seek target found in every
// subject, before anything is counted or timed.
package colbench

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/cockroachdb/pebble/v2/sstable/block"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/pebbleblk"
	"github.com/kvenc/kvenc/blockenc"
)

// BlockBytes is the raw size (keys + values + 8 bytes per seq) of the
// cells of one block.
const BlockBytes = 32 << 10

// ColumnNames are the lineitem columns compared, in report order.
var ColumnNames = []string{"l_shipmode", "l_returnflag", "l_shipinstruct", "l_shipdate", "l_comment"}

// Subjects names the encodings in the order of Result.Bytes.
var Subjects = []string{
	"Columnar+LZ4", "Columnar+LZ4-6", "FastDiff", "FastDiff+LZ4Dict",
	"pebble-rowblk", "pebble-rowblk+snappy", "pebble-rowblk+zstd",
}

// Subject indexes into Result.Bytes.
const (
	ColumnarLZ4   = iota
	ColumnarLZ4L6 // CompressionLevel 6, as kv's compaction writes blocks
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
func Blocks(cells []dataset.KV) [][]dataset.KV { return dataset.CutBlocks(cells, BlockBytes) }

// Encoded is one column's blocks in every subject, all cut the same way
// (Blocks), with the random existing keys the seek timings look up. It
// holds no cell, so the timings run without the cells' pointers for the
// garbage collector to scan.
type Encoded struct {
	Column        string
	Cells, Blocks int
	Kvenc         [][][]byte          // [ColumnarLZ4..FastDiffLZ4Dict][block]
	Pebble        [][]pebbleblk.Block // [raw, snappy, zstd][block]
	Targets       []Target            // in a fixed pseudo-random order
}

// Target is an existing key and the block that holds it.
type Target struct {
	Key   []byte
	Block int
}

// NumTargets is the number of random keys per column the seeks cycle
// through.
const NumTargets = 4096

// kvencOptions are the kvenc subjects' options, by Subjects index.
var kvencOptions = []blockenc.Options{
	ColumnarLZ4:     {Encoding: blockenc.Columnar, Compression: blockenc.LZ4, RestartInterval: 16},
	ColumnarLZ4L6:   {Encoding: blockenc.Columnar, Compression: blockenc.LZ4, CompressionLevel: 6, RestartInterval: 16},
	FastDiff:        {Encoding: blockenc.FastDiff, RestartInterval: 16},
	FastDiffLZ4Dict: {Encoding: blockenc.FastDiff, Compression: blockenc.LZ4Dict, RestartInterval: 16},
}

// pebbleProfiles are the Pebble subjects' compression, from Pebble on.
var pebbleProfiles = []*block.CompressionProfile{block.NoCompression, block.SnappyCompression, block.ZstdCompression}

// Encode encodes every column's blocks with every subject. It returns an
// error if a block does not read back to its cells or a target key is not
// found where it is.
func Encode(cols []Column) ([]*Encoded, error) {
	var comps []*pebbleblk.Compressor
	for _, p := range pebbleProfiles {
		c := pebbleblk.NewCompressor(p)
		defer c.Close()
		comps = append(comps, c)
	}
	var out []*Encoded
	for _, col := range cols {
		blks := Blocks(col.Cells)
		e := &Encoded{Column: col.Name, Cells: len(col.Cells), Blocks: len(blks),
			Kvenc: make([][][]byte, len(kvencOptions)), Pebble: make([][]pebbleblk.Block, len(comps))}
		var firsts [][]byte
		for _, blk := range blks {
			firsts = append(firsts, blk[0].Key)
			for s, o := range kvencOptions {
				b, err := encodeKvenc(o, blk)
				if err != nil {
					return nil, fmt.Errorf("colbench: %s %s: %w", col.Name, Subjects[s], err)
				}
				e.Kvenc[s] = append(e.Kvenc[s], b)
			}
			raw, err := pebbleblk.Build(blk)
			if err != nil {
				return nil, err
			}
			for p, c := range comps {
				b := c.Compress(raw)
				if err := pebbleblk.Check(b, blk); err != nil {
					return nil, fmt.Errorf("colbench: %s %s: %w", col.Name, Subjects[Pebble+p], err)
				}
				e.Pebble[p] = append(e.Pebble[p], b)
			}
		}
		e.Targets = targets(col.Cells, firsts)
		if err := e.checkTargets(); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

// Result returns e's sizes.
func (e *Encoded) Result() Result {
	r := Result{Column: e.Column, Cells: e.Cells, Blocks: e.Blocks, Bytes: make([]int, len(Subjects))}
	for s, blocks := range e.Kvenc {
		for _, b := range blocks {
			r.Bytes[s] += len(b)
		}
	}
	for p, blocks := range e.Pebble {
		for _, b := range blocks {
			r.Bytes[Pebble+p] += b.Size()
		}
	}
	return r
}

// targets draws NumTargets cells (a fixed seed) and finds their blocks.
// The keys are copied into one allocation.
func targets(cells []dataset.KV, firsts [][]byte) []Target {
	r := rand.New(rand.NewPCG(9, 109))
	idx := make([]int, NumTargets)
	n := 0
	for i := range idx {
		idx[i] = r.IntN(len(cells))
		n += len(cells[idx[i]].Key)
	}
	arena := make([]byte, 0, n)
	out := make([]Target, NumTargets)
	for i, c := range idx {
		k := cells[c].Key
		arena = append(arena, k...)
		b := sort.Search(len(firsts), func(j int) bool { return bytes.Compare(firsts[j], k) > 0 }) - 1
		out[i] = Target{Key: arena[len(arena)-len(k) : len(arena) : len(arena)], Block: b}
	}
	return out
}

// checkTargets seeks every target in every subject's block and checks
// that it lands on the target. Each block is read once per subject.
func (e *Encoded) checkTargets() error {
	byBlock := make([][]int, e.Blocks)
	for i, t := range e.Targets {
		byBlock[t.Block] = append(byBlock[t.Block], i)
	}
	var s blockenc.Seeker
	var r pebbleblk.Reader
	for b, ts := range byBlock {
		if len(ts) == 0 {
			continue
		}
		// In key order, the scanning seekers continue from the last
		// target: one pass over the block instead of one per target.
		sort.Slice(ts, func(x, y int) bool { return bytes.Compare(e.Targets[ts[x]].Key, e.Targets[ts[y]].Key) < 0 })
		for k, blocks := range e.Kvenc {
			if err := s.Init(blocks[b]); err != nil {
				return err
			}
			for _, i := range ts {
				if key := e.Targets[i].Key; !s.SeekGE(key) || !bytes.Equal(s.Key(), key) {
					return fmt.Errorf("colbench: %s %s: SeekGE target %d (%x) not found", e.Column, Subjects[k], i, key)
				}
			}
		}
		for p, blocks := range e.Pebble {
			if err := r.Init(blocks[b]); err != nil {
				return err
			}
			for _, i := range ts {
				key := e.Targets[i].Key
				if kv := r.It.SeekGE(key, 0); kv == nil || !bytes.Equal(kv.K.UserKey, key) {
					return fmt.Errorf("colbench: %s %s: SeekGE target %d (%x) not found", e.Column, Subjects[Pebble+p], i, key)
				}
			}
		}
	}
	return nil
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
