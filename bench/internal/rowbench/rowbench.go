// Package rowbench measures bytes per cell of kvenc's blocks
// against Pebble v2 and Badger v4, each with its own compression, on the
// same cells in the same run.
//
// The cells are cut into blocks of BlockBytes raw bytes (keys + values + 8
// bytes per seq), and every kvenc subject and Pebble's rowblk (restart
// interval 16; raw, and compressed whole by Pebble's Snappy and zstd level
// 3 block compressors, package pebbleblk) encode the same cut. Badger cuts
// its own blocks: its subject is one SSTable built with badger/v4's table
// package over every cell, BlockSize = BlockBytes, no compression, Snappy
// or ZSTD (level 1, Badger's default), and its bytes are the whole table
// (blocks, index, bloom filter at 1% false positives, checksums); its keys
// carry Badger's 8-byte version (the cell's seq).
//
// Every block and table is read back and compared with its cells (key,
// value, seq, count) before its size is counted; a subject that fails is an
// error, never a number.
package rowbench

import (
	"bytes"
	"fmt"

	"github.com/cockroachdb/pebble/v2/sstable/block"
	"github.com/dgraph-io/badger/v4/options"

	"github.com/kvenc/kvenc/bench/internal/dataset"
	"github.com/kvenc/kvenc/bench/internal/pebbleblk"
	"github.com/kvenc/kvenc/blockenc"
)

// BlockBytes is the raw size of the cells of one block.
const BlockBytes = 64 << 10

// Subject is one encoding of the cells; exactly one of Kvenc, Pebble and
// Badger is set.
type Subject struct {
	Name   string
	Kvenc  *blockenc.Options
	Pebble *block.CompressionProfile
	Badger *options.CompressionType
	// FixedOnly: the subject applies only when every value has the same
	// width, 1, 2, 4 or 8 bytes (blockenc's IntValues).
	FixedOnly bool
}

func kv(o blockenc.Options) *blockenc.Options { o.RestartInterval = 16; return &o }

func badger(c options.CompressionType) *options.CompressionType { return &c }

// Subjects are the encodings in report order: kvenc, Pebble, Badger.
var Subjects = []Subject{
	{Name: "FastDiff+LZ4", Kvenc: kv(blockenc.Options{Encoding: blockenc.FastDiff, Compression: blockenc.LZ4})},
	{Name: "FastDiff+LZ4Dict", Kvenc: kv(blockenc.Options{Encoding: blockenc.FastDiff, Compression: blockenc.LZ4Dict})},
	{Name: "FastDiff+IntValues", Kvenc: kv(blockenc.Options{Encoding: blockenc.FastDiff, IntValues: true}), FixedOnly: true},
	{Name: "FastDiff+IntValues+LZ4", Kvenc: kv(blockenc.Options{Encoding: blockenc.FastDiff, IntValues: true, Compression: blockenc.LZ4}), FixedOnly: true},
	{Name: "RowIndex+LZ4", Kvenc: kv(blockenc.Options{Encoding: blockenc.RowIndex, Compression: blockenc.LZ4})},
	{Name: "Columnar+LZ4", Kvenc: kv(blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4})},
	{Name: "Columnar+LZ4-6", Kvenc: kv(blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4, CompressionLevel: 6})},
	{Name: "pebble-rowblk", Pebble: block.NoCompression},
	{Name: "pebble-rowblk+snappy", Pebble: block.SnappyCompression},
	{Name: "pebble-rowblk+zstd", Pebble: block.ZstdCompression},
	{Name: "badger-table", Badger: badger(options.None)},
	{Name: "badger-table+snappy", Badger: badger(options.Snappy)},
	{Name: "badger-table+zstd", Badger: badger(options.ZSTD)},
}

// Index returns the index of the subject named name, or -1.
func Index(name string) int {
	for i, s := range Subjects {
		if s.Name == name {
			return i
		}
	}
	return -1
}

// Result is one data set's sizes.
type Result struct {
	Dataset       string
	Cells, Blocks int   // Blocks: of the shared cut (kvenc, Pebble)
	Bytes         []int // by Subjects; -1 where the subject does not apply
}

// PerCell returns subject s's bytes per cell (NaN-free: -1 if it does not
// apply).
func (r Result) PerCell(s int) float64 {
	if r.Bytes[s] < 0 {
		return -1
	}
	return float64(r.Bytes[s]) / float64(r.Cells)
}

// Measure encodes cells (sorted by key, distinct) with every subject.
func Measure(name string, cells []dataset.KV) (Result, error) {
	if len(cells) == 0 {
		return Result{}, fmt.Errorf("rowbench: %s: no cells", name)
	}
	blks := Blocks(cells, BlockBytes)
	res := Result{Dataset: name, Cells: len(cells), Blocks: len(blks), Bytes: make([]int, len(Subjects))}
	fixed := FixedWidth(cells)
	for i, s := range Subjects {
		var n int
		var err error
		switch {
		case s.FixedOnly && !fixed:
			n = -1
		case s.Kvenc != nil:
			n, err = kvencBytes(*s.Kvenc, blks)
		case s.Pebble != nil:
			n, err = pebbleBytes(s.Pebble, blks)
		case s.Badger != nil:
			n, err = badgerBytes(*s.Badger, cells)
		}
		if err != nil {
			return Result{}, fmt.Errorf("rowbench: %s %s: %w", name, s.Name, err)
		}
		res.Bytes[i] = n
	}
	return res, nil
}

// Blocks cuts cells into runs of at least size raw bytes (the last may be
// shorter): dataset.CutBlocks.
func Blocks(cells []dataset.KV, size int) [][]dataset.KV { return dataset.CutBlocks(cells, size) }

// FixedWidth reports whether every value has the same width, 1, 2, 4 or 8
// bytes.
func FixedWidth(cells []dataset.KV) bool {
	w := len(cells[0].Value)
	if w != 1 && w != 2 && w != 4 && w != 8 {
		return false
	}
	for _, kv := range cells {
		if len(kv.Value) != w {
			return false
		}
	}
	return true
}

func kvencBytes(o blockenc.Options, blks [][]dataset.KV) (int, error) {
	e := blockenc.NewEncoder(o)
	var s blockenc.Seeker
	n := 0
	for b, cells := range blks {
		e.Reset()
		for _, kv := range cells {
			if err := e.Add(blockenc.Cell{Key: kv.Key, Value: kv.Value, Seq: kv.Seq, Kind: blockenc.KindPut}); err != nil {
				return 0, err
			}
		}
		blk, err := e.Finish()
		if err != nil {
			return 0, err
		}
		if err := s.Init(blk); err != nil {
			return 0, fmt.Errorf("block %d: %w", b, err)
		}
		i := 0
		for ok := s.First(); ok; ok = s.Next() {
			if i >= len(cells) || !bytes.Equal(s.Key(), cells[i].Key) || !bytes.Equal(s.Value(), cells[i].Value) || s.Seq() != cells[i].Seq {
				return 0, fmt.Errorf("block %d: cell %d does not decode back", b, i)
			}
			i++
		}
		if err := s.Err(); err != nil {
			return 0, fmt.Errorf("block %d: %w", b, err)
		}
		if i != len(cells) {
			return 0, fmt.Errorf("block %d: decoded %d of %d cells", b, i, len(cells))
		}
		n += len(blk)
	}
	return n, nil
}

func pebbleBytes(p *block.CompressionProfile, blks [][]dataset.KV) (int, error) {
	c := pebbleblk.NewCompressor(p)
	defer c.Close()
	n := 0
	for b, cells := range blks {
		raw, err := pebbleblk.Build(cells)
		if err != nil {
			return 0, err
		}
		pb := c.Compress(raw)
		if err := pebbleblk.Check(pb, cells); err != nil {
			return 0, fmt.Errorf("block %d: %w", b, err)
		}
		n += pb.Size()
	}
	return n, nil
}
