package lz4dict

import (
	"bytes"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// FuzzCompressDict: any input and dictionary compress, at the level the mode
// byte picks, to a block that pierrec's decoder turns back into the input,
// within CompressBound, keeping the LZ4 end-of-block rules; bytes already in
// dst stay untouched, and compressing again after an unrelated call gives
// the same bytes. (It lives here, not in fuzz/, because the package is
// internal to blockenc.)
func FuzzCompressDict(f *testing.F) {
	f.Add([]byte("abcabcabcabcabcabcabcabc0123456789"), []byte("abc"), byte(0))
	f.Add([]byte("user/00000001/metric/0001user/00000001/metric/0002"), []byte("user/00000000/metric/0000"), byte(0))
	f.Add(bytes.Repeat([]byte{0}, 100), []byte(nil), byte(0))
	f.Add([]byte("short"), []byte("shortshort"), byte(0))
	f.Add([]byte("abcabcabcabcabcabcabcabc0123456789"), []byte("abc"), byte(LevelHC))
	f.Add([]byte("user/00000001/metric/0001user/00000001/metric/0002"), []byte("user/00000000/metric/0000"), byte(1))
	f.Add(bytes.Repeat([]byte("ab"), 100), []byte(nil), byte(5))
	f.Add([]byte("furiously final deposits sleep furiously final packages"), []byte("final deposits"), byte(0x80|LevelHC))
	var c, other Compressor
	f.Fuzz(func(t *testing.T, src, dict []byte, mode byte) {
		// The mode byte's low 4 bits are the level (0..15: fast, HC,
		// clamped); its top bit makes it negative (fast again).
		c.Level = int(mode & 15)
		if mode&0x80 != 0 {
			c.Level = -c.Level
		}
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
		// Reuse: an unrelated call in between changes nothing.
		c.CompressBlock(nil, dict, src)
		if again := c.CompressBlock(nil, src, dict); !bytes.Equal(again, enc) {
			t.Fatal("output differs after reuse")
		}
		other.Level = c.Level
		if fresh := other.CompressBlock(nil, src, dict); !bytes.Equal(fresh, enc) {
			t.Fatal("output differs between compressors")
		}
	})
}
