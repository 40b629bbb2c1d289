package lz4dict

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkCompressDict compresses a 31 KiB area of lineitem rows as 4 KiB
// sub-blocks (what a Columnar block's value area becomes with an external
// dictionary) three ways, one after the other in every iteration, so that
// load from other processes hits them alike: none compresses each
// sub-block alone; copy against 64 KiB of other rows passed as bytes
// (CompressBlock: the dictionary is copied and hashed for every
// sub-block); prepared against the same bytes as a Dict, whose tables are
// built once (CompressBlockDict). Metrics per way: ns per area, MB/s of
// uncompressed input, ratio (compressed/uncompressed); and
// prepared/none-time. The reported ns/op is all three.
func BenchmarkCompressDict(b *testing.B) {
	dictBytes := lineitemText(1, MaxDictLen)
	area := lineitemText(2, 31<<10)
	d := NewDict(dictBytes)
	const sub = 4 << 10
	ways := []string{"none", "copy", "prepared"}
	for _, level := range []int{LevelFast, 4, LevelHC} {
		b.Run(fmt.Sprintf("level=%d", level), func(b *testing.B) {
			c := Compressor{Level: level}
			run := func(out []byte, way int) []byte {
				for off := 0; off < len(area); off += sub {
					src := area[off:min(off+sub, len(area))]
					switch way {
					case 0:
						out = c.CompressBlock(out, src, nil)
					case 1:
						out = c.CompressBlock(out, src, dictBytes)
					default:
						out = c.CompressBlockDict(out, src, d)
					}
				}
				return out
			}
			var outs [3][]byte
			var ns [3]time.Duration
			for w := range ways {
				outs[w] = run(nil, w) // warm-up: buffers kept, the Dict's tables built
			}
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				for w := range ways {
					start := time.Now()
					outs[w] = run(outs[w][:0], w)
					ns[w] += time.Since(start)
				}
				n++
			}
			for w, way := range ways {
				per := float64(ns[w].Nanoseconds()) / float64(n)
				b.ReportMetric(per, way+"-ns")
				b.ReportMetric(float64(len(area))/per*1e3, way+"-MB/s")
				b.ReportMetric(float64(len(outs[w]))/float64(len(area)), way+"-ratio")
			}
			b.ReportMetric(float64(ns[2])/float64(ns[0]), "prepared/none-time")
		})
	}
}

// BenchmarkCompressDictLevels compresses 64 KiB of lineitem-like values
// (lineitemValues) as sub-blocks of 1 KiB, the size of a Columnar value
// area's sub-blocks, and of 4 KiB, each against a prepared Dict of 64 KiB
// of other values, at the HC levels. SetBytes counts uncompressed input
// bytes; ratio is compressed/uncompressed.
func BenchmarkCompressDictLevels(b *testing.B) {
	d := NewDict(lineitemValues(1, MaxDictLen))
	area := lineitemValues(2, 64<<10)
	for _, sub := range []int{1 << 10, 4 << 10} {
		for _, level := range []int{4, 5, 6, 7, 8, LevelHC} {
			b.Run(fmt.Sprintf("sub=%d/level=%d", sub, level), func(b *testing.B) {
				c := Compressor{Level: level}
				run := func(out []byte) []byte {
					for off := 0; off < len(area); off += sub {
						out = c.CompressBlockDict(out, area[off:min(off+sub, len(area))], d)
					}
					return out
				}
				out := run(nil) // warm-up: buffers kept, the Dict's tables built
				b.SetBytes(int64(len(area)))
				b.ReportAllocs()
				for b.Loop() {
					out = run(out[:0])
				}
				b.ReportMetric(float64(len(out))/float64(len(area)), "ratio")
			})
		}
	}
}

// BenchmarkNewSuffixIndex builds the suffix index of a 64 KiB dictionary
// (a Dict does it once, on first use at an HC level): lineitem-like
// values, and zeros, whose repeats take the most doubling rounds. SetBytes
// counts dictionary bytes.
func BenchmarkNewSuffixIndex(b *testing.B) {
	for name, dict := range map[string][]byte{"lineitem": lineitemValues(1, MaxDictLen), "zeros": make([]byte, MaxDictLen)} {
		b.Run("dict="+name, func(b *testing.B) {
			b.SetBytes(int64(len(dict)))
			b.ReportAllocs()
			for b.Loop() {
				newSuffixIndex(dict)
			}
		})
	}
}
