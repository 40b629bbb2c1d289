package blockenc_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// FuzzColumnarForms round-trips cells built from the input through a
// Columnar encoder with small LZ4Dict sub-blocks, so that the forms added
// in format version 2 (packed keys and values, LZ4Dict value areas) come
// up: fixed-length keys and values when the input's first byte says so,
// at every compression level; with the second byte's bit 0, runs of
// integer values and seqs that need the zigzag delta columns. Size must
// bound every block, and every block must verify, read back, seek and
// allocate nothing per move (conform). With the second byte's bit 1 the
// value area is compressed against a Dict of the input's first bytes, in
// small sub-blocks. With bit 2, the values are float64 decimals as 8
// bytes, big-endian (little-endian with bit 3; float32 in 4 bytes with
// bit 4), and with bit 5 decimal text: the float and text values of
// format version 5. FuzzBlockDecode
// (fuzz/blockenc_test.go) has the golden blocks of these forms as seeds
// for arbitrary bytes.
func FuzzColumnarForms(f *testing.F) {
	defer blockenc.SetSubBlockSizes(16, 24)()
	defer blockenc.SetExtSubBlockSize(20)()
	f.Add([]byte("\x07\x00 the quick brown fox jumps over the lazy dog, 1995-03-13 1996-01-02"))
	f.Add(append([]byte{0x03, 0x00}, bytes.Repeat([]byte{0x03, 0x10, 0x20, 0x31, 0x42}, 40)...))
	f.Add(append([]byte{0x1c, 0x00}, bytes.Repeat([]byte{0x1c, 0xff, 0x00, 0x7f}, 90)...))
	f.Add(append([]byte{0x61, 0x01}, bytes.Repeat([]byte{0x05, 0x01, 0x02}, 100)...))
	f.Add([]byte("\x07\x02 the quick brown fox jumps over the lazy dog, 1995-03-13 1996-01-02"))
	f.Add([]byte("\x00\x02 furiously quickly carefully blithely slyly quickly quickly carefully"))
	f.Add(floatSeed(0x04))
	f.Add(floatSeed(0x0c))
	f.Add(floatSeed(0x1c))
	f.Add(floatSeed(0x20))
	f.Fuzz(func(t *testing.T, data []byte) {
		opts, cells := fuzzColumnarCells(data)
		if len(cells) == 0 {
			return
		}
		defer withReadDict(opts.Dict)()
		block := encodeAny(t, opts, cells) // checks that Size bounds the block
		var s blockenc.Seeker
		conform(t, &s, rand.New(rand.NewPCG(uint64(len(data)), 1)), block, cells)
	})
}

// fuzzColumnarCells builds FuzzColumnarForms' options and cells from its
// input (see there).
func fuzzColumnarCells(data []byte) (opts blockenc.Options, cells []blockenc.Cell) {
	levels := []int{0, 1, 9, 10}
	if len(data) < 3 {
		return opts, nil
	}
	mode, series := data[0], data[1]&1 != 0
	fixedKeys, fixedVals := mode&1 != 0, mode&2 != 0
	opts = blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict,
		RestartInterval: 1 + int(mode>>5), CompressionLevel: levels[mode>>3&3]}
	if data[1]&2 != 0 {
		// A Dict of the input's first bytes: its values match into it.
		opts.Dict, _ = blockenc.NewDict(data[2:min(len(data), 66)])
	}
	if mode&4 != 0 && opts.Dict == nil {
		opts.Compression = blockenc.LZ4
	}
	data0 := data
	data = data[2:]
	var sum uint64
	for i := 0; i < len(data) && len(cells) < 300; i++ {
		d := data[i]
		sum += 1 + uint64(d%5)
		k := binary.BigEndian.AppendUint64(nil, sum)
		if !fixedKeys {
			k = append(k, bytes.Repeat([]byte{'x'}, int(d%3))...)
		}
		var v []byte
		x := float64(int(d)*7+i*3) / 100 // a decimal with up to 2 digits
		if d%17 == 0 && data0[1]&4 != 0 {
			x = math.Float64frombits(uint64(d) * 0x9e3779b97f4a7c15) // an exception
		}
		switch {
		case data0[1]&4 != 0 && data0[1]&16 != 0:
			v = binary.BigEndian.AppendUint32(nil, math.Float32bits(float32(x)))
			if data0[1]&8 != 0 {
				v = binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(x)))
			}
		case data0[1]&4 != 0:
			v = binary.BigEndian.AppendUint64(nil, math.Float64bits(x))
			if data0[1]&8 != 0 {
				v = binary.LittleEndian.AppendUint64(nil, math.Float64bits(x))
			}
		case data0[1]&32 != 0:
			v = strconv.AppendFloat(nil, x, 'f', -1, 64)
		case series:
			// Runs that step evenly and jump between them, up and
			// down: integer values and seqs as zigzag deltas.
			run := uint64(i / (1 + int(mode>>5)*8))
			v = binary.BigEndian.AppendUint64(nil, (run%3)<<40+uint64(i)*uint64(d%4+1))
		case fixedVals:
			v = append(v, data[i:min(i+6, len(data))]...)
			v = append(v, make([]byte, 6-len(v))...)
		default:
			v = data[i:min(i+int(d%23), len(data))]
		}
		seq := uint64(d) << (d % 40)
		if series {
			seq = 1<<30 + uint64(i%7)*1000 + uint64(i)
		}
		cells = append(cells, blockenc.Cell{Key: k, Value: v, Seq: seq, Kind: blockenc.Kind(min(1, d%11))})
	}
	return opts, cells
}

// floatSeed is a FuzzColumnarForms input with fixed keys and the float or
// text values that the second byte, flags, asks for.
func floatSeed(flags byte) []byte {
	b := []byte{0x01, flags}
	for i := range 200 {
		b = append(b, byte(i*37%251))
	}
	return b
}

// TestFuzzColumnarSeeds: the series seed does reach the zigzag delta
// columns (seqs mode 2), and the float seeds the float and text values
// (values modes 4 and 5), so the fuzzer starts from them.
func TestFuzzColumnarSeeds(t *testing.T) {
	for flags, want := range map[byte]byte{0x04: 4, 0x0c: 4, 0x1c: 4, 0x20: 5} {
		opts, cells := fuzzColumnarCells(floatSeed(flags))
		_, _, vals, err := blockenc.ColumnarForms(encodeAny(t, opts, cells))
		require.NoError(t, err, "ColumnarForms")
		require.Equal(t, want, vals, "values form of float seed %#x", flags)
	}
	opts, cells := fuzzColumnarCells(append([]byte{0x61, 0x01}, bytes.Repeat([]byte{0x05, 0x01, 0x02}, 100)...))
	block := encodeAny(t, opts, cells)
	_, seqs, vals, err := blockenc.ColumnarForms(block)
	require.NoError(t, err, "ColumnarForms")
	require.EqualValues(t, 2, seqs, "seqs form")
	require.EqualValues(t, 1, vals, "values form")

}

// FuzzColumnarDictV4 feeds arbitrary bytes as version 4 blocks (Columnar
// against a Dict), their sub-block checksums and trailer made to match
// (FixChecksums; other blocks get their whole-block trailer), so that
// hostile headers and sub-block data get past the checksums to the
// decoders: every move and Decompress return errors wrapping ErrCorrupt,
// nothing panics, and a block that reads without error and verifies reads
// the same cells through every move.
func FuzzColumnarDictV4(f *testing.F) {
	d, err := commentDict()
	require.NoError(f, err)
	defer withReadDict(d)()
	for _, n := range []int{50, 100, 300} {
		block, err := commentBlock(d, 0, n)
		require.NoError(f, err)
		require.Equal(f, byte(4), block[0], "seed of %d cells: version", n)
		f.Add(block)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		block := bytes.Clone(data)
		fixCRC(block)
		if exercise(t, block) == nil && verify(block) == nil {
			checkConsistent(t, block)
		}
		var s blockenc.Seeker
		if s.InitDict(block, d) != nil {
			return
		}
		s.Decompress()
		for ok := s.First(); ok; ok = s.Next() {
		}
		if err := s.Err(); err != nil {
			require.ErrorIs(t, err, blockenc.ErrCorrupt, "a scan after Decompress")
		}
	})
}
