package lz4dict

import (
	"fmt"
	"testing"

	"github.com/pierrec/lz4/v4"
)

// BenchmarkCompress compares this compressor's fast mode and HC levels with
// pierrec/lz4/v4's fast and HC compressors on the same inputs, side by side:
// kvenc-hc5 and pierrec-hc16 search 16 chain candidates, kvenc-hc9,
// kvenc-opt10 and pierrec-hc256 256. Inputs: the test corpus (keys, text, random) and
// textData's comments, dates and keybytes, 64 KiB each. It also shows what a
// dictionary buys on 4 KiB sub-blocks of sorted keys (dictionary: the first
// 1/20 of the data, Lucene's LZ4 split). SetBytes counts uncompressed input
// bytes; bytes is the compressed size, ratio compressed/uncompressed
// (pierrec reports incompressible input as 0 bytes: counted as stored raw).
// Each compressor is warmed up once outside the timer, so allocs/op shows
// the steady state (0).
func BenchmarkCompress(b *testing.B) {
	data := corpus()
	for name, src := range textData(64 << 10) {
		data[name] = src
	}
	report := func(b *testing.B, n, src int) {
		b.ReportMetric(float64(n), "bytes")
		b.ReportMetric(float64(n)/float64(src), "ratio")
	}
	for _, name := range []string{"keys", "text", "random", "comments", "dates", "keybytes"} {
		src := data[name]
		for _, level := range []int{LevelFast, 5, LevelHC, LevelOpt} {
			impl := "kvenc-fast"
			switch {
			case level >= LevelOpt:
				impl = fmt.Sprintf("kvenc-opt%d", level)
			case level > LevelFast:
				impl = fmt.Sprintf("kvenc-hc%d", level)
			}
			b.Run("data="+name+"/impl="+impl, func(b *testing.B) {
				c := Compressor{Level: level}
				out := c.CompressBlock(nil, src, nil) // warm-up: buffers are kept
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					out = c.CompressBlock(out[:0], src, nil)
				}
				report(b, len(out), len(src))
			})
		}
		for _, depth := range []int{0, 16, 256} {
			impl := "pierrec-fast"
			if depth > 0 {
				impl = fmt.Sprintf("pierrec-hc%d", depth)
			}
			b.Run("data="+name+"/impl="+impl, func(b *testing.B) {
				var fast lz4.Compressor
				hc := lz4.CompressorHC{Level: lz4.CompressionLevel(depth)}
				out := make([]byte, lz4.CompressBlockBound(len(src)))
				var n int
				b.SetBytes(int64(len(src)))
				b.ReportAllocs()
				for b.Loop() {
					if depth == 0 {
						n, _ = fast.CompressBlock(src, out)
					} else {
						n, _ = hc.CompressBlock(src, out)
					}
				}
				if n == 0 {
					n = len(src)
				}
				report(b, n, len(src))
			})
		}
	}
	keys := data["keys"]
	dict, rest := keys[:len(keys)/20], keys[len(keys)/20:]
	for _, level := range []int{LevelFast, LevelHC, LevelOpt} {
		for _, withDict := range []bool{false, true} {
			d := []byte(nil)
			if withDict {
				d = dict
			}
			b.Run(fmt.Sprintf("data=keys-4k-subblocks/level=%d/dict=%t", level, withDict), func(b *testing.B) {
				c := Compressor{Level: level}
				out := c.CompressBlock(nil, rest[:4096], d) // warm-up: buffers are kept
				b.SetBytes(int64(len(rest)))
				b.ReportAllocs()
				for b.Loop() {
					out = out[:0]
					for off := 0; off < len(rest); off += 4096 {
						out = c.CompressBlock(out, rest[off:min(off+4096, len(rest))], d)
					}
				}
				report(b, len(out), len(rest))
			})
		}
	}
}
