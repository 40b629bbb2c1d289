package lz4dict

import (
	"testing"

	"github.com/pierrec/lz4/v4"
)

// BenchmarkCompress compares this compressor with pierrec/lz4/v4's on the
// same inputs, and shows what a dictionary buys on 4 KiB sub-blocks of sorted
// keys (dictionary: the first 1/20 of the data, Lucene's LZ4 split). SetBytes
// counts uncompressed input bytes; ratio is compressed/uncompressed.
func BenchmarkCompress(b *testing.B) {
	data := corpus()
	for _, name := range []string{"keys", "text", "random"} {
		src := data[name]
		b.Run("data="+name+"/impl=kvenc", func(b *testing.B) {
			var c Compressor
			var out []byte
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				out = c.CompressBlock(out[:0], src, nil)
			}
			b.ReportMetric(float64(len(out))/float64(len(src)), "ratio")
		})
		b.Run("data="+name+"/impl=pierrec", func(b *testing.B) {
			var c lz4.Compressor
			out := make([]byte, lz4.CompressBlockBound(len(src)))
			var n int
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				n, _ = c.CompressBlock(src, out)
			}
			if n == 0 {
				n = len(src)
			}
			b.ReportMetric(float64(n)/float64(len(src)), "ratio")
		})
	}
	keys := data["keys"]
	dict, rest := keys[:len(keys)/20], keys[len(keys)/20:]
	for _, withDict := range []bool{false, true} {
		name := "data=keys-4k-subblocks/dict=false"
		d := []byte(nil)
		if withDict {
			name, d = "data=keys-4k-subblocks/dict=true", dict
		}
		b.Run(name, func(b *testing.B) {
			var c Compressor
			var out []byte
			b.SetBytes(int64(len(rest)))
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				out = out[:0]
				for off := 0; off < len(rest); off += 4096 {
					out = c.CompressBlock(out, rest[off:min(off+4096, len(rest))], d)
				}
			}
			b.ReportMetric(float64(len(out))/float64(len(rest)), "ratio")
		})
	}
}
