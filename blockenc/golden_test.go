package blockenc_test

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the golden blocks in testdata/ (a format change)")

// docCells are the five cells of the worked examples in the package docs (blockenc, internal/rowblk).
func docCells() []blockenc.Cell {
	return []blockenc.Cell{
		{Key: []byte("apple"), Value: []byte("red"), Seq: 9, Kind: blockenc.KindPut},
		{Key: []byte("apple"), Seq: 7, Kind: blockenc.KindDelete},
		{Key: []byte("applet"), Value: []byte("red"), Seq: 8, Kind: blockenc.KindPut},
		{Key: []byte("apply"), Value: []byte("red"), Seq: 5, Kind: blockenc.KindPut},
		{Key: []byte("banana"), Value: []byte("yellow"), Seq: 1000, Kind: blockenc.KindPut},
	}
}

func docOptions(e blockenc.Encoding) blockenc.Options {
	return blockenc.Options{Encoding: e, RestartInterval: 2}
}

// docBytes are the worked examples of the package docs, derived by hand from the
// format description (not from the encoder), without the CRC trailer.
var docBytes = map[blockenc.Encoding]string{
	blockenc.None: `01 00 00 05
		05 03 6170706c65 726564 01 09
		05 00 6170706c65 00 07
		06 03 6170706c6574 726564 01 08
		05 03 6170706c79 726564 01 05
		06 06 62616e616e61 79656c6c6f77 01 8e03e8`,
	blockenc.Prefix: `01 01 00 05
		00 05 03 6170706c65 726564 01 09
		05 00 00 00 07
		05 01 03 74 726564 01 08
		04 01 03 79 726564 01 05
		00 06 06 62616e616e61 79656c6c6f77 01 8e03e8`,
	blockenc.Diff: `01 02 00 05
		04 05 03 00 6170706c65 726564 09
		01 00 05 00 07
		00 06 03 05 74 726564 01 08
		06 05 04 79 726564 05
		04 06 06 00 62616e616e61 79656c6c6f77 8e03e8`,
	blockenc.FastDiff: `01 03 00 05
		85 00 03 6170706c65 726564 09
		10 00 07
		81 05 03 74 726564 08
		c1 04 79 05
		86 00 06 62616e616e61 79656c6c6f77 8e03e8`,
	blockenc.RowIndex: `01 04 00 05 02
		00 05 03 6170706c65 726564 01 09
		05 00 00 00 07
		00 06 03 6170706c6574 726564 01 08
		04 01 03 79 726564 01 05
		00 06 06 62616e616e61 79656c6c6f77 01 8e03e8
		00000000 12000000 29000000`,
	blockenc.Columnar: `01 05 00 05 02
		00 23 00 05 6170706c65 09  05 00 07  00 06 6170706c6574 08
		04 01 79 05  00 06 62616e616e61 8e03e8
		00000000 0b000000 18000000
		00
		01 1d
		00 26 01 05 0a 000000010000000000 12000000
		03 0300000000000000 04 00630c0000000000 4afc16c8
		0f 0f 726564 726564 726564 79656c6c6f77`,
}

// checkGoldenFile compares got with testdata/name, which -rewrite writes
// first.
func checkGoldenFile(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *rewrite {
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	file, err := os.ReadFile(path)
	require.NoError(t, err, "run with -rewrite to create it")
	require.Equal(t, file, got, "%s differs from the encoder at offset %d", path, firstDiff(got, file))
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	require.NoError(t, err)
	return b
}

// TestGolden pins the bytes of every encoding: the encoder's output must
// equal the hand-derived worked example plus its CRC32C, and the file in
// testdata/ (go test -run TestGolden -rewrite regenerates the files: a
// format change).
func TestGolden(t *testing.T) {
	for _, e := range blockenc.Encodings() {
		t.Run("encoding="+e.String(), func(t *testing.T) {
			got := encode(t, docOptions(e), docCells())
			want := unhex(t, docBytes[e])
			want = binary.LittleEndian.AppendUint32(want, crc32.Checksum(want, crc32.MakeTable(crc32.Castagnoli)))
			require.Equal(t, want, got, "encoder and the worked example differ at offset %d", firstDiff(got, want))
			s, err := blockenc.NewSeeker(got)
			require.NoError(t, err)
			checkAll(t, s, docCells())

			checkGoldenFile(t, e.String()+".block", got)
		})
	}
}

// TestGoldenColumnarPacked pins the packed values form (format version 2)
// with the worked example of internal/colblk's doc: four dates, whose five varying
// digits pack into 9 bits. The block is derived by hand from the format
// description but for the shapeshift column's bytes, whose format
// shapeshift's own golden tests pin; here they must decode to the packed
// integers worked out by hand.
func TestGoldenColumnarPacked(t *testing.T) {
	cells := []blockenc.Cell{
		{Key: []byte("a"), Value: []byte("1995-03-13"), Seq: 5, Kind: blockenc.KindPut},
		{Key: []byte("b"), Value: []byte("1995-03-17"), Seq: 6, Kind: blockenc.KindPut},
		{Key: []byte("c"), Value: []byte("1996-01-02"), Seq: 7, Kind: blockenc.KindPut},
		{Key: []byte("d"), Value: []byte("1995-12-30"), Seq: 8, Kind: blockenc.KindPut},
	}
	const column = `01 04 0a 00 00 00 01 00 00 00 00 00 12 00 00 00
		03 4b 00 00 00 00 00 00 00 08 00 04 b7 6d 00 00 00 00 46 a3 91 d8`
	want := unhex(t, `02 05 00 04 02
		00 10 00 01 61 05  00 01 62 06  00 01 63 07  00 01 64 08
		00000000 08000000
		00
		00
		03 0a 313939352d30332d3133
		05 03 35 01  05 30 01  06 31 02  08 30 02  09 30 03
		26`+column)
	want = binary.LittleEndian.AppendUint32(want, crc32.Checksum(want, crc32.MakeTable(crc32.Castagnoli)))
	// "1995-03-13": digit 3 '5' - '5' = 0 (1 bit), 5 '0' - '0' = 0 (1),
	// 6 '3' - '1' = 2 (2), 8 '1' - '0' = 1 (2), 9 '3' - '0' = 3 (3 bits):
	// 0 0 10 01 011 = 75; the others 0 0 10 01 111 = 79, 1 0 00 00 010 =
	// 258, 0 1 01 11 000 = 184.
	ints, err := shapeshift.Decode(nil, unhex(t, column))
	require.NoError(t, err, "column")
	require.Equal(t, []int64{75, 79, 258, 184}, ints, "column decodes to")
	got := encode(t, blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 2}, cells)
	require.Equal(t, want, got, "encoder and the worked example differ at offset %d", firstDiff(got, want))
	s, err := blockenc.NewSeeker(got)
	require.NoError(t, err)
	checkAll(t, s, cells)
	checkGoldenFile(t, "columnar-packed.block", got)
}

// TestGoldenColumnarLZ4Dict pins an LZ4Dict value area (format version 2)
// with 16-byte dictionary and sub-blocks: the header, key and value
// sections and the sub-block index derived by hand, the ends column
// decoding to the hand-derived ends, and pierrec/lz4 decoding every
// sub-block (the later ones against the first) to its slice of the area.
func TestGoldenColumnarLZ4Dict(t *testing.T) {
	defer blockenc.SetSubBlockSizes(16, 16)()
	cells := []blockenc.Cell{
		{Key: []byte("a"), Value: []byte("xyzxyzxyzxyzxyzx"), Seq: 5, Kind: blockenc.KindPut},
		{Key: []byte("b"), Value: []byte("xyzxyzxyzxyzxyzxyzxyz"), Seq: 6, Kind: blockenc.KindPut},
		{Key: []byte("c"), Value: []byte("qqqqqqqqqqqqqqqqqqqq"), Seq: 7, Kind: blockenc.KindPut},
		{Key: []byte("d"), Value: []byte("qqqqqqqqqqqqqqqqqqqqqqqqq"), Seq: 8, Kind: blockenc.KindPut},
	}
	var area []byte
	for _, c := range cells {
		area = append(area, c.Value...)
	}
	got := encode(t, blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 2, Compression: blockenc.LZ4Dict}, cells)
	head := unhex(t, `02 05 02 04 02
		00 10 00 01 61 05  00 01 62 06  00 01 63 07  00 01 64 08
		00000000 08000000
		00 00 00 26`) // version 2 for the LZ4Dict flag; inline values, a 38-byte ends column
	require.Equal(t, head, got[:len(head)], "header and sections")
	p := len(head)
	ends, err := shapeshift.Decode(nil, got[p:p+0x26])
	require.NoError(t, err, "ends column")
	require.Equal(t, []int64{16, 37, 57, 82}, ends, "ends column decodes to")
	p += 0x26
	// 82 bytes in 6 sub-blocks: the dictionary (16), four of 16, one of 2.
	require.Equal(t, byte(82), got[p], "area length")
	require.Equal(t, byte(6), got[p+1], "sub-blocks")
	p += 2
	raws := []int{16, 16, 16, 16, 16, 2}
	comps := make([]int, len(raws))
	for j, r := range raws {
		require.Equal(t, r, int(got[p]), "sub-block %d: raw length", j)
		require.NotZero(t, got[p+1], "sub-block %d: compressed length", j)
		require.LessOrEqual(t, int(got[p+1]), r, "sub-block %d: compressed length vs raw", j)
		comps[j] = int(got[p+1])
		p += 2
	}
	lo := 0
	for j, r := range raws {
		src, want := got[p:p+comps[j]], area[lo:lo+r]
		switch {
		case comps[j] == r:
			require.Equal(t, string(want), string(src), "stored sub-block %d", j)
		case j == 0:
			checkLZ4(t, src, want, nil)
		default:
			checkLZ4(t, src, want, area[:16])
		}
		p, lo = p+comps[j], lo+r
	}
	require.Equal(t, len(got)-4, p, "end of the sub-blocks")
	s, err := blockenc.NewSeeker(got)
	require.NoError(t, err)
	checkAll(t, s, cells)
	checkGoldenFile(t, "columnar-lz4dict.block", got)
}

// TestGoldenColumnarDeltas pins the zigzag delta forms (format version 2)
// on four time series (colSets' "series-deltas"): the block is walked here
// by hand from the package doc, a reference decoder independent of the
// Seeker: fixed keys rebuilt from their template and column, the seq
// column (mode 2) and the value column (width byte 0x88: 8 bytes, deltas)
// undone with this test's own zigzag sum and compared with the cells.
func TestGoldenColumnarDeltas(t *testing.T) {
	var cells []blockenc.Cell
	for _, set := range colSets() {
		if set.name == "series-deltas" {
			cells = set.cells
		}
	}
	got := encode(t, blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 16}, cells)
	body := got[:len(got)-4]
	require.Equal(t, crc32.Checksum(body, crc32.MakeTable(crc32.Castagnoli)), binary.LittleEndian.Uint32(got[len(body):]), "CRC-32C trailer")
	p := 0
	u8 := func() int { p++; return int(body[p-1]) }
	uv := func() int {
		v, n := binary.Uvarint(body[p:])
		require.Positive(t, n, "offset %d: bad uvarint", p)
		p += n
		return int(v)
	}
	column := func() []int64 {
		n := uv()
		v, err := shapeshift.Decode(nil, body[p:p+n])
		require.NoError(t, err, "offset %d: column", p)
		require.Len(t, v, len(cells), "offset %d: column values", p)
		p += n
		return v
	}
	unzig := func(z []int64) []uint64 {
		out, prev := make([]uint64, len(z)), uint64(0)
		for i, x := range z {
			d := uint64(x) >> 1
			if x&1 != 0 {
				d = ^d
			}
			prev += d
			out[i] = prev
		}
		return out
	}
	v, e, fl := u8(), u8(), u8()
	require.Equal(t, []int{2, 5, 0}, []int{v, e, fl}, "header: want version 2, Columnar, no flags")
	n, iv := uv(), uv()
	require.Equal(t, len(cells), n, "count")
	require.Equal(t, 16, iv, "interval")
	require.Equal(t, 1, u8(), "keys mode, want 1 (fixed)")
	L := uv()
	tmpl := body[p : p+L]
	p += L
	pos := make([]int, u8())
	for i := range pos {
		pos[i] = uv()
	}
	for i, x := range column() {
		k := bytes.Clone(tmpl)
		for j := len(pos) - 1; j >= 0; j-- {
			k[pos[j]], x = byte(x), x>>8
		}
		require.Equal(t, string(cells[i].Key), string(k), "key %d", i)
	}
	require.Equal(t, 2, u8(), "seqs mode, want 2 (deltas)")
	for i, s := range unzig(column()) {
		require.Equal(t, cells[i].Seq, s, "seq %d", i)
	}
	require.Equal(t, 0, u8(), "kinds mode, want 0 (all Put)")
	m, w := u8(), u8()
	require.Equal(t, []int{1, 0x88}, []int{m, w}, "values mode and width byte, want 1 and 0x88 (8 bytes, deltas)")
	for i, v := range unzig(column()) {
		require.Equal(t, binary.BigEndian.Uint64(cells[i].Value), v, "value %d", i)
	}
	require.Equal(t, len(body), p, "end of the values")

	s, err := blockenc.NewSeeker(got)
	require.NoError(t, err)
	checkAll(t, s, cells)
	checkGoldenFile(t, "columnar-deltas.block", got)
}

// goldenDictCells are the cells of the Columnar Dict goldens, and their
// Dict's bytes.
func goldenDictCells() ([]blockenc.Cell, []byte) {
	return []blockenc.Cell{
		{Key: []byte("a"), Value: []byte("quickly carefully"), Seq: 5, Kind: blockenc.KindPut},
		{Key: []byte("b"), Value: []byte("blithely slyly furiously"), Seq: 6, Kind: blockenc.KindPut},
		{Key: []byte("c"), Value: []byte("slyly quickly blithely"), Seq: 7, Kind: blockenc.KindPut},
		{Key: []byte("d"), Value: []byte("carefully furiously"), Seq: 8, Kind: blockenc.KindPut},
	}, []byte("furiously quickly carefully blithely slyly")
}

// TestGoldenColumnarDict pins a value area compressed against a Dict
// (format version 4, flags 0x22) with 32-byte sub-blocks: the header, key
// and value sections, the Dict's ID (CRC-32C of its bytes, computed here)
// and the sub-block index derived by hand, each entry's CRC-32C computed
// here over its sub-block's bytes, the trailer the CRC-32C of the bytes
// before the sub-blocks, the ends column decoding to the hand-derived
// ends, and pierrec/lz4 decoding every sub-block against the Dict's bytes
// to its slice of the area (and failing without them).
func TestGoldenColumnarDict(t *testing.T) {
	defer blockenc.SetExtSubBlockSize(32)()
	cells, dict := goldenDictCells()
	d, err := blockenc.NewDict(dict)
	require.NoError(t, err)
	castagnoli := crc32.MakeTable(crc32.Castagnoli)
	var area []byte
	for _, c := range cells {
		area = append(area, c.Value...)
	}
	got := encode(t, blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 2, Compression: blockenc.LZ4Dict, Dict: d}, cells)
	head := unhex(t, `04 05 22 04 02
		00 10 00 01 61 05  00 01 62 06  00 01 63 07  00 01 64 08
		00000000 08000000
		00 00 00 26`) // version 4 and flags 0x22 for the Dict; inline values, a 38-byte ends column
	require.Equal(t, head, got[:len(head)], "header and sections")
	p := len(head)
	ends, err := shapeshift.Decode(nil, got[p:p+0x26])
	require.NoError(t, err, "ends column")
	require.Equal(t, []int64{17, 41, 63, 82}, ends, "ends column decodes to")
	p += 0x26
	// 82 bytes in 3 sub-blocks of 32, 32 and 18 bytes; the Dict's ID
	// (CRC-32C) little-endian after the area length.
	require.Equal(t, byte(82), got[p], "area length")
	id := binary.LittleEndian.AppendUint32(nil, crc32.Checksum(dict, castagnoli))
	require.Equal(t, id, got[p+1:p+5], "dictionary ID")
	require.Equal(t, unhex(t, "82 0f cd 1a"), id, "the ID of the worked example")
	require.Equal(t, byte(3), got[p+5], "sub-blocks")
	p += 6
	raws := []int{32, 32, 18}
	comps := make([]int, len(raws))
	sums := make([][]byte, len(raws))
	for j, r := range raws {
		require.Equal(t, r, int(got[p]), "sub-block %d: raw length", j)
		require.NotZero(t, got[p+1], "sub-block %d: compressed length", j)
		require.Less(t, int(got[p+1]), r, "sub-block %d: compressed against the Dict", j)
		comps[j] = int(got[p+1])
		sums[j] = got[p+2 : p+6]
		p += 6
	}
	data := p
	require.Equal(t, binary.LittleEndian.AppendUint32(nil, crc32.Checksum(got[:data], castagnoli)), got[len(got)-4:],
		"trailer: CRC-32C of the bytes before the sub-blocks")
	lo := 0
	for j, r := range raws {
		src, want := got[p:p+comps[j]], area[lo:lo+r]
		require.Equal(t, binary.LittleEndian.AppendUint32(nil, crc32.Checksum(src, castagnoli)), sums[j], "sub-block %d: CRC-32C", j)
		checkLZ4(t, src, want, dict)
		_, err := lz4.UncompressBlock(src, make([]byte, r))
		require.Error(t, err, "sub-block %d decodes without the Dict", j)
		p, lo = p+comps[j], lo+r
	}
	require.Equal(t, len(got)-4, p, "end of the sub-blocks")
	s, err := blockenc.NewSeekerDict(got, d)
	require.NoError(t, err)
	checkAll(t, s, cells)
	checkGoldenFile(t, "columnar-dict-v4.block", got)
}

// TestGoldenColumnarDictV3: a version 3 block (the Dict's layout without
// sub-block CRCs, its trailer over every byte), pinned by
// testdata/columnar-dict.block, keeps reading: its cells, and every
// changed byte refused.
func TestGoldenColumnarDictV3(t *testing.T) {
	cells, dict := goldenDictCells()
	d, err := blockenc.NewDict(dict)
	require.NoError(t, err)
	block, err := os.ReadFile(filepath.Join("testdata", "columnar-dict.block"))
	require.NoError(t, err)
	require.Equal(t, byte(3), block[0], "version")
	s, err := blockenc.NewSeekerDict(block, d)
	require.NoError(t, err)
	checkAll(t, s, cells)
	require.NoError(t, blockenc.VerifyDict(block, d))
	defer withReadDict(d)()
	requireFlipsAndCutsCorrupt(t, block, "columnar dict v3", 0x41)
}

// TestGoldenColumnarFloat pins the float and text value forms (format
// version 5): 8-byte big-endian float64s, 4-byte little-endian float32s
// and decimal text in both styles, the cells of colSets. The float64 block is walked by
// hand from the format description up to its float column, which
// shapeshift's own golden tests pin and which must decode to the values.
func TestGoldenColumnarFloat(t *testing.T) {
	sets := map[string][]blockenc.Cell{}
	for _, set := range colSets() {
		sets[set.name] = set.cells
	}
	opts := blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 4}
	for _, name := range []string{"fixed-float64", "fixed-float32le", "fixed-text", "fixed-text-point"} {
		got := encode(t, opts, sets[name])
		s, err := blockenc.NewSeeker(got)
		require.NoError(t, err)
		checkAll(t, s, sets[name])
		checkGoldenFile(t, "columnar-"+strings.TrimPrefix(name, "fixed-")+".block", got)
	}
	cells := sets["fixed-float64"]
	col := floatColumn(t, encode(t, opts, cells), len(cells))
	vals, err := shapeshift.DecodeFloat64(nil, col)
	require.NoError(t, err, "float column")
	require.Len(t, vals, len(cells))
	for i, v := range vals {
		require.Equal(t, binary.BigEndian.Uint64(cells[i].Value), math.Float64bits(v), "value %d", i)
	}
}

// TestColumnarFloatHuffman: a smooth price series' float column takes a
// Huffman int chunk (shapeshift format version 4) inside a version 5
// block, and the block reads back.
func TestColumnarFloatHuffman(t *testing.T) {
	cells := floatSeries(t, []string{"stocks_usa_c"}, "f64be")
	block := encode(t, blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 4}, cells)
	s, err := blockenc.NewSeeker(block)
	require.NoError(t, err)
	checkAll(t, s, cells)
	col := floatColumn(t, block, len(cells))
	require.Equal(t, byte(4), col[0], "shapeshift float column version 4 (a Huffman chunk)")
}

// floatColumn walks a version 5 Columnar block of fixed keys with a seq
// column and 8-byte big-endian float values by hand from the format
// description, and returns its shapeshift float column.
func floatColumn(t *testing.T, block []byte, count int) []byte {
	t.Helper()
	body := block[:len(block)-4]
	require.Equal(t, []byte{5, 5, 0}, body[:3], "header: version 5, Columnar, no flags")
	p := 3
	uv := func() int {
		v, n := binary.Uvarint(body[p:])
		require.Positive(t, n, "offset %d: bad uvarint", p)
		p += n
		return int(v)
	}
	require.Equal(t, count, uv(), "count")
	require.Equal(t, 4, uv(), "interval")
	require.Equal(t, byte(1), body[p], "keys mode, want 1 (fixed)")
	p++
	p += uv() // template
	nvar := int(body[p])
	p++
	for range nvar {
		uv() // position
	}
	p += uv() // key column
	require.Equal(t, byte(1), body[p], "seqs mode, want 1 (column)")
	p++
	p += uv() // seq column
	require.Equal(t, []byte{0, 4, 8}, body[p:p+3], "kinds 0 (all Put), values 4 (float), width 8 big-endian")
	p += 3
	n := uv()
	require.Equal(t, len(body), p+n, "end of the values")
	return body[p : p+n]
}
