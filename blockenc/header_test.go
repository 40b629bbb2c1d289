package blockenc_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kvenc/kvenc/blockenc"
)

func TestReadHeader(t *testing.T) {
	cells := []blockenc.Cell{{Key: []byte("a"), Value: []byte("x"), Kind: blockenc.KindPut}}
	for _, enc := range blockenc.Encodings() {
		for _, c := range blockenc.Compressions() {
			opts := blockenc.Options{Encoding: enc, Compression: c}
			block := encodeAny(t, opts, cells)
			h, err := blockenc.ReadHeader(block)
			require.NoError(t, err)
			require.Equal(t, enc, h.Encoding)
			require.Equal(t, 1, h.Cells)
			// One short cell does not compress: the block is stored as is.
			require.Equal(t, blockenc.NoCompression, h.Compression)
			require.Equal(t, enc == blockenc.Columnar, h.Buffered(), "%v", opts)
		}
	}
	var many []blockenc.Cell
	for i := range 100 {
		many = append(many, blockenc.Cell{Key: []byte{'k', byte(i)}, Value: []byte("the same long value, again"), Kind: blockenc.KindPut})
	}
	h, err := blockenc.ReadHeader(encodeAny(t, blockenc.Options{Encoding: blockenc.RowIndex, Compression: blockenc.LZ4}, many))
	require.NoError(t, err)
	require.Equal(t, blockenc.Header{Encoding: blockenc.RowIndex, Compression: blockenc.LZ4, Cells: 100}, h)
	require.True(t, h.Buffered())
	_, err = blockenc.ReadHeader([]byte{1, 4})
	require.ErrorIs(t, err, blockenc.ErrCorrupt)
}
