package lz4dict

import (
	"bytes"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// FuzzCompressDict: any input and dictionary compress to a block that
// pierrec's decoder turns back into the input, within CompressBound, keeping
// the LZ4 end-of-block rules, and bytes already in dst stay untouched. (It
// lives here, not in fuzz/, because the package is internal to blockenc.)
func FuzzCompressDict(f *testing.F) {
	f.Add([]byte("abcabcabcabcabcabcabcabc0123456789"), []byte("abc"))
	f.Add([]byte("user/00000001/metric/0001user/00000001/metric/0002"), []byte("user/00000000/metric/0000"))
	f.Add(bytes.Repeat([]byte{0}, 100), []byte(nil))
	f.Add([]byte("short"), []byte("shortshort"))
	var c Compressor
	f.Fuzz(func(t *testing.T, src, dict []byte) {
		guard := []byte{0xde, 0xad}
		enc := c.CompressBlock(append([]byte(nil), guard...), src, dict)
		if !bytes.Equal(enc[:2], guard) {
			t.Fatal("dst prefix overwritten")
		}
		enc = enc[2:]
		if len(enc) > CompressBound(len(src)) {
			t.Fatalf("%d bytes > bound %d", len(enc), CompressBound(len(src)))
		}
		checkSpec(t, enc, len(src))
		got := make([]byte, len(src))
		n, err := lz4.UncompressBlockWithDict(enc, got, dict)
		if err != nil || n != len(src) || !bytes.Equal(got, src) {
			t.Fatalf("decode: n=%d err=%v", n, err)
		}
	})
}
