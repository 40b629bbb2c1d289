package blockenc

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/internal/prefixkeys"
	"github.com/kvenc/kvenc/blockenc/internal/rowblk"
)

// fastCells returns n sorted cells that reach every branch of the RowIndex
// fast path and of its hand-over to the general path: suffixes of 0 to 40
// bytes (over 32 goes to the general path), values of 0 to 200 bytes (a
// length of 128 or more is a two-byte varint), deletes, and seqs of every
// vlong width (one byte, 1..8 payload bytes).
func fastCells(rng *rand.Rand, n int) []Cell {
	cells := make([]Cell, 0, n)
	key := []byte{}
	for len(cells) < n {
		// Keep a random prefix of the previous key, then add 0..40 bytes.
		k := append([]byte{}, key[:rng.IntN(len(key)+1)]...)
		for range rng.IntN(41) {
			k = append(k, byte(rng.IntN(256)))
		}
		if len(cells) > 0 && bytes.Compare(k, key) <= 0 {
			k = append(append([]byte{}, key...), byte(rng.IntN(256)))
		}
		key = k
		seq := uint64(rng.IntN(200))
		if w := rng.IntN(9); w > 0 {
			seq = rng.Uint64() >> (64 - 8*w) >> 1
		}
		v := make([]byte, []int{0, 1, 8, 8, 8, 127, 128, 200}[rng.IntN(8)])
		for i := range v {
			v[i] = byte(rng.IntN(256))
		}
		kind := KindPut
		if rng.IntN(8) == 0 {
			kind, v = KindDelete, nil
		}
		cells = append(cells, Cell{Key: key, Value: v, Seq: seq, Kind: kind})
	}
	return cells
}

// pooled gives most cells with a value one of a few values of 3 to 200
// bytes, so that dedupe writes back-references of one- and two-byte
// distances.
func pooled(rng *rand.Rand, cells []Cell) {
	pool := make([][]byte, 5)
	for i := range pool {
		pool[i] = make([]byte, []int{3, 8, 16, 60, 200}[i])
		for j := range pool[i] {
			pool[i][j] = byte(rng.IntN(256))
		}
	}
	for i := range cells {
		if cells[i].Kind == KindPut && rng.IntN(4) != 0 {
			cells[i].Value = pool[rng.IntN(len(pool))]
		}
	}
}

// collect inits s on block and iterates it with Next, with the fast path
// as Init chose or, if general, with the general path alone; it returns
// copies of the cells seen and the error that ended the iteration.
func collect(s *Seeker, block []byte, general bool) ([]Cell, error) {
	var out []Cell
	if err := s.Init(block); err != nil {
		return nil, err
	}
	if general {
		s.row.Fast = false
	}
	for s.Next() {
		c := s.Cell()
		out = append(out, Cell{Key: bytes.Clone(c.Key), Value: bytes.Clone(c.Value), Seq: c.Seq, Kind: c.Kind})
	}
	return out, s.Err()
}

// TestNextFastAgreesWithGeneral decodes RowIndex blocks with the fast path
// and with the general path alone (the reference) and wants the same cells
// and the same error, on valid blocks and on every single-byte change of
// one (checksum fixed, so the cells are read).
func TestNextFastAgreesWithGeneral(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, opts := range []Options{
		{Encoding: RowIndex},
		{Encoding: RowIndex, RestartInterval: 1},
		{Encoding: RowIndex, RestartInterval: 5},
		{Encoding: RowIndex, Compression: LZ4},
		{Encoding: RowIndex, DedupeValues: true},
		{Encoding: RowIndex, DedupeValues: true, RestartInterval: 3},
		{Encoding: RowIndex, DedupeValues: true, Compression: LZ4},
	} {
		for _, n := range []int{1, 2, 17, 200} {
			e := NewEncoder(opts)
			cells := fastCells(rng, n)
			if opts.DedupeValues {
				pooled(rng, cells)
			}
			block := encodeWith(t, e, cells)
			var s Seeker
			require.NoError(t, s.Init(block))
			require.True(t, s.row.Fast, "%+v: block not read by the fast path", opts)
			check := func(what string, block []byte) {
				t.Helper()
				got, gerr := collect(&s, block, false)
				want, werr := collect(&s, block, true)
				require.Equal(t, werr == nil, gerr == nil, "%+v %d cells %s: fast path error %v, general path %v", opts, n, what, gerr, werr)
				if gerr != nil {
					require.ErrorIs(t, gerr, ErrCorrupt, "%+v %d cells %s: fast path", opts, n, what)
					require.EqualError(t, gerr, werr.Error(), "%+v %d cells %s: fast path error vs general path", opts, n, what)
				}
				require.Len(t, got, len(want), "%+v %d cells %s: fast path cells vs general path", opts, n, what)
				for i := range got {
					// Cheap check per cell (many blocks of many cells); require only on failure.
					if Compare(got[i], want[i]) != 0 || !bytes.Equal(got[i].Value, want[i].Value) || got[i].Kind != want[i].Kind {
						require.Zero(t, Compare(got[i], want[i]), "%+v %d cells %s: cell %d: fast %+v, general %+v", opts, n, what, i, got[i], want[i])
						require.Equal(t, string(want[i].Value), string(got[i].Value), "%+v %d cells %s: cell %d value", opts, n, what, i)
						require.Equal(t, want[i].Kind, got[i].Kind, "%+v %d cells %s: cell %d kind", opts, n, what, i)
					}
				}

			}
			check("as encoded", block)
			if len(block) > 2000 {
				continue // the single-byte changes of the small blocks suffice
			}
			bad := bytes.Clone(block)
			for i := range len(bad) - frame.TrailerLen {
				for _, x := range []byte{0x01, 0x03, 0x80, 0xff} {
					copy(bad, block)
					bad[i] ^= x
					binary.LittleEndian.PutUint32(bad[len(bad)-frame.TrailerLen:], crc32.Checksum(bad[:len(bad)-frame.TrailerLen], crc32.MakeTable(crc32.Castagnoli)))
					check("with a changed byte", bad)
				}
			}
		}
	}
}

// TestNextFastShortRef: a back-reference of an empty value with a
// two-byte (non-minimal) distance ends its cell a byte after the value
// length field says; a cell that puts that byte at the end of the block
// is an error on both paths, not a read past the block.
func TestNextFastShortRef(t *testing.T) {
	// RowIndex, dedupe, 2 cells, interval 16; cell 0: shared 0, a 26-byte
	// suffix, value field 1 (a reference to 0 bytes), distance 85 00 (5),
	// kind 1 and no room for a seq. The cells (32 bytes), restart and CRC
	// end 11 bytes after the distance field.
	b := []byte{frame.Version1, byte(RowIndex), frame.FlagValueDedup, 2, 16, 0, 26, 1}
	b = append(b, bytes.Repeat([]byte{'k'}, 26)...)
	b = append(b, 0x85, 0x00, 1)
	b = append(b, 0, 0, 0, 0) // restart 0
	b = frame.AppendTrailer(b)
	b = b[:len(b):len(b)]                                                                    // no capacity to read past the block into
	s := Seeker{row: rowblk.Reader{Reader: prefixkeys.Reader{KeyBuf: make([]byte, 0, 128)}}} // as grown by earlier blocks: the fast path needs room
	require.NoError(t, s.Init(b))
	require.True(t, s.row.Fast, "not the case under test: fast path")
	require.Len(t, s.row.Tail, 3+26+11, "not the case under test: tail bytes")
	_, ferr := collect(&s, b, false)
	_, gerr := collect(&s, b, true)
	require.ErrorIs(t, ferr, ErrCorrupt, "fast path")
	require.Error(t, gerr, "general path")
	require.EqualError(t, ferr, gerr.Error(), "fast path error vs general path: want the same ErrCorrupt")

}
