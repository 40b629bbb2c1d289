package blockenc_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// colSets are cells that make a Columnar encoder pick each of its forms;
// want is the key, seq and value mode expected (part of the format: keys
// 0 prefix, 1 fixed, 2 packed; seqs 0 inline, 1 column, 2 delta column;
// values 0 inline, 1 integer (plain or deltas), 2 dictionary, 3 packed).
func colSets() []struct {
	name  string
	cells []blockenc.Cell
	want  [3]byte
} {
	rng := rand.New(rand.NewPCG(90, 91))
	fixedKey := func(i int) []byte { return binary.BigEndian.AppendUint32([]byte("col/"), uint32(i*3+i%2)) }
	var dict, ints, versions, inline, random, dates []blockenc.Cell
	day0 := time.Date(1992, 1, 2, 0, 0, 0, 0, time.UTC)
	order, line := uint32(7), uint16(1)
	for i := range 24 {
		dict = append(dict, blockenc.Cell{Key: fixedKey(i), Value: []byte(shipModes[rng.IntN(3)]), Seq: 1<<40 + uint64(i), Kind: blockenc.Kind(min(1, i%7))})
		ints = append(ints, blockenc.Cell{Key: fixedKey(i), Value: binary.BigEndian.AppendUint32(nil, uint32(rng.IntN(1000))), Seq: 500 + uint64(i), Kind: blockenc.KindPut})
		versions = append(versions, blockenc.Cell{Key: fixedKey(i / 6), Value: []byte(shipModes[i%2]), Seq: 1000 - uint64(i%6), Kind: blockenc.KindPut})
		k := fmt.Appendf(nil, "user/%d/%s", i, bytes.Repeat([]byte("x"), i%5))
		inline = append(inline, blockenc.Cell{Key: k, Value: randBytes(rng, rng.IntN(30)), Seq: 1<<30 + uint64(i), Kind: blockenc.KindPut})
		random = append(random, blockenc.Cell{Key: k, Value: bytes.Repeat([]byte{'a' + byte(i%3)}, i), Seq: rng.Uint64N(120), Kind: blockenc.KindPut})
		// Lineitem-like keys (order | line, both ranges narrow) and dates.
		if line++; line > 7 || rng.IntN(3) == 0 {
			order, line = order+1+uint32(rng.IntN(3))*24, 1
		}
		k = binary.BigEndian.AppendUint16(binary.BigEndian.AppendUint32([]byte("ship/"), order), line)
		date := day0.AddDate(0, 0, rng.IntN(2526)).Format("2006-01-02")
		dates = append(dates, blockenc.Cell{Key: k, Value: []byte(date), Seq: 1<<40 + uint64(i), Kind: blockenc.Kind(min(1, i%5))})
	}
	// Four time series of 100 ticks: seqs in ingest order (tick-major)
	// and counters of very different magnitude, both stepping evenly
	// within a series and jumping down between series (which widens
	// every delta of shapeshift's own Delta forms, based at the smallest):
	// seq and value deltas.
	var series []blockenc.Cell
	for sr := range 4 {
		for tick := range 100 {
			k := binary.BigEndian.AppendUint32(binary.BigEndian.AppendUint16([]byte("ts/"), uint16(sr)), uint32(1_700_000_000+60*tick))
			v := binary.BigEndian.AppendUint64(nil, uint64(4-sr)*1_000_000_007+uint64(tick)*uint64(3+sr)+uint64(rng.IntN(3)))
			series = append(series, blockenc.Cell{Key: k, Value: v, Seq: 1<<30 + uint64(tick*4+sr), Kind: blockenc.KindPut})
		}
	}
	// Float gauges as 8-byte big-endian float64s, 4-byte little-endian
	// float32s and decimal text.
	var f64, f32, text, pyText []blockenc.Cell
	for i := range 24 {
		x := float64(2000+i*25+rng.IntN(10)) / 100
		if i%4 == 0 {
			x = float64(20 + i) // integral: "44" as Go prints it, "44.0" as Python does
		}
		py := strconv.AppendFloat(nil, x, 'f', -1, 64)
		if !bytes.Contains(py, []byte(".")) {
			py = append(py, ".0"...)
		}
		pyText = append(pyText, blockenc.Cell{Key: fixedKey(i), Value: py, Seq: 500 + uint64(i), Kind: blockenc.KindPut})
		f64 = append(f64, blockenc.Cell{Key: fixedKey(i), Value: binary.BigEndian.AppendUint64(nil, math.Float64bits(x)), Seq: 500 + uint64(i), Kind: blockenc.KindPut})
		f32 = append(f32, blockenc.Cell{Key: fixedKey(i), Value: binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(x))), Seq: 500 + uint64(i), Kind: blockenc.KindPut})
		text = append(text, blockenc.Cell{Key: fixedKey(i), Value: strconv.AppendFloat(nil, x, 'f', -1, 64), Seq: 500 + uint64(i), Kind: blockenc.Kind(min(1, i%5))})
	}
	return []struct {
		name  string
		cells []blockenc.Cell
		want  [3]byte
	}{
		{"series-deltas", series, [3]byte{1, 2, 1}},
		{"fixed-float64", f64, [3]byte{1, 1, 4}},
		{"fixed-float32le", f32, [3]byte{1, 1, 4}},
		{"fixed-text", text, [3]byte{1, 1, 5}},
		{"fixed-text-point", pyText, [3]byte{1, 1, 5}},
		{"fixed-dict", dict, [3]byte{1, 1, 2}},
		{"fixed-ints", ints, [3]byte{1, 1, 1}},
		{"versions", versions, [3]byte{1, 1, 2}},
		{"prefix-seqcol-inline", sortCells(inline), [3]byte{0, 1, 0}},
		{"prefix-seqinline-inline", sortCells(random), [3]byte{0, 0, 0}},
		{"packed-packed", dates, [3]byte{2, 1, 3}},
	}
}

// TestColumnarForms: each form is chosen where it pays, reads back, seeks,
// allocates nothing per move, and every flip, truncation and hostile change
// of its block is an error or a consistent block, never a panic.
func TestColumnarForms(t *testing.T) {
	rng := rand.New(rand.NewPCG(92, 93))
	var s blockenc.Seeker
	for _, set := range colSets() {
		for _, comp := range []blockenc.Compression{blockenc.NoCompression, blockenc.LZ4} {
			opts := blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 4, Compression: comp}
			t.Run(fmt.Sprintf("cells=%s/compression=%v", set.name, comp), func(t *testing.T) {
				block := encodeAny(t, opts, set.cells)
				k, sq, v, err := blockenc.ColumnarForms(block)
				// With LZ4 on the value area another value form may win.
				require.NoError(t, err, "ColumnarForms")
				if comp == blockenc.NoCompression {
					require.Equal(t, set.want, [3]byte{k, sq, v}, "forms keys, seqs, values")
				}
				conform(t, &s, rng, block, set.cells)
				checkColumnarAllocs(t, block, set.cells)
				requireFlipsAndCutsCorrupt(t, block, "columnar", 0x01, 0x80, 0xff)
				if comp == blockenc.NoCompression {
					checkHostile(t, block, func(i int) int { return i + 1 })
				}
			})
		}
	}
}

// checkHostile sets bytes of block (from 0, then next(i) after byte i) to
// 0, 1, 0x80 and 0xff with the CRC fixed: each block is an error or reads
// consistently, never a panic.
func checkHostile(t *testing.T, block []byte, next func(int) int) {
	t.Helper()
	bad := bytes.Clone(block)
	for i := 0; i < len(block)-4; i = next(i) {
		for _, x := range []byte{0, 1, 0x80, 0xff} {
			bad[i] = x
			fixCRC(bad)
			if exercise(t, bad) == nil && verify(bad) == nil {
				checkConsistent(t, bad)
			}
			copy(bad, block)
		}
	}
}

// checkColumnarAllocs: SeekGE, Next and Cell allocate nothing, and
// neither does Init of a block of the same shape once the Seeker's buffers
// have grown.
func checkColumnarAllocs(t *testing.T, block []byte, cells []blockenc.Cell) {
	t.Helper()
	s, err := newSeeker(block)
	require.NoError(t, err)
	i, sink := 0, 0
	a := testing.AllocsPerRun(100, func() {
		s.SeekGE(cells[i%len(cells)].Key)
		i += 7
		for range 3 {
			s.Next()
			sink += len(s.Value())
		}
	})
	assert.Zero(t, a, "allocs per SeekGE+Next+Cell")
	a = testing.AllocsPerRun(100, func() {
		s.SeekLT(cells[i%len(cells)].Key)
		i += 7
		for range 3 {
			s.Prev()
			sink += len(s.Value())
		}
		s.Next()
	})
	assert.Zero(t, a, "allocs per SeekLT+Prev+Next+Cell")
	a = testing.AllocsPerRun(20, func() {
		if initSeeker(s, block) != nil { // plain check: inside the measured function
			t.Fatal("Init failed")
		}
		for ok := s.First(); ok; ok = s.Next() {
			sink += len(s.Cell().Key)
		}
	})
	assert.Zero(t, a, "allocs per Init and scan")
}

// TestColumnarEmptyFirstValue: an empty value then values of one width is
// no integer column (found by FuzzBlockRoundTrip).
func TestColumnarEmptyFirstValue(t *testing.T) {
	cells := []blockenc.Cell{
		{Key: []byte("a"), Seq: 3, Kind: blockenc.KindPut},
		{Key: []byte("b"), Value: []byte("wxyz"), Seq: 2, Kind: blockenc.KindPut},
		{Key: []byte("c"), Value: []byte("abcd"), Seq: 1, Kind: blockenc.KindDelete},
	}
	var s blockenc.Seeker
	conform(t, &s, rand.New(rand.NewPCG(1, 1)), encode(t, blockenc.Options{Encoding: blockenc.Columnar}, cells), cells)
}

// TestColumnarVersion: a block is version 2 only when it uses a form
// version 1 lacks (packed keys or values), version 5 only when its values
// are float or text values; a block with a form its version lacks is
// corrupt, and so is a row block claiming version 2 or 5.
func TestColumnarVersion(t *testing.T) {
	opts := blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 4}
	for _, set := range colSets() {
		block := encodeAny(t, opts, set.cells)
		v2 := set.want[0] == 2 || set.want[1] == 2 || set.want[2] == 3
		v5 := set.want[2] == 4 || set.want[2] == 5
		want := byte(1)
		switch {
		case v5:
			want = 5
		case v2:
			want = 2
		}
		assert.Equal(t, want, block[0], "%s: version", set.name)
		// Older versions refuse the block's forms; version 5 refuses
		// blocks without float or text values.
		var olds []byte
		switch {
		case v5:
			olds = []byte{1, 2, 4}
		case v2:
			olds = []byte{1, 5}
		default:
			olds = []byte{5}
		}
		for _, v := range olds {
			old := bytes.Clone(block)
			old[0] = v
			fixCRC(old)
			_, err := blockenc.NewSeeker(old)
			assert.ErrorIs(t, err, blockenc.ErrCorrupt, "%s as version %d", set.name, v)
		}
	}
	row := encodeAny(t, blockenc.Options{Encoding: blockenc.RowIndex}, colSets()[0].cells)
	for _, v := range []byte{2, 5} {
		row[0] = v
		fixCRC(row)
		_, err := blockenc.NewSeeker(row)
		assert.ErrorIs(t, err, blockenc.ErrCorrupt, "RowIndex block as version %d", v)
	}
}

// TestColumnarLZ4Dict: an LZ4Dict value area (version 2, flag bit 1) with
// many small sub-blocks reads back, seeks, allocates nothing per move, a
// SeekGE decompresses only the sub-blocks it needs, and flips, truncations
// and hostile changes are errors or consistent blocks, never a panic.
func TestColumnarLZ4Dict(t *testing.T) {
	defer blockenc.SetSubBlockSizes(64, 96)()
	rng := rand.New(rand.NewPCG(94, 95))
	text, dict, prefix := dictTestCells(rng, 200)
	opts := blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 8, Compression: blockenc.LZ4Dict}
	for _, set := range []struct {
		name   string
		cells  []blockenc.Cell
		values byte
	}{{"inline", text, 0}, {"dictionary", dict, 2}, {"prefix-keys", prefix, 0}} {
		t.Run(set.name, func(t *testing.T) {
			block := encodeAny(t, opts, set.cells)
			k, _, v, err := blockenc.ColumnarForms(block)
			require.Equal(t, set.name == "prefix-keys", k == 0, "keys form %d", k)
			require.NoError(t, err, "ColumnarForms")
			require.Equal(t, set.values, v, "values form")
			require.Equal(t, byte(2), block[0], "version")
			require.Equal(t, byte(blockenc.FlagLZ4Dict), blockenc.Flags(block), "flags")
			var s blockenc.Seeker
			conform(t, &s, rng, block, set.cells)
			checkColumnarAllocs(t, block, set.cells)
			require.NoError(t, blockenc.Verify(block))
			// A cold SeekGE of a late cell loads the dictionary and the
			// sub-blocks of that value, not the area.
			require.NoError(t, s.Init(block))
			c := set.cells[len(set.cells)*3/4]
			require.True(t, s.SeekGE(c.Key), "SeekGE %q", c.Key)
			require.Equal(t, string(c.Value), string(s.Cell().Value), "SeekGE %q: value", c.Key)
			loaded, total := blockenc.ColumnarSubsLoaded(&s)
			if set.values == 0 {
				assert.LessOrEqual(t, loaded, 3, "SeekGE loaded %d of %d sub-blocks, want the dictionary and at most 2", loaded, total)
				assert.GreaterOrEqual(t, total, 20, "SeekGE loaded %d of %d sub-blocks, want the dictionary and at most 2", loaded, total)
			}
			requireFlipsAndCutsCorrupt(t, block, "columnar lz4dict", 0x41)
			// Every byte of the sections and index, then sparser through
			// the compressed data.
			checkHostile(t, block, func(i int) int { return i + 1 + i/64 })
			// Version 1 has no LZ4Dict value area.
			bad := bytes.Clone(block)
			bad[0] = 1
			fixCRC(bad)
			_, err = blockenc.NewSeeker(bad)
			assert.ErrorIs(t, err, blockenc.ErrCorrupt, "as version 1")
		})
	}
}

// TestCompressionLevel: every level reads back the same cells in every
// compressed encoding, higher levels are no larger on text, and a level
// out of range is ErrInvalidOptions.
func TestCompressionLevel(t *testing.T) {
	rng := rand.New(rand.NewPCG(96, 97))
	var cells []blockenc.Cell
	for i := range 400 {
		var v []byte
		for range 2 + rng.IntN(5) {
			v = append(v, commentWords[rng.IntN(len(commentWords))]...)
			v = append(v, ' ')
		}
		cells = append(cells, blockenc.Cell{Key: fmt.Appendf(nil, "c/%06d", i*3), Value: v, Seq: uint64(i), Kind: blockenc.KindPut})
	}
	var s blockenc.Seeker
	for _, enc := range []blockenc.Encoding{blockenc.FastDiff, blockenc.RowIndex, blockenc.Columnar} {
		for _, comp := range []blockenc.Compression{blockenc.LZ4, blockenc.LZ4Dict} {
			sizes := map[int]int{}
			for _, level := range []int{0, 4, 9, 10} {
				opts := blockenc.Options{Encoding: enc, Compression: comp, CompressionLevel: level}
				block := encodeAny(t, opts, cells)
				conform(t, &s, rng, block, cells)
				sizes[level] = len(block)
			}
			assert.Less(t, sizes[9], sizes[0], "%v+%v: block sizes by level %v: level 9 not smaller than 0", enc, comp, sizes)
			assert.LessOrEqual(t, sizes[10], sizes[0], "%v+%v: block sizes by level %v: level 10 larger than 0", enc, comp, sizes)
		}
	}
	for _, level := range []int{-1, blockenc.MaxCompressionLevel + 1} {
		e := blockenc.NewEncoder(blockenc.Options{Encoding: blockenc.RowIndex, Compression: blockenc.LZ4, CompressionLevel: level})
		assert.ErrorIs(t, e.Add(cells[0]), blockenc.ErrInvalidOptions, "level %d: Add", level)
	}
}

// TestColumnarDense: the densest Columnar blocks (consecutive fixed keys
// with one seq, or the versions of one key; empty values), 24-29 cells a
// byte with 1024-value chunks, read back: Init's bound on the cell count
// must not refuse them.
func TestColumnarDense(t *testing.T) {
	for _, versions := range []bool{false, true} {
		e := blockenc.NewEncoder(blockenc.Options{Encoding: blockenc.Columnar})
		var cells []blockenc.Cell
		for n := 0; e.Size() < 256<<10; n++ {
			c := blockenc.Cell{Key: binary.BigEndian.AppendUint32([]byte("k"), uint32(n)), Seq: 1, Kind: blockenc.KindPut}
			if versions {
				c.Key, c.Seq = []byte("k"), uint64(1<<40-n)
			}
			require.NoError(t, e.Add(c))
			cells = append(cells, c)
		}
		block, err := e.Finish()
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(cells), 20*len(block), "versions %v: %d cells in %d bytes: not a dense block", versions, len(cells), len(block))
		s, err := blockenc.NewSeeker(block)
		require.NoError(t, err, "versions %v: %d cells in %d bytes", versions, len(cells), len(block))
		checkAll(t, s, cells)
	}
}

// TestColumnarLZ4DictSeekBack: on an LZ4Dict value area of many small
// sub-blocks, every SeekGE (back, forward, repeated) followed by Next to
// the end reads the right values: the run of decompressed cells that
// Next relies on moves with every seek.
func TestColumnarLZ4DictSeekBack(t *testing.T) {
	defer blockenc.SetSubBlockSizes(32, 40)()
	rng := rand.New(rand.NewPCG(98, 99))
	var cells []blockenc.Cell
	for i := range 300 {
		v := fmt.Appendf(nil, "value %d %s", i, bytes.Repeat([]byte{'a' + byte(i%26)}, rng.IntN(20)))
		cells = append(cells, blockenc.Cell{Key: binary.BigEndian.AppendUint32(nil, uint32(i*5)), Value: v, Seq: 7, Kind: blockenc.KindPut})
	}
	block := encodeAny(t, blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict}, cells)
	require.Equal(t, byte(blockenc.FlagLZ4Dict), blockenc.Flags(block), "not an LZ4Dict area")
	s, err := blockenc.NewSeeker(block)
	require.NoError(t, err)
	for round := range 40 {
		from := rng.IntN(len(cells))
		if round%4 == 0 {
			from = len(cells) - 1 - round // late, then back early
		}
		require.True(t, s.SeekGE(cells[from].Key), "round %d: SeekGE cell %d failed: %v", round, from, s.Err())
		for i := from; ; i++ {
			c := s.Cell()
			require.Equal(t, string(cells[i].Key), string(c.Key), "round %d: cell %d after SeekGE %d: key", round, i, from)
			require.Equal(t, string(cells[i].Value), string(c.Value), "round %d: cell %d after SeekGE %d: value", round, i, from)

			if i-from > 60 || !s.Next() {
				break
			}
		}
	}
}
