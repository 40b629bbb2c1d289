package blockenc_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

// appendFinishOptions returns every encoding with each compression (LZ4Dict
// with and without an external dictionary), and the row encodings with
// DedupeValues and IntValues too.
func appendFinishOptions(t *testing.T, d *blockenc.Dict) []blockenc.Options {
	var opts []blockenc.Options
	for _, enc := range blockenc.Encodings() {
		for _, c := range blockenc.Compressions() {
			o := blockenc.Options{Encoding: enc, Compression: c, CompressionLevel: 4}
			opts = append(opts, o)
			if c == blockenc.LZ4Dict {
				o.Dict = d
				opts = append(opts, o)
			}
		}
		opts = append(opts, blockenc.Options{Encoding: enc, DedupeValues: true, IntValues: true, Compression: blockenc.LZ4})
	}
	for _, o := range opts {
		require.NoError(t, blockenc.NewEncoder(o).Add(blockenc.Cell{Kind: blockenc.KindPut}), "options %+v", o)
	}
	return opts
}

// TestAppendFinish: AppendFinish appends Finish's bytes after dst's own,
// on a nil dst, on one with content and on one buffer passed back for
// block after block.
func TestAppendFinish(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	cells := randomCells(rng, 1200)
	var vals [][]byte
	for _, c := range cells {
		vals = append(vals, c.Value)
	}
	d := mustDict(t, blockenc.SampleDict(vals, 4<<10))
	const perBlock = 150
	for _, o := range appendFinishOptions(t, d) {
		t.Run(fmt.Sprintf("%v/%v/dict=%t/int=%t", o.Encoding, o.Compression, o.Dict != nil, o.IntValues), func(t *testing.T) {
			e := blockenc.NewEncoder(o)
			var buf []byte // passed back block after block
			for lo := 0; lo < len(cells); lo += perBlock {
				block := cells[lo:min(lo+perBlock, len(cells))]
				e.Reset()
				for _, c := range block {
					require.NoError(t, e.Add(c))
				}
				want, err := e.Finish()
				require.NoError(t, err)

				got, err := e.AppendFinish(nil)
				require.NoError(t, err)
				require.Equal(t, want, got, "AppendFinish(nil)")

				prefix := []byte("some bytes before")
				dst := append(make([]byte, 0, len(prefix)+3), prefix...)
				got, err = e.AppendFinish(dst)
				require.NoError(t, err)
				require.Equal(t, prefix, got[:len(prefix)], "dst's bytes kept")
				require.Equal(t, want, got[len(prefix):], "block after dst's bytes")

				buf, err = e.AppendFinish(buf[:0])
				require.NoError(t, err)
				require.Equal(t, want, buf, "reused buffer, block %d", lo/perBlock)
				s, err := blockenc.NewSeekerDict(buf, o.Dict)
				require.NoError(t, err)
				checkAll(t, s, block)
			}
		})
	}
}

// TestAppendFinishInvalid: with invalid options AppendFinish returns the
// error and dst as it was.
func TestAppendFinishInvalid(t *testing.T) {
	e := blockenc.NewEncoder(blockenc.Options{Encoding: 99})
	dst := []byte("kept")
	got, err := e.AppendFinish(dst)
	require.ErrorIs(t, err, blockenc.ErrInvalidOptions)
	require.Equal(t, []byte("kept"), got)
}

// ExampleEncoder_AppendFinish encodes a stream of blocks into one buffer
// that is passed back for each block: the blocks allocate nothing once the
// buffer is large enough.
func ExampleEncoder_AppendFinish() {
	e := blockenc.NewEncoder(blockenc.DefaultOptions())
	var buf []byte
	for block := range 3 {
		e.Reset()
		for i := range 4 {
			key := fmt.Appendf(nil, "key-%d-%d", block, i)
			if err := e.Add(blockenc.Cell{Key: key, Value: bytes.Repeat([]byte{'v'}, i), Seq: 1, Kind: blockenc.KindPut}); err != nil {
				fmt.Println(err)
				return
			}
		}
		var err error
		buf, err = e.AppendFinish(buf[:0])
		if err != nil {
			fmt.Println(err)
			return
		}
		// buf holds the block until the next AppendFinish: store or copy
		// it before then.
		s, err := blockenc.NewSeeker(buf)
		if err != nil {
			fmt.Println(err)
			return
		}
		s.Last()
		fmt.Printf("block %d: %d bytes, last key %s\n", block, len(buf), s.Key())
	}
	// Output:
	// block 0: 49 bytes, last key key-0-3
	// block 1: 49 bytes, last key key-1-3
	// block 2: 49 bytes, last key key-2-3
}
