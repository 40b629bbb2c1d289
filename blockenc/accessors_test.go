package blockenc_test

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// TestFieldAccessors checks that Key, Value, Seq and Kind agree with Cell on
// every cell of every encoding (with and without an integer value column),
// are zero off a cell, and allocate nothing.
func TestFieldAccessors(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var cells []blockenc.Cell
	for i := 0; i < 300; i++ {
		// A counter as 8 big-endian bytes: one width for all, so an
		// integer value column wins when IntValues is on.
		v := binary.BigEndian.AppendUint64(nil, uint64(1000+7*i+r.IntN(5)))
		kind := blockenc.KindPut
		if r.IntN(10) == 0 {
			kind = blockenc.KindDelete
		}
		cells = append(cells, blockenc.Cell{Key: fmt.Appendf(nil, "row/%06d", i), Value: v, Seq: uint64(1e9 + r.IntN(1e6)), Kind: kind})
	}
	for _, enc := range blockenc.Encodings() {
		for _, intValues := range []bool{false, true} {
			opts := blockenc.DefaultOptions()
			opts.Encoding, opts.IntValues = enc, intValues
			block := encodeAny(t, opts, cells)
			s, err := blockenc.NewSeeker(block)
			require.NoError(t, err)
			require.Nil(t, s.Key(), "%v: Key before the first move", enc)
			require.Nil(t, s.Value(), "%v: Value before the first move", enc)
			require.Zero(t, s.Seq(), "%v: Seq before the first move", enc)
			require.Zero(t, s.Kind(), "%v: Kind before the first move", enc)
			n := 0
			for ok := s.First(); ok; ok = s.Next() {
				c := s.Cell()
				// string(): nil and empty stay equal, as with bytes.Equal.
				require.Equal(t, string(c.Key), string(s.Key()), "%v intValues=%v cell %d: Key vs Cell", enc, intValues, n)
				require.Equal(t, string(c.Value), string(s.Value()), "%v intValues=%v cell %d: Value vs Cell", enc, intValues, n)
				require.Equal(t, c.Seq, s.Seq(), "%v intValues=%v cell %d: Seq vs Cell", enc, intValues, n)
				require.Equal(t, c.Kind, s.Kind(), "%v intValues=%v cell %d: Kind vs Cell", enc, intValues, n)
				require.Zero(t, blockenc.Compare(*c, cells[n]), "%v cell %d: %q, want %q", enc, n, c.Key, cells[n].Key)
				require.Equal(t, string(cells[n].Value), string(c.Value), "%v cell %d: value", enc, n)
				n++
			}
			require.NoError(t, s.Err(), "%v", enc)
			require.Equal(t, len(cells), n, "%v: cells", enc)
			require.Nil(t, s.Key(), "%v: Key past the end", enc)
			require.Nil(t, s.Value(), "%v: Value past the end", enc)
			allocs := testing.AllocsPerRun(20, func() {
				for ok := s.First(); ok; ok = s.Next() {
					_, _, _, _ = s.Key(), s.Value(), s.Seq(), s.Kind()
				}
			})
			require.Zero(t, allocs, "%v: allocs per scan", enc)

		}
	}
}
