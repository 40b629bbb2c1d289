package blockenc_test

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// tsCells are the value column example of internal/rowblk's doc: six 8-byte counters.
func tsCells() []blockenc.Cell {
	var cells []blockenc.Cell
	for i := range 6 {
		cells = append(cells, blockenc.Cell{
			Key:   []byte{'t', byte('0' + i)},
			Value: binary.BigEndian.AppendUint64(nil, uint64(5000+i*i)),
			Seq:   uint64(10 + i), Kind: blockenc.KindPut,
		})
	}
	return cells
}

// tsSeqCells are the seq column example of internal/rowblk's doc: eight 8-byte counters
// with seqs 2^40 + 200i, as one series among 200 gets them.
func tsSeqCells() []blockenc.Cell {
	var cells []blockenc.Cell
	for i := range 8 {
		cells = append(cells, blockenc.Cell{
			Key:   []byte{'t', byte('0' + i)},
			Value: binary.BigEndian.AppendUint64(nil, uint64(5000+i*i)),
			Seq:   1<<40 + 200*uint64(i), Kind: blockenc.KindPut,
		})
	}
	return cells
}

// lz4Cells are the LZ4 examples of internal/rowblk's doc: four cells with one value.
func lz4Cells() []blockenc.Cell {
	var cells []blockenc.Cell
	for i := range 4 {
		cells = append(cells, blockenc.Cell{
			Key:   fmt.Appendf(nil, "user%d", i),
			Value: []byte("value-value-value"),
			Seq:   uint64(9 - i), Kind: blockenc.KindPut,
		})
	}
	return cells
}

// lz4Raw is the None cell stream of lz4Cells, derived by hand: what both
// LZ4 examples must decompress to (26 bytes a cell).
const lz4Raw = `05 11 7573657230 76616c75652d76616c75652d76616c7565 01 09
	05 11 7573657231 76616c75652d76616c75652d76616c7565 01 08
	05 11 7573657232 76616c75652d76616c75652d76616c7565 01 07
	05 11 7573657233 76616c75652d76616c75652d76616c7565 01 06`

// TestGoldenOptions pins one block per feature: the bytes must match
// testdata/ (-rewrite regenerates: a format change) and an independent
// check: the hand-derived worked example of internal/rowblk's doc for dedupe and the value
// column; for LZ4 and LZ4Dict (in the block or against a Dict) the
// hand-derived header and index, and pierrec/lz4's decoder turning the
// compressed bytes into the hand-derived cells.
func TestGoldenOptions(t *testing.T) {
	crcTab := crc32.MakeTable(crc32.Castagnoli)
	for _, tc := range []struct {
		name  string
		opts  blockenc.Options
		cells []blockenc.Cell
		sizes [2]int // LZ4Dict dictionary and sub-block sizes; 0: default
		check func(t *testing.T, b []byte)
	}{
		{"prefix-dedupe", blockenc.Options{Encoding: blockenc.Prefix, DedupeValues: true}, docCells(), [2]int{}, func(t *testing.T, b []byte) {
			want := unhex(t, `01 01 04 05
				00 05 06 6170706c65 726564 01 09
				05 00 00 00 07
				05 01 07 74 0e 01 08
				04 01 07 79 15 01 05
				00 06 0c 62616e616e61 79656c6c6f77 01 8e03e8`)
			checkBody(t, b, want, crcTab)
		}},
		{"fastdiff-ints", blockenc.Options{Encoding: blockenc.FastDiff, IntValues: true}, tsCells(), [2]int{}, func(t *testing.T, b []byte) {
			// The column: BitPack of value-5000 = 0 1 4 9 16 25 in 5 bits,
			// 0|1<<5|4<<10|9<<15|16<<20|25<<25 = 0x33049020.
			col := unhex(t, `01 06 08 000000010000000000 12000000
				03 8813000000000000 05 2090043300000000`)
			col = binary.LittleEndian.AppendUint32(col, crc32.Checksum(col, crcTab))
			want := unhex(t, `01 03 08 06 08 26`)
			want = append(want, col...)
			want = append(want, unhex(t, `c2 00 7430 0a
				d1 31 0b  d1 32 0c  d1 33 0d  d1 34 0e  d1 35 0f`)...)
			checkBody(t, b, want, crcTab)
		}},
		{"fastdiff-ints-seqs", blockenc.Options{Encoding: blockenc.FastDiff, IntValues: true}, tsSeqCells(), [2]int{}, func(t *testing.T, b []byte) {
			// Values: BitPack of value-5000 = i*i in 6 bits, sum of
			// i*i << 6i = 0xc64650244040.
			vals := unhex(t, `01 08 08 000000010000000000 12000000
				03 8813000000000000 06 4040245046c60000`)
			vals = binary.LittleEndian.AppendUint32(vals, crc32.Checksum(vals, crcTab))
			// Seqs: one Delta chunk, first 2^40, step 200, 0 bits.
			seqs := unhex(t, `01 08 08 000000000100000000 12000000
				04 0000000000010000 c800000000000000 00`)
			seqs = binary.LittleEndian.AppendUint32(seqs, crc32.Checksum(seqs, crcTab))
			want := unhex(t, `01 03 18 08 08 26`)
			want = append(want, vals...)
			want = append(want, 0x00, 0x26)
			want = append(want, seqs...)
			want = append(want, unhex(t, `c2 00 7430 00
				d1 31 00  d1 32 00  d1 33 00  d1 34 00  d1 35 00  d1 36 00  d1 37 00`)...)
			checkBody(t, b, want, crcTab)
		}},
		{"none-lz4", blockenc.Options{Encoding: blockenc.None, Compression: blockenc.LZ4}, lz4Cells(), [2]int{}, func(t *testing.T, b []byte) {
			raw := unhex(t, lz4Raw)
			require.Equal(t, unhex(t, `01 00 01 04 68`), b[:5], "header") // LZ4, 104 bytes of cells
			checkLZ4(t, b[5:len(b)-4], raw, nil)
		}},
		{"none-lz4dict", blockenc.Options{Encoding: blockenc.None, Compression: blockenc.LZ4Dict}, lz4Cells(), [2]int{40, 40}, func(t *testing.T, b []byte) {
			raw := unhex(t, lz4Raw)
			// 2 sub-blocks: 52 raw bytes each; the second starts at
			// cell 2, key "user2".
			hdr := unhex(t, `01 00 02 04 02 34`)
			require.Equal(t, hdr, b[:len(hdr)], "header")
			require.Equal(t, unhex(t, `34 18 02 05 7573657232`), b[7:16], "index")
			c0 := int(b[6])
			data := b[16 : len(b)-4]
			require.Len(t, data, c0+0x18, "bytes of data vs the index")

			checkLZ4(t, data[:c0], raw[:52], nil)
			checkLZ4(t, data[c0:], raw[52:], raw[:52])
		}},
		{"none-dict", blockenc.Options{Encoding: blockenc.None, Compression: blockenc.LZ4Dict, Dict: goldenDict(t)}, lz4Cells(), [2]int{40, 40}, func(t *testing.T, b []byte) {
			raw := unhex(t, lz4Raw)
			// Version 3, flags 0x22; the Dict's ID (CRC-32C of
			// "value-value-value user"); 2 sub-blocks of 52 raw bytes,
			// the second starting at cell 2, key "user2", both
			// compressed against the Dict.
			hdr := unhex(t, `03 00 22 04 a3d4ce4c 02 34`)
			require.Equal(t, hdr, b[:len(hdr)], "header")
			require.Equal(t, unhex(t, "a3d4ce4c"), binary.LittleEndian.AppendUint32(nil, crc32.Checksum([]byte("value-value-value user"), crcTab)), "ID")
			c0 := int(b[len(hdr)])
			require.Equal(t, unhex(t, `34`), b[len(hdr)+1:len(hdr)+2], "index: second raw length")
			c1 := int(b[len(hdr)+2])
			require.Equal(t, unhex(t, `02 05 7573657232`), b[len(hdr)+3:len(hdr)+10], "index: first cell and key")
			data := b[len(hdr)+10 : len(b)-4]
			require.Len(t, data, c0+c1, "bytes of data vs the index")
			dict := []byte("value-value-value user")
			checkLZ4(t, data[:c0], raw[:52], dict)
			checkLZ4(t, data[c0:], raw[52:], dict)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.sizes[0] != 0 {
				defer blockenc.SetSubBlockSizes(tc.sizes[0], tc.sizes[1])()
				defer blockenc.SetExtSubBlockSize(tc.sizes[1])()
			}
			got := encodeAny(t, tc.opts, tc.cells)
			tc.check(t, got)
			s, err := blockenc.NewSeekerDict(got, tc.opts.Dict)
			require.NoError(t, err)
			checkAll(t, s, tc.cells)
			checkGoldenFile(t, tc.name+".block", got) // equal to got, which read back
		})
	}
}

// goldenDict is the Dict of the none-dict golden block.
func goldenDict(t *testing.T) *blockenc.Dict {
	d, err := blockenc.NewDict([]byte("value-value-value user"))
	require.NoError(t, err)
	return d
}

// checkBody compares a block with want plus its CRC32C.
func checkBody(t *testing.T, got, want []byte, tab *crc32.Table) {
	t.Helper()
	want = binary.LittleEndian.AppendUint32(want, crc32.Checksum(want, tab))
	require.Equal(t, want, got, "encoder and the worked example differ at offset %d", firstDiff(got, want))
}

// checkLZ4 decodes src with pierrec/lz4 (against dict) and compares.
func checkLZ4(t *testing.T, src, want, dict []byte) {
	t.Helper()
	out := make([]byte, len(want)+64)
	n, err := lz4.UncompressBlockWithDict(src, out, dict)
	require.NoError(t, err, "pierrec decodes % x", src)
	require.Equal(t, want, out[:n], "pierrec decodes % x", src)
}
