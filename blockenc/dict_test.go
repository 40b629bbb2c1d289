package blockenc_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// readDict is the Dict the shared test helpers (conform, exercise,
// checkConsistent, checkHostile, requireFlipsAndCutsCorrupt,
// checkColumnarAllocs) read blocks with; nil for Init. withReadDict sets it.
var readDict *blockenc.Dict

func withReadDict(d *blockenc.Dict) (restore func()) {
	old := readDict
	readDict = d
	return func() { readDict = old }
}

func newSeeker(block []byte) (*blockenc.Seeker, error) {
	return blockenc.NewSeekerDict(block, readDict)
}

func initSeeker(s *blockenc.Seeker, block []byte) error { return s.InitDict(block, readDict) }

func verify(block []byte) error { return blockenc.VerifyDict(block, readDict) }

func mustDict(t testing.TB, b []byte) *blockenc.Dict {
	t.Helper()
	d, err := blockenc.NewDict(b)
	require.NoError(t, err, "NewDict of %d bytes", len(b))
	return d
}

// TestNewDict: the size limits, the ID (CRC-32C of the bytes) and that
// the Dict keeps its own copy.
func TestNewDict(t *testing.T) {
	_, err := blockenc.NewDict(nil)
	require.ErrorIs(t, err, blockenc.ErrInvalidOptions)
	assert.Contains(t, err.Error(), "0 bytes")
	_, err = blockenc.NewDict(make([]byte, blockenc.MaxDictSize+1))
	require.ErrorIs(t, err, blockenc.ErrTooLarge)
	assert.Contains(t, err.Error(), "65536 bytes (max 65535)")

	b := []byte("a preset dictionary")
	d := mustDict(t, b)
	require.Equal(t, crc32.Checksum(b, crc32.MakeTable(crc32.Castagnoli)), d.ID())
	b[0] = 'A'
	require.Equal(t, "a preset dictionary", string(d.Bytes()), "Bytes is a copy")
	big := mustDict(t, make([]byte, blockenc.MaxDictSize))
	require.Equal(t, blockenc.MaxDictSize, len(big.Bytes()))
}

// TestDictOptions: a Dict needs LZ4Dict; options with one stay
// comparable.
func TestDictOptions(t *testing.T) {
	d := mustDict(t, []byte("dictionary"))
	for _, tc := range []struct {
		opts blockenc.Options
		msg  string
	}{
		{blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4, Dict: d}, "needs compression lz4dict, not lz4"},
		{blockenc.Options{Encoding: blockenc.Columnar, Dict: d}, "needs compression lz4dict, not none"},
	} {
		e := blockenc.NewEncoder(tc.opts)
		err := e.Add(blockenc.Cell{Key: []byte("k"), Kind: blockenc.KindPut})
		require.ErrorIs(t, err, blockenc.ErrInvalidOptions)
		assert.Contains(t, err.Error(), tc.msg)
		_, err = e.Finish()
		require.ErrorIs(t, err, blockenc.ErrInvalidOptions)
	}
	o := blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict, Dict: d}
	assert.True(t, o == blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict, Dict: d})
	assert.False(t, o == blockenc.Options{})
}

// TestSampleDict: at most size bytes, pieces from across the sample, all
// of a sample that fits.
func TestSampleDict(t *testing.T) {
	var values [][]byte
	for i := range 1000 {
		values = append(values, fmt.Appendf(nil, "value %04d|", i))
	}
	assert.Nil(t, blockenc.SampleDict(nil, 100))
	assert.Nil(t, blockenc.SampleDict(values, 0))
	assert.Equal(t, "value 0000|value 0001|", string(blockenc.SampleDict(values[:2], 100)), "a sample that fits")
	d := blockenc.SampleDict(values, 2048)
	require.Equal(t, 2048, len(d))
	// 4 pieces of 512 bytes at offsets 0, 2750, 5500 and 8250 of the
	// 11000 bytes: values 0, 250, 500 and 750 start them.
	for k, v := range []string{"value 0000|", "value 0250|", "value 0500|", "value 0750|"} {
		assert.Equal(t, v, string(d[512*k:512*k+len(v)]), "piece %d", k)
	}
	assert.Equal(t, 11000, len(blockenc.SampleDict(values, 1<<20)), "no more than the sample")
	big := make([][]byte, 100)
	for i := range big {
		big[i] = bytes.Repeat([]byte{byte(i)}, 1000)
	}
	assert.Equal(t, blockenc.MaxDictSize, len(blockenc.SampleDict(big, 1<<20)), "at most MaxDictSize")
	assert.Equal(t, 1000, len(blockenc.SampleDict(big, 1000)))
}

// dictTestCells are n cells of text values (some empty, some Deletes),
// the same keys with few distinct values, and text values under prefix
// keys of several lengths with seqs inline.
func dictTestCells(rng *rand.Rand, n int) (text, dict, prefix []blockenc.Cell) {
	for i := range n {
		k := binary.BigEndian.AppendUint32([]byte("row/"), uint32(i*7))
		var v []byte
		for range 1 + rng.IntN(6) {
			v = append(v, commentWords[rng.IntN(len(commentWords))]...)
			v = append(v, ' ')
		}
		if i%17 == 0 {
			v = nil
		}
		text = append(text, blockenc.Cell{Key: k, Value: v, Seq: 1<<20 + uint64(i), Kind: blockenc.Kind(min(1, i%9))})
		d := fmt.Appendf(nil, "distinct value number %d of forty, padded out", rng.IntN(40))
		dict = append(dict, blockenc.Cell{Key: k, Value: d, Seq: 1<<20 + uint64(i), Kind: blockenc.KindPut})
		prefix = append(prefix, blockenc.Cell{Key: fmt.Appendf(nil, "r/%x", i*i), Value: v, Seq: uint64(i % 5), Kind: blockenc.KindPut})
	}
	return text, dict, sortCells(prefix)
}

// TestColumnarDict: value areas compressed against a Dict (version 4,
// flags 0x22) in small sub-blocks read back, seek, allocate nothing per
// move; a cold SeekGE decompresses only the sub-block of its value; a
// missing or other Dict is ErrWrongDict; flips, truncations and hostile
// changes are errors or consistent blocks, never a panic.
func TestColumnarDict(t *testing.T) {
	defer blockenc.SetExtSubBlockSize(96)()
	rng := rand.New(rand.NewPCG(96, 97))
	text, dict, prefix := dictTestCells(rng, 200)
	sample, _, _ := dictTestCells(rand.New(rand.NewPCG(1, 1)), 300)
	var values [][]byte
	for _, c := range sample {
		values = append(values, c.Value)
	}
	d := mustDict(t, blockenc.SampleDict(values, 1024))
	other := mustDict(t, blockenc.SampleDict(values, 1000))
	require.NotEqual(t, d.ID(), other.ID())
	defer withReadDict(d)()
	opts := blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 8, Compression: blockenc.LZ4Dict, Dict: d}
	for _, set := range []struct {
		name   string
		cells  []blockenc.Cell
		values byte
	}{{"inline", text, 0}, {"dictionary", dict, 2}, {"prefix-keys", prefix, 0}} {
		t.Run(set.name, func(t *testing.T) {
			block := encodeAny(t, opts, set.cells)
			_, _, v, err := blockenc.ColumnarForms(block)
			require.ErrorIs(t, err, blockenc.ErrWrongDict, "ColumnarForms reads without the Dict")
			require.Equal(t, byte(4), block[0], "version")
			require.Equal(t, byte(blockenc.FlagLZ4Dict|blockenc.FlagExtDict), blockenc.Flags(block), "flags")
			var s blockenc.Seeker
			conform(t, &s, rng, block, set.cells)
			checkColumnarAllocs(t, block, set.cells)

			// A cold SeekGE decompresses the sub-blocks of its value only.
			require.NoError(t, s.InitDict(block, d))
			c := set.cells[len(set.cells)*3/4]
			require.True(t, s.SeekGE(c.Key), "SeekGE %q", c.Key)
			require.Equal(t, string(c.Value), string(s.Cell().Value), "SeekGE %q: value", c.Key)
			loaded, total := blockenc.ColumnarSubsLoaded(&s)
			if set.values == 0 {
				assert.LessOrEqual(t, loaded, 2, "SeekGE loaded %d of %d sub-blocks, want at most 2", loaded, total)
				assert.GreaterOrEqual(t, total, 20, "sub-blocks")
			}
			_ = v

			// Decompress loads every sub-block, after which a scan reads
			// the cells and decompresses nothing more.
			require.NoError(t, s.InitDict(block, d))
			s.Decompress()
			loaded, total = blockenc.ColumnarSubsLoaded(&s)
			require.Equal(t, total, loaded, "sub-blocks after Decompress")
			checkAll(t, &s, set.cells)

			// Without the Dict, or with another: ErrWrongDict, which is
			// ErrCorrupt.
			err = s.Init(block)
			require.ErrorIs(t, err, blockenc.ErrWrongDict)
			require.ErrorIs(t, err, blockenc.ErrCorrupt)
			assert.Contains(t, err.Error(), fmt.Sprintf("needs dictionary %#08x, none given", d.ID()))
			assert.False(t, s.First(), "First after a failed Init")
			err = s.InitDict(block, other)
			require.ErrorIs(t, err, blockenc.ErrWrongDict)
			assert.Contains(t, err.Error(), fmt.Sprintf("needs dictionary %#08x, given %#08x", d.ID(), other.ID()))
			require.ErrorIs(t, blockenc.Verify(block), blockenc.ErrWrongDict)
			_, err = blockenc.NewSeeker(block)
			require.ErrorIs(t, err, blockenc.ErrWrongDict)

			requireFlipsAndCutsCorrupt(t, block, "columnar dict", 0x41)
			checkHostile(t, block, func(i int) int { return i + 1 + i/64 })
			// Version 4 is the Dict's; versions 2 and 3 do not have its
			// checked sub-blocks, nor version 4 the in-block dictionary.
			for _, mod := range []struct {
				at  int
				val byte
			}{{0, 3}, {0, 2}, {0, 1}, {2, blockenc.FlagLZ4Dict}, {2, blockenc.FlagLZ4 | blockenc.FlagExtDict}, {2, blockenc.FlagExtDict}} {
				bad := bytes.Clone(block)
				bad[mod.at] = mod.val
				fixCRC(bad)
				_, err = blockenc.NewSeekerDict(bad, d)
				assert.ErrorIs(t, err, blockenc.ErrCorrupt, "byte %d = %#x", mod.at, mod.val)
			}
		})
	}
}

// TestColumnarDictSubBlockChecks: a version 4 block's sub-blocks are
// checked when a move decompresses them. With any byte of the sub-block
// data changed, Init succeeds, a cold SeekGE to a cell whose value lies in
// undamaged sub-blocks returns its value, one that reaches the damaged
// sub-block fails with ErrCorrupt, and no read returns a wrong value; the
// same values read after Decompress.
func TestColumnarDictSubBlockChecks(t *testing.T) {
	defer blockenc.SetExtSubBlockSize(96)()
	text, _, _ := dictTestCells(rand.New(rand.NewPCG(96, 97)), 200)
	sample, _, _ := dictTestCells(rand.New(rand.NewPCG(1, 1)), 300)
	var values [][]byte
	for _, c := range sample {
		values = append(values, c.Value)
	}
	d := mustDict(t, blockenc.SampleDict(values, 1024))
	block := encodeAny(t, blockenc.Options{Encoding: blockenc.Columnar, RestartInterval: 8, Compression: blockenc.LZ4Dict, Dict: d}, text)
	require.Equal(t, byte(4), block[0], "version")
	fixed := bytes.Clone(block)
	require.True(t, blockenc.FixChecksums(fixed, d))
	require.Equal(t, block, fixed, "the test helper's checksums of an unchanged block")
	damaged := 0
	bad := bytes.Clone(block)
	var s blockenc.Seeker
	for i := range len(block) - 4 {
		bad[i] ^= 0x41
		if s.InitDict(bad, d) == nil {
			damaged++
			var good, failed [2]int
			for pre := range 2 { // 0: a cold SeekGE per cell; 1: Decompress after Init, then the SeekGEs
				for k, c := range text {
					if pre == 0 || k == 0 || s.Err() != nil {
						require.NoError(t, s.InitDict(bad, d), "byte %d", i)
						if pre == 1 {
							s.Decompress()
						}
					}
					if s.SeekGE(c.Key) {
						require.Equal(t, string(c.Value), string(s.Cell().Value), "byte %d changed: SeekGE %q", i, c.Key)
						good[pre]++
						continue
					}
					require.ErrorIs(t, s.Err(), blockenc.ErrCorrupt, "byte %d changed: SeekGE %q", i, c.Key)
					failed[pre]++
				}
			}
			require.NotZero(t, good[0], "byte %d changed: no value read", i)
			require.NotZero(t, failed[0], "byte %d changed: no read failed", i)
			require.Equal(t, good[0], good[1], "byte %d changed: values read without and with Decompress", i)
		}
		bad[i] ^= 0x41
	}
	require.Greater(t, damaged, len(block)/2, "bytes of sub-block data (of %d)", len(block))
}

// TestDictReadsOtherBlocks: InitDict reads blocks written without a Dict,
// of every encoding and compression; a Columnar block whose values do not
// compress against the Dict is stored (version 1, no flags).
func TestDictReadsOtherBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	d := mustDict(t, []byte("furiously quickly carefully blithely slyly"))
	cells := randomCells(rng, 150)
	for _, e := range blockenc.Encodings() {
		for _, c := range blockenc.Compressions() {
			block := encodeAny(t, blockenc.Options{Encoding: e, Compression: c}, cells)
			s, err := blockenc.NewSeekerDict(block, d)
			require.NoError(t, err, "%v %v", e, c)
			checkAll(t, s, cells)
			require.NoError(t, blockenc.VerifyDict(block, d))
		}
	}
	var random []blockenc.Cell
	for i := range 50 {
		random = append(random, blockenc.Cell{Key: binary.BigEndian.AppendUint32(nil, uint32(i)), Value: randBytes(rng, 40), Kind: blockenc.KindPut})
	}
	block := encodeAny(t, blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict, Dict: d}, random)
	require.Equal(t, byte(1), block[0], "version")
	require.Zero(t, blockenc.Flags(block), "flags")
	s, err := blockenc.NewSeeker(block)
	require.NoError(t, err)
	checkAll(t, s, random)
}

// TestDictSmaller: on lineitem-like rows in 16 KiB Columnar blocks, a
// 64 KiB Dict sampled from other rows makes blocks smaller than the
// in-block dictionary, at level 0 and 4.
func TestDictSmaller(t *testing.T) {
	cells := lineitemBench()
	rows := lineitemRows(rand.New(rand.NewPCG(3, 3)), 3000)
	var values [][]byte
	for _, r := range rows {
		values = append(values, r.value)
	}
	d := mustDict(t, blockenc.SampleDict(values, blockenc.MaxDictSize))
	for _, level := range []int{0, 4} {
		opts := blockenc.Options{Encoding: blockenc.Columnar, Compression: blockenc.LZ4Dict, CompressionLevel: level}
		in, _ := cutBlocks(t, opts, cells, 16<<10)
		opts.Dict = d
		ext, _ := cutBlocks(t, opts, cells, 16<<10)
		t.Logf("level %d: in-block %d bytes, Dict %d bytes", level, totalLen(in), totalLen(ext))
		assert.Less(t, totalLen(ext), totalLen(in)*95/100, "level %d: Dict blocks vs in-block dictionary", level)
		for _, b := range ext {
			require.NoError(t, blockenc.VerifyDict(b, d))
		}
	}
}

// TestRowDict: row blocks of every encoding, with and without dedupe and a
// value column, compressed against a Dict in small sub-blocks (version 3,
// flags with 0x22) read back, seek and allocate nothing per move; a cold
// SeekGE decompresses one or two sub-blocks; a missing or other Dict is
// ErrWrongDict; flips, truncations (and for RowIndex and FastDiff hostile
// bytes) are errors or consistent blocks.
func TestRowDict(t *testing.T) {
	defer blockenc.SetExtSubBlockSize(200)()
	rng := rand.New(rand.NewPCG(98, 99))
	text, _, _ := dictTestCells(rng, 300)
	ints := intCells(rng, 300, 8)
	sample, _, _ := dictTestCells(rand.New(rand.NewPCG(1, 1)), 300)
	var values [][]byte
	for _, c := range sample {
		values = append(values, c.Value)
	}
	for _, c := range intCells(rand.New(rand.NewPCG(2, 2)), 100, 8) {
		values = append(values, c.Value)
	}
	d := mustDict(t, blockenc.SampleDict(values, 2048))
	other := mustDict(t, []byte("another dictionary"))
	defer withReadDict(d)()
	for _, e := range blockenc.Encodings()[:5] {
		for _, feat := range []string{"plain", "dedupe", "ints"} {
			opts := blockenc.Options{Encoding: e, RestartInterval: 4, Compression: blockenc.LZ4Dict, Dict: d,
				DedupeValues: feat == "dedupe", IntValues: feat == "ints"}
			cells := text
			if feat == "ints" {
				cells = ints
			}
			t.Run(fmt.Sprintf("encoding=%v/%s", e, feat), func(t *testing.T) {
				block := encodeAny(t, opts, cells)
				require.Equal(t, byte(3), block[0], "version")
				flags := blockenc.Flags(block)
				require.Equal(t, byte(blockenc.FlagLZ4Dict|blockenc.FlagExtDict), flags&(blockenc.FlagLZ4Dict|blockenc.FlagExtDict), "flags %#x", flags)
				var s blockenc.Seeker
				conform(t, &s, rng, block, cells)
				checkColumnarAllocs(t, block, cells) // the same checks fit row blocks

				require.NoError(t, s.InitDict(block, d))
				c := cells[len(cells)*3/4]
				require.True(t, s.SeekGE(c.Key), "SeekGE %q", c.Key)
				require.Equal(t, string(c.Value), string(s.Cell().Value), "SeekGE %q: value", c.Key)
				loaded, total := blockenc.RowSubsLoaded(&s)
				// The sub-block before the one whose first key is the
				// target's, and that one when the target is its first.
				assert.LessOrEqual(t, loaded, 2, "SeekGE loaded %d of %d sub-blocks", loaded, total)
				assert.GreaterOrEqual(t, total, 4, "sub-blocks")

				err := s.Init(block)
				require.ErrorIs(t, err, blockenc.ErrWrongDict)
				require.ErrorIs(t, err, blockenc.ErrCorrupt)
				require.ErrorIs(t, s.InitDict(block, other), blockenc.ErrWrongDict)
				require.ErrorIs(t, blockenc.Verify(block), blockenc.ErrWrongDict)

				requireFlipsAndCutsCorrupt(t, block, "row dict", 0x41)
				if e == blockenc.RowIndex || e == blockenc.FastDiff {
					checkHostile(t, block, func(i int) int { return i + 1 + i/16 })
				}
				for _, mod := range []struct {
					at  int
					val byte
				}{{0, 1}, {0, 2}, {0, 4}, {2, flags &^ blockenc.FlagLZ4Dict}, {2, flags &^ blockenc.FlagExtDict}} {
					bad := bytes.Clone(block)
					bad[mod.at] = mod.val
					fixCRC(bad)
					_, err = blockenc.NewSeekerDict(bad, d)
					assert.ErrorIs(t, err, blockenc.ErrCorrupt, "byte %d = %#x", mod.at, mod.val)
				}
			})
		}
	}
}
