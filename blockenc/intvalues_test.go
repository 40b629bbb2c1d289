package blockenc

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc/internal/frame"
	"github.com/kvenc/kvenc/blockenc/shapeshift"
)

// seriesCells returns time series cells: series of ticks, 8-byte values,
// seqs in ingest order (one tick of every series after the other), the
// cells a seq column is for.
func seriesCells(nSeries, nTicks int) []Cell {
	var cells []Cell
	for s := range nSeries {
		for t := range nTicks {
			key := binary.BigEndian.AppendUint64(binary.BigEndian.AppendUint64(nil, uint64(s)*7919), uint64(t)*10000)
			cells = append(cells, Cell{Key: key, Value: binary.BigEndian.AppendUint64(nil, uint64(1000+s*t)),
				Seq: 1<<40 + uint64(t*nSeries+s), Kind: KindPut})
		}
	}
	return cells
}

func encodeCells(t *testing.T, opts Options, cells []Cell) []byte {
	t.Helper()
	return encodeWith(t, NewEncoder(opts), cells)
}

// encodeWith resets e, adds cells and returns the block (the package's
// own tests; blockenc_test has encode and encodeAny).
func encodeWith(t *testing.T, e *Encoder, cells []Cell) []byte {
	t.Helper()
	e.Reset()
	for i, c := range cells {
		require.NoError(t, e.Add(c), "Add cell %d", i)
	}
	b, err := e.Finish()
	require.NoError(t, err)
	return b
}

// reseal recomputes a block's CRC after a change.
func reseal(b []byte) []byte {
	return frame.AppendTrailer(b[:len(b)-frame.TrailerLen])
}

// TestSeqColumn: every row encoding and compression writes the seq column
// for time series cells, and reads every cell, seq included, by Next and
// by SeekGE; Verify accepts the blocks.
func TestSeqColumn(t *testing.T) {
	cells := seriesCells(5, 100)
	for _, enc := range []Encoding{None, Prefix, Diff, FastDiff, RowIndex} {
		for _, c := range []Compression{NoCompression, LZ4, LZ4Dict} {
			opts := Options{Encoding: enc, Compression: c, IntValues: true}
			b := encodeCells(t, opts, cells)
			assert.Equal(t, byte(frame.FlagIntValues|frame.FlagSeqColumn), b[2]&(frame.FlagIntValues|frame.FlagSeqColumn), "%v %v: flags %#x, want value and seq columns", enc, c, b[2])
			require.NoError(t, Verify(b), "%v %v", enc, c)
			var s Seeker
			require.NoError(t, s.Init(b))
			for i := 0; s.Next(); i++ {
				got := s.Cell()
				require.Zero(t, Compare(*got, cells[i]), "%v %v: Next cell %d: %+v, want %+v", enc, c, i, got, cells[i])
				require.Equal(t, string(cells[i].Value), string(got.Value), "%v %v: Next cell %d value", enc, c, i)
			}
			require.NoError(t, s.Err())
			for _, i := range []int{0, 1, 99, 100, 250, 499} {
				require.True(t, s.SeekGE(cells[i].Key), "%v %v: SeekGE cell %d (err %v)", enc, c, i, s.Err())
				require.Equal(t, cells[i].Seq, s.Seq(), "%v %v: SeekGE cell %d: seq", enc, c, i)
			}
		}
	}
}

// TestSeqColumnCorrupt: a bad seq column or flag is ErrCorrupt at Init,
// a seq left in the cells at the move that reaches it (and at Verify).
func TestSeqColumnCorrupt(t *testing.T) {
	cells := seriesCells(3, 40)
	good := encodeCells(t, Options{Encoding: FastDiff, IntValues: true}, cells)
	require.Equal(t, byte(frame.FlagIntValues|frame.FlagSeqColumn), good[2], "flags")
	// The sections: header is 4 bytes (count 120 is one byte); values
	// section, then the seq section.
	vlen, q := frame.ReadLen(good, 5)
	seqAt := q + vlen
	slen, sq := frame.ReadLen(good, seqAt+1)
	withSeqs := func(seqs []int64, mode byte) []byte {
		col := shapeshift.Encode(nil, seqs, shapeshift.Options{})
		b := append([]byte{}, good[:seqAt]...)
		b = append(b, mode)
		b = binary.AppendUvarint(b, uint64(len(col)))
		b = append(b, col...)
		b = append(b, good[sq+slen:]...)
		return reseal(b)
	}
	seqs := make([]int64, len(cells))
	for i, c := range cells {
		seqs[i] = int64(c.Seq)
	}
	_, err := NewSeeker(withSeqs(seqs, 0))
	require.NoError(t, err, "rebuilt block")
	negative := append([]int64{}, seqs...)
	negative[7] = -1
	flip := func(i int, x byte) []byte {
		b := bytes.Clone(good)
		b[i] ^= x
		return reseal(b)
	}
	for _, tc := range []struct {
		name, want string
		block      []byte
	}{
		{"no value column", "seq column without a value column", func() []byte {
			b := encodeCells(t, Options{Encoding: FastDiff}, cells)
			b[2] |= frame.FlagSeqColumn
			return reseal(b)
		}()},
		{"bad mode", "seq column mode", flip(seqAt, 0x01)},
		{"length past the end", "bad seq column length", func() []byte {
			b := binary.AppendUvarint(bytes.Clone(good[:seqAt+1]), 1<<20)
			return reseal(append(b, good[sq:]...))
		}()},
		{"column bytes", "seq column", flip(sq+3, 0x40)},
		{"too few seqs", "seq column of 119 values", withSeqs(seqs[1:], 0)},
		{"negative seq", "out of range", withSeqs(negative, 0)},
		{"unknown flag", "unsupported flags", flip(2, 0x40)},
	} {
		_, err := NewSeeker(tc.block)
		if assert.ErrorIs(t, err, ErrCorrupt, tc.name) {
			assert.ErrorContains(t, err, tc.want, tc.name)
		}
	}
	// A seq in the cells (cell 1's): Init does not look, a scan and Verify
	// refuse it, on the general path (FastDiff) and RowIndex's fast path
	// alike.
	for _, enc := range []Encoding{FastDiff, RowIndex} {
		b := encodeCells(t, Options{Encoding: enc, IntValues: true}, cells)
		require.Equal(t, byte(frame.FlagIntValues|frame.FlagSeqColumn), b[2], "%v flags", enc)
		s, err := NewSeeker(b)
		require.NoError(t, err)
		s.row.Fast = false // the general path notes where each seq is
		require.True(t, s.Next() && s.Next())
		at := s.row.HdrLen + s.row.SeqOff
		require.Zero(t, b[at], "%v: cell 1's seq byte", enc)
		b[at] = 5
		reseal(b)
		require.NoError(t, s.Init(b))
		require.Equal(t, enc == RowIndex, s.row.Fast, "%v: fast path", enc)
		n := 0
		for ok := s.First(); ok; ok = s.Next() {
			n++
		}
		require.Equal(t, 1, n, "%v: cells before the bad one", enc)
		require.ErrorIs(t, s.Err(), ErrCorrupt)
		require.ErrorContains(t, s.Err(), "a seq in the cells")
		err = Verify(b)
		require.ErrorIs(t, err, ErrCorrupt)
		require.ErrorContains(t, err, "a seq in the cells")
	}
}

// TestSeqColumnFastPath: the RowIndex fast path and the general path agree
// on seq column blocks, as encoded and with every byte changed (no panic,
// the same error).
func TestSeqColumnFastPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	cells := seriesCells(4, 12)
	for i := range cells {
		if rng.IntN(5) == 0 {
			cells[i].Kind, cells[i].Value = KindDelete, nil
		}
	}
	// Deletes have empty values: no value column. Keep them puts of 8
	// bytes, with a few seqs made large.
	for i := range cells {
		cells[i].Kind, cells[i].Value = KindPut, binary.BigEndian.AppendUint64(nil, uint64(i))
		if rng.IntN(7) == 0 {
			cells[i].Seq = MaxSeq - uint64(i)
		}
	}
	for _, opts := range []Options{
		{Encoding: RowIndex, IntValues: true},
		{Encoding: RowIndex, IntValues: true, RestartInterval: 5},
	} {
		block := encodeCells(t, opts, cells)
		require.NotZero(t, block[2]&frame.FlagSeqColumn, "%+v: flags %#x: no seq column", opts, block[2])
		var s Seeker
		check := func(what string, b []byte) {
			t.Helper()
			got, gerr := collect(&s, b, false)
			want, werr := collect(&s, b, true)
			require.Equal(t, werr == nil, gerr == nil, "%+v %s: fast path error %v, general path %v", opts, what, gerr, werr)
			if gerr != nil {
				require.ErrorIs(t, gerr, ErrCorrupt, "%+v %s: fast path", opts, what)
				require.EqualError(t, gerr, werr.Error(), "%+v %s: fast path error vs general path", opts, what)
			}
			require.Len(t, got, len(want), "%+v %s: fast path cells vs general path", opts, what)
			for i := range got {
				// Cheap check per cell; require only on failure.
				if Compare(got[i], want[i]) != 0 || !bytes.Equal(got[i].Value, want[i].Value) {
					require.Zero(t, Compare(got[i], want[i]), "%+v %s: cell %d: fast %+v, general %+v", opts, what, i, got[i], want[i])
					require.Equal(t, string(want[i].Value), string(got[i].Value), "%+v %s: cell %d value", opts, what, i)
				}
			}
		}
		check("as encoded", block)
		got, _ := collect(&s, block, false)
		for i := range cells {
			require.Zero(t, Compare(got[i], cells[i]), "%+v: cell %d: %+v, want %+v", opts, i, got[i], cells[i])

		}
		bad := bytes.Clone(block)
		for i := range len(bad) - frame.TrailerLen {
			for _, x := range []byte{0x01, 0x80, 0xff} {
				copy(bad, block)
				bad[i] ^= x
				check("with a changed byte", reseal(bad))
			}
		}
	}
}
