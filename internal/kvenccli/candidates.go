package kvenccli

import (
	"fmt"
	"strings"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/kv"
)

// candidate is one set of store options advise tries: the block options,
// the block size and the segment dictionary size, as kv.Options holds
// them.
type candidate struct {
	block     blockenc.Options // CompressionLevel: the level of stored (compacted) blocks
	blockSize int
	dictSize  int // kv.Options.DictSize: > 0 a segment dictionary of at most this many bytes; -1 none
}

// kv's defaults (kv.DefaultOptions), written out here: this package
// reads no kv internals, and TestDefaultCandidate checks them against kv.
var kvDefault = candidate{
	block:     blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: blockenc.DefaultRestartInterval, Compression: blockenc.LZ4Dict, CompressionLevel: 9, DedupeValues: true, IntValues: true},
	blockSize: 16 << 10,
	dictSize:  blockenc.MaxDictSize,
}

// candidates returns the option sets worth trying: HBase's layouts once,
// uncompressed; FastDiff, RowIndex and Columnar at three block sizes with
// every compression, LZ4Dict with its in-block dictionary and with a
// segment dictionary of two sizes, at the levels that matter (0, LZ4's
// fast parse; 9, kv's compaction level; MaxCompressionLevel). quick
// keeps 16 KiB blocks and level 9 only.
func candidates(quick bool) []candidate {
	var out []candidate
	base := blockenc.Options{RestartInterval: blockenc.DefaultRestartInterval, DedupeValues: true, IntValues: true}
	add := func(enc blockenc.Encoding, size int, comp blockenc.Compression, level, dict int) {
		b := base
		b.Encoding, b.Compression, b.CompressionLevel = enc, comp, level
		out = append(out, candidate{block: b, blockSize: size, dictSize: dict})
	}
	if !quick {
		for _, enc := range []blockenc.Encoding{blockenc.None, blockenc.Prefix, blockenc.Diff} {
			add(enc, 16<<10, blockenc.NoCompression, 0, -1)
		}
	}
	sizes := []int{4 << 10, 16 << 10, 64 << 10}
	levels := []int{0, 9, blockenc.MaxCompressionLevel}
	if quick {
		sizes, levels = []int{16 << 10}, []int{9}
	}
	for _, enc := range []blockenc.Encoding{blockenc.FastDiff, blockenc.RowIndex, blockenc.Columnar} {
		for _, size := range sizes {
			add(enc, size, blockenc.NoCompression, 0, -1)
			for _, level := range levels {
				add(enc, size, blockenc.LZ4, level, -1)
				add(enc, size, blockenc.LZ4Dict, level, -1)
				add(enc, size, blockenc.LZ4Dict, level, blockenc.MaxDictSize)
			}
			add(enc, size, blockenc.LZ4Dict, 9, 16<<10)
		}
	}
	return out
}

// name is the candidate's short name in advise's table.
func (c candidate) name() string {
	var b strings.Builder
	b.WriteString(c.block.Encoding.String())
	switch {
	case c.block.Compression == blockenc.NoCompression:
	case c.block.Compression == blockenc.LZ4Dict && c.dictSize > 0:
		fmt.Fprintf(&b, " lz4dict+seg%s", sizeName(c.dictSize))
	default:
		b.WriteString(" " + c.block.Compression.String())
	}
	if c.block.Compression != blockenc.NoCompression {
		fmt.Fprintf(&b, " L%d", c.block.CompressionLevel)
	}
	fmt.Fprintf(&b, " %s", sizeName(c.blockSize))
	return b.String()
}

// sizeName writes n bytes as "16K" (64 KiB - 1, the largest dictionary,
// as "64K").
func sizeName(n int) string {
	if n == blockenc.MaxDictSize {
		n++
	}
	if n%1024 == 0 {
		return fmt.Sprintf("%dK", n>>10)
	}
	return fmt.Sprint(n)
}

// kvOptions returns the kv.Options for a store in dir that writes c's
// blocks: what goCode prints.
func (c candidate) kvOptions(dir string) kv.Options {
	o := kv.DefaultOptions(dir)
	o.Block = blockenc.Options{Encoding: c.block.Encoding, RestartInterval: c.block.RestartInterval, Compression: c.block.Compression, DedupeValues: true, IntValues: true}
	o.BlockSize = c.blockSize
	switch {
	case c.dictSize > 0:
		o.DictSize = c.dictSize
	case c.block.Compression == blockenc.LZ4Dict:
		o.DictSize = -1
	}
	if c.block.Compression != blockenc.NoCompression {
		o.CompactionLevel = c.block.CompressionLevel
		if o.CompactionLevel == 0 {
			o.CompactionLevel = -1
		}
	}
	return o
}

// goCode returns kvOptions as Go code for a program that imports kv and
// blockenc.
func (c candidate) goCode() string {
	o := c.kvOptions("dir")
	var b strings.Builder
	b.WriteString("o := kv.DefaultOptions(dir)\n")
	fmt.Fprintf(&b, "o.Block = blockenc.Options{\n\tEncoding:        blockenc.%s,\n", encodingIdent(o.Block.Encoding))
	fmt.Fprintf(&b, "\tRestartInterval: %d,\n", o.Block.RestartInterval)
	if o.Block.Compression != blockenc.NoCompression {
		fmt.Fprintf(&b, "\tCompression:     blockenc.%s,\n", compressionIdent(o.Block.Compression))
	}
	fmt.Fprintf(&b, "\tDedupeValues:    %v,\n\tIntValues:       %v,\n}\n", o.Block.DedupeValues, o.Block.IntValues)
	fmt.Fprintf(&b, "o.BlockSize = %s\n", sizeExpr(o.BlockSize))
	if o.Block.Compression == blockenc.LZ4Dict {
		if o.DictSize < 0 {
			b.WriteString("o.DictSize = -1 // each block keeps its own dictionary\n")
		} else {
			fmt.Fprintf(&b, "o.DictSize = %s\n", sizeExpr(o.DictSize))
		}
	}
	switch {
	case o.Block.Compression == blockenc.NoCompression:
	case o.CompactionLevel < 0:
		b.WriteString("o.CompactionLevel = -1 // Block's level, 0\n")
	default:
		fmt.Fprintf(&b, "o.CompactionLevel = %d\n", o.CompactionLevel)
	}
	return b.String()
}

func sizeExpr(n int) string {
	switch {
	case n == blockenc.MaxDictSize:
		return "64<<10 - 1"
	case n%1024 == 0:
		return fmt.Sprintf("%d << 10", n>>10)
	}
	return fmt.Sprint(n)
}

func encodingIdent(e blockenc.Encoding) string {
	return map[blockenc.Encoding]string{blockenc.None: "None", blockenc.Prefix: "Prefix", blockenc.Diff: "Diff",
		blockenc.FastDiff: "FastDiff", blockenc.RowIndex: "RowIndex", blockenc.Columnar: "Columnar"}[e]
}

func compressionIdent(c blockenc.Compression) string {
	return map[blockenc.Compression]string{blockenc.NoCompression: "NoCompression", blockenc.LZ4: "LZ4", blockenc.LZ4Dict: "LZ4Dict"}[c]
}
