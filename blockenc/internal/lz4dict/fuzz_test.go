package lz4dict

import (
	"bytes"
	"testing"

	"github.com/pierrec/lz4/v4"
	"github.com/stretchr/testify/require"
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
		require.Equal(t, guard, enc[:2], "dst prefix overwritten")
		enc = enc[2:]
		require.LessOrEqual(t, len(enc), CompressBound(len(src)), "bytes > bound")
		checkSpec(t, enc, len(src))
		got := make([]byte, len(src))
		n, err := lz4.UncompressBlockWithDict(enc, got, dict)
		require.NoError(t, err, "decode")
		require.Equal(t, len(src), n, "decode: n")
		require.Equal(t, string(src), string(got), "decode") // string: an empty src may be nil
		// Reuse: an unrelated call in between changes nothing.
		c.CompressBlock(nil, dict, src)
		require.Equal(t, enc, c.CompressBlock(nil, src, dict), "output differs after reuse")
		other.Level = c.Level
		require.Equal(t, enc, other.CompressBlock(nil, src, dict), "output differs between compressors")
		if len(dict) == 0 {
			return
		}
		// A prepared Dict: a block pierrec decodes with its bytes, the
		// same from every Compressor.
		d := NewDict(dict)
		enc = c.CompressBlockDict(append([]byte(nil), guard...), src, d)
		require.Equal(t, guard, enc[:2], "Dict: dst prefix overwritten")
		enc = enc[2:]
		require.LessOrEqual(t, len(enc), CompressBound(len(src)), "Dict: bytes > bound")
		checkSpec(t, enc, len(src))
		n, err = lz4.UncompressBlockWithDict(enc, got, d.Bytes())
		require.NoError(t, err, "Dict: decode")
		require.Equal(t, string(src), string(got[:n]), "Dict: decode")
		require.Equal(t, enc, other.CompressBlockDict(nil, src, d), "Dict: output differs between compressors")
	})

}
