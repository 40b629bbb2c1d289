package fuzz

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// featureOptions: every encoding x compression x dedupe x value column,
// and LZ4Dict against fuzzDict.
func featureOptions() []blockenc.Options {
	var opts []blockenc.Options
	for _, base := range blockOptions {
		for _, c := range blockenc.Compressions() {
			for _, dedupe := range []bool{false, true} {
				for _, ints := range []bool{false, true} {
					o := base
					o.Compression, o.DedupeValues, o.IntValues = c, dedupe, ints
					opts = append(opts, o)
					if c == blockenc.LZ4Dict {
						o.Dict = fuzzDict
						opts = append(opts, o)
					}
				}
			}
		}
	}
	return opts
}

// compressSeedCells are cells every feature has something to do with:
// repeated keys and values, and 4-byte values for a value column.
func compressSeedCells(ints bool) []blockenc.Cell {
	var cells []blockenc.Cell
	for i := range 12 {
		c := blockenc.Cell{Key: []byte("key/000" + string(rune('0'+i/2))), Seq: uint64(100 - i), Kind: blockenc.KindPut, Value: []byte("value-value")}
		if ints {
			c.Value = binary.BigEndian.AppendUint32(nil, uint32(1000+i))
		} else if i%3 == 1 {
			c.Value = []byte("other-value")
		}
		cells = append(cells, c)
	}
	return cells
}

// FuzzBlockCompressedDecode decodes arbitrary compressed blocks: the input
// as a block with its CRC fixed up (seeded with blocks of every feature),
// and the input as the cells of an LZ4 block and of a two-sub-block LZ4Dict
// block built around it (valid LZ4, hostile cells), so the fuzzer reaches
// the cell decoders behind decompression. Errors must wrap ErrCorrupt;
// accepted blocks must be consistent (checkDecode).
func FuzzBlockCompressedDecode(f *testing.F) {
	for _, opts := range featureOptions() {
		f.Add(encodeCells(&testing.T{}, opts, compressSeedCells(opts.IntValues)), uint8(0), uint8(opts.Encoding), uint8(5))
	}
	plain := encodeCells(&testing.T{}, blockenc.Options{Encoding: blockenc.FastDiff}, compressSeedCells(false))
	f.Add(plain[4:len(plain)-4], uint8(1), uint8(blockenc.FastDiff), uint8(12))
	f.Add(plain[4:len(plain)-4], uint8(2), uint8(blockenc.FastDiff), uint8(12))
	f.Fuzz(func(t *testing.T, data []byte, mode, enc, count uint8) {
		var block []byte
		hdr := []byte{1, enc % 5, 0, count}
		if enc%5 == uint8(blockenc.RowIndex) {
			hdr = append(hdr, 3) // restart interval; restarts: none fit, mostly
		}
		switch mode % 3 {
		case 0:
			block = withFixedCRC(data)
		case 1: // LZ4: rawlen | LZ4 block of data
			hdr[2] = 1
			block = binary.AppendUvarint(hdr, uint64(len(data)))
			block = appendLZ4(block, data, nil)
			block = withFixedCRC(append(block, 0, 0, 0, 0))
		default: // LZ4Dict: two sub-blocks, the second starting at cell 1
			hdr[2] = 2
			cut := len(data) / 2
			if cut == 0 {
				return
			}
			key := data[:min(len(data), 3)]
			sub0, sub1 := appendLZ4(nil, data[:cut], nil), appendLZ4(nil, data[cut:], data[:cut])
			block = append(hdr, 2)
			block = binary.AppendUvarint(block, uint64(cut))
			block = binary.AppendUvarint(block, uint64(len(sub0)))
			block = binary.AppendUvarint(block, uint64(len(data)-cut))
			block = binary.AppendUvarint(block, uint64(len(sub1)))
			block = append(block, 1, byte(len(key)))
			block = append(append(append(block, key...), sub0...), sub1...)
			block = withFixedCRC(append(block, 0, 0, 0, 0))
		}
		checkDecode(t, block)
	})
}

// appendLZ4 appends src LZ4-compressed against dict (pierrec's encoder
// cannot use a dictionary: without one, or stored as literals with one).
func appendLZ4(dst, src, dict []byte) []byte {
	if len(dict) == 0 {
		buf := make([]byte, lz4.CompressBlockBound(len(src)))
		var c lz4.Compressor
		if n, err := c.CompressBlock(src, buf); err == nil && n > 0 {
			return append(dst, buf[:n]...)
		}
	}
	// One literal-only sequence: a valid LZ4 block of src.
	n := len(src)
	if n < 15 {
		return append(append(dst, byte(n<<4)), src...)
	}
	dst = append(dst, 0xf0)
	for n -= 15; n >= 255; n -= 255 {
		dst = append(dst, 255)
	}
	return append(append(dst, byte(n)), src...)
}

// FuzzBlockFeatureRoundTrip builds sorted, distinct cells with gofuzz
// (values of one width when the input says so, for value columns) and
// checks a seventh of the encoding x compression x dedupe x value column
// combinations, chosen by the input: Verify, a full read, seeks, and Size
// bounding the block.
func FuzzBlockFeatureRoundTrip(f *testing.F) {
	f.Add([]byte("seed"), false, uint8(0))
	f.Add(bytes.Repeat([]byte{0x55, 0xaa, 0x01, 0xff, 0x00}, 60), true, uint8(1))
	f.Add(bytes.Repeat([]byte("value-value-key"), 40), false, uint8(2))
	all := featureOptions()
	f.Fuzz(func(t *testing.T, data []byte, fixedWidth bool, pick uint8) {
		cells := gofuzzCells(data, 60, fixedWidth)
		for i, opts := range all {
			if i%7 != int(pick%7) { // a seventh of the combinations per input, for speed
				continue
			}
			e := blockenc.NewEncoder(opts)
			for _, c := range cells {
				require.NoError(t, e.Add(c), "%+v", opts)
			}
			block, err := e.Finish()
			require.NoError(t, err, "%+v", opts)
			require.GreaterOrEqual(t, e.Size(), len(block), "%+v: Size < block", opts)
			require.NoError(t, blockenc.VerifyDict(block, opts.Dict), "%+v: Verify", opts)
			got, s, err := readBlock(t, block)
			require.NoError(t, err, "%+v: read %d of %d cells", opts, len(got), len(cells))
			require.Equal(t, viewCells(cells), viewCells(got), "%+v: cells read back", opts)

			checkSeeks(t, s, cells)
		}
	})
}
