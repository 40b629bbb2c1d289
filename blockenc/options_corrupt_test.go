package blockenc_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// smallFeatureCells are short blocks on which every feature is used (with
// sub-block sizes of 40 and 60 bytes): repeated keys and values that LZ4
// compresses and dedupe finds, or 4-byte counters for a value column.
func smallOptionCells(ints bool) []blockenc.Cell {
	var cells []blockenc.Cell
	vals := []string{"alpha-value", "beta-value", "", "alpha-value", "gamma"}
	for i := range 14 {
		c := blockenc.Cell{Key: fmt.Appendf(nil, "user/%04d/metric", i/2), Seq: uint64(1000 - i), Kind: blockenc.KindPut}
		if ints {
			c.Value = binary.BigEndian.AppendUint32(nil, uint32(70000+3*i))
		} else {
			c.Value = []byte(vals[i%len(vals)])
			if i%7 == 3 {
				c.Kind = blockenc.KindDelete
			}
		}
		cells = append(cells, c)
	}
	return cells
}

// TestOptionsCorruptBytes: every single-byte change and every truncation of
// a block with features is an error from NewSeeker; blocks whose checksum
// was fixed up after a change never panic and give ErrCorrupt or cells in
// order.
func TestOptionsCorruptBytes(t *testing.T) {
	defer blockenc.SetSubBlockSizes(40, 60)()
	errs, oks := 0, 0
	for _, opts := range optionCombos() {
		if !hasOptions(opts) {
			continue
		}
		cells := smallOptionCells(opts.IntValues)
		block := encodeAny(t, opts, cells)
		flags := blockenc.Flags(block)
		if opts.Compression != blockenc.NoCompression && flags&(blockenc.FlagLZ4|blockenc.FlagLZ4Dict) == 0 ||
			opts.IntValues && opts.Compression == blockenc.NoCompression && flags&blockenc.FlagIntValues == 0 {
			require.Failf(t, "feature not used", "%s: flags %#x: the test would miss it", comboName(opts), flags)
		}
		require.NoError(t, exercise(t, block), "%s: good block fails", comboName(opts))
		requireFlipsAndCutsCorrupt(t, block, comboName(opts), 0x01, 0x80, 0xff)
		// Hostile: changed and checksum fixed up. Prefix and Diff share
		// their value and sub-block paths with RowIndex and FastDiff: left
		// out to keep the test short under -race.
		if opts.Encoding == blockenc.Prefix || opts.Encoding == blockenc.Diff || opts.RestartInterval == 1 {
			continue
		}
		e, o := replaceBytes(t, block, 0, 1, 0x80, 0xff)
		errs, oks = errs+e, oks+o
		for n := 4; n < len(block); n++ {
			tr := bytes.Clone(block[:n])
			fixCRC(tr)
			if exercise(t, tr) == nil && blockenc.Verify(tr) == nil {
				checkConsistent(t, tr)
			}
		}
	}
	require.NotZero(t, errs, "hostile blocks: %d errors, %d accepted: expected both", errs, oks)
	require.NotZero(t, oks, "hostile blocks: %d errors, %d accepted: expected both", errs, oks)
}

// TestOptionsCorruptHeader: specific faults in the feature sections.
func TestOptionsCorruptHeader(t *testing.T) {
	defer blockenc.SetSubBlockSizes(40, 60)()
	for _, tc := range []struct {
		name string
		opts blockenc.Options
		mod  func(b []byte) []byte
	}{
		{"LZ4 and LZ4Dict", blockenc.Options{Compression: blockenc.LZ4}, func(b []byte) []byte { b[2] |= blockenc.FlagLZ4Dict; return b }},
		{"dedupe and ints", blockenc.Options{IntValues: true}, func(b []byte) []byte { b[2] |= blockenc.FlagValueDedup; return b }},
		{"flag bit 4", blockenc.Options{}, func(b []byte) []byte { b[2] |= 0x10; return b }},
		{"LZ4 length +1", blockenc.Options{Compression: blockenc.LZ4}, func(b []byte) []byte { b[4]++; return b }},
		{"LZ4 length -1", blockenc.Options{Compression: blockenc.LZ4}, func(b []byte) []byte { b[4]--; return b }},
		{"LZ4 length huge", blockenc.Options{Compression: blockenc.LZ4}, func(b []byte) []byte {
			return append(append(b[:4:4], 0xff, 0xff, 0xff, 0xff, 0x0f), b[5:]...)
		}},
		{"LZ4Dict no sub-blocks", blockenc.Options{Compression: blockenc.LZ4Dict}, func(b []byte) []byte { b[4] = 0; return b }},
		{"LZ4Dict sub-block count +1", blockenc.Options{Compression: blockenc.LZ4Dict}, func(b []byte) []byte { b[4]++; return b }},
		{"LZ4Dict dictionary length +1", blockenc.Options{Compression: blockenc.LZ4Dict}, func(b []byte) []byte { b[5]++; return b }},
		{"LZ4Dict first cell 0", blockenc.Options{Compression: blockenc.LZ4Dict, Encoding: blockenc.FastDiff}, func(b []byte) []byte { b[7] = 0; return b }},
		{"LZ4Dict first cell off a restart", blockenc.Options{Compression: blockenc.LZ4Dict, Encoding: blockenc.RowIndex, RestartInterval: 2}, func(b []byte) []byte { b[8]++; return b }},
		{"LZ4Dict index key", blockenc.Options{Compression: blockenc.LZ4Dict, Encoding: blockenc.Prefix}, func(b []byte) []byte { b[10+9]++; return b }},
		{"value width 3", blockenc.Options{IntValues: true}, func(b []byte) []byte { b[4] = 3 | b[4]&0x80; return b }},
		{"value width 2", blockenc.Options{IntValues: true}, func(b []byte) []byte { b[4] = 2 | b[4]&0x80; return b }},
		{"value column length", blockenc.Options{IntValues: true}, func(b []byte) []byte { b[5]--; return b }},
	} {
		cells := smallOptionCells(tc.opts.IntValues)
		good := encodeAny(t, tc.opts, cells)
		require.NoError(t, blockenc.Verify(good), "%s: good block", tc.name)
		b := tc.mod(bytes.Clone(good))
		fixCRC(b)
		assert.ErrorIs(t, blockenc.Verify(b), blockenc.ErrCorrupt, "%s: Verify (block %x)", tc.name, b)

	}
}

// TestSeekShorterShared: a block in order whose shared prefix lengths are
// shorter than they could be (an Encoder never writes that; a restart or
// an LZ4Dict sub-block start does on purpose) still seeks right: found by
// FuzzBlockCompressedDecode, where SeekGE("00000004\x00") landed on
// "00000004".
func TestSeekShorterShared(t *testing.T) {
	prefix := unhex(t, `01 01 00 03
		00 02 00 6130 01 03
		00 02 00 6131 01 02
		01 01 00 32 01 01
		00000000`) // "a0" "a1" (shares 0 of 1) "a2"
	fixCRC(prefix)
	fuzzed := []byte("\x01\x03\x00\f\x88\x00\v0000000000000000000x00000000000001100000000000b\xd001200000000000a0000000000000\xd13a00000000000001400000000000a\xd0[1400000000000Z00000000000000000")
	fixCRC(fuzzed)
	for _, b := range [][]byte{prefix, fuzzed} {
		require.NoError(t, blockenc.Verify(b))
		checkConsistent(t, b)
	}
}
