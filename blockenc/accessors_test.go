package blockenc_test

import (
	"bytes"
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
			if s.Key() != nil || s.Value() != nil || s.Seq() != 0 || s.Kind() != 0 {
				t.Fatalf("%v: accessors not zero before the first move", enc)
			}
			n := 0
			for ok := s.First(); ok; ok = s.Next() {
				c := s.Cell()
				if !bytes.Equal(s.Key(), c.Key) || !bytes.Equal(s.Value(), c.Value) || s.Seq() != c.Seq || s.Kind() != c.Kind {
					t.Fatalf("%v intValues=%v cell %d: accessors %q %x %d %v, Cell %q %x %d %v",
						enc, intValues, n, s.Key(), s.Value(), s.Seq(), s.Kind(), c.Key, c.Value, c.Seq, c.Kind)
				}
				if blockenc.Compare(*c, cells[n]) != 0 || !bytes.Equal(c.Value, cells[n].Value) {
					t.Fatalf("%v cell %d: %q, want %q", enc, n, c.Key, cells[n].Key)
				}
				n++
			}
			if n != len(cells) || s.Err() != nil {
				t.Fatalf("%v: %d cells, err %v", enc, n, s.Err())
			}
			if s.Key() != nil || s.Value() != nil {
				t.Fatalf("%v: accessors not nil past the end", enc)
			}
			allocs := testing.AllocsPerRun(20, func() {
				for ok := s.First(); ok; ok = s.Next() {
					_, _, _, _ = s.Key(), s.Value(), s.Seq(), s.Kind()
				}
			})
			if allocs != 0 {
				t.Fatalf("%v: %v allocs per scan", enc, allocs)
			}
		}
	}
}
